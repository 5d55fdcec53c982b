// Narrowing conversions that refuse instead of wrapping. static_cast<int>(double) out of range is
// undefined behaviour and llround of a value beyond long long is unspecified: both once turned
// bad input into wrong answers or out-of-bounds reads. Bad input is refused at load with a
// ConfigError naming the key (sim/config/limits.hpp); reaching a refusal here afterwards is an
// internal fault, reported as std::range_error naming what was converted. A value read from
// input that has no schema bound of its own (an importer's product of two counts) goes through
// input_integer, which refuses it as bad input: a ConfigError naming the file and key.
#pragma once

#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

#include "sim/core/error.hpp"

namespace fleetsim {

// True when `v` is finite and its integer part fits `Int` (the bounds are exact powers of two).
template <class Int>
[[nodiscard]] bool fits(double v) {
  const double top = std::ldexp(1.0, std::numeric_limits<Int>::digits);  // exclusive
  const double bottom = std::numeric_limits<Int>::is_signed ? -top : -1.0;
  return std::numeric_limits<Int>::is_signed ? (v >= bottom && v < top) : (v > bottom && v < top);
}

// `v` truncated toward zero, or std::range_error naming `what` when it does not fit.
template <class Int>
[[nodiscard]] Int checked_cast(double v, const std::string& what) {
  if (!fits<Int>(v))
    throw std::range_error(what + " = " + std::to_string(v) + " does not fit a " +
                           std::to_string(std::numeric_limits<Int>::digits + std::numeric_limits<Int>::is_signed) +
                           "-bit integer");
  return static_cast<Int>(v);
}

// `v` rounded to the nearest integer (halves away from zero, like llround), checked.
template <class Int>
[[nodiscard]] Int checked_round(double v, const std::string& what) {
  return checked_cast<Int>(std::round(v), what);
}

// `v` rounded to the nearest integer when it is finite and within [lo, hi] (which must fit `Int`),
// else a ConfigError (exit 2) in the project's style: "file: key: <what> = 3e+23 is out of
// range; valid: 0 to 1e+18". `what` says how the value came about ("train_iters x
// global_batch_size x seq_length tokens"); fuzzing found 3e23 cast to long long (issue 40).
template <class Int>
[[nodiscard]] Int input_integer(double v, const std::string& file, const std::string& key, const std::string& what,
                                double lo, double hi) {
  if (!(std::isfinite(v) && std::round(v) >= lo && std::round(v) <= hi && fits<Int>(std::round(v)))) {
    char buf[96];
    std::snprintf(buf, sizeof buf, " = %.6g is out of range; valid: %.6g to %.6g", v, lo, hi);
    throw ConfigError(file, key, what + buf);
  }
  return static_cast<Int>(std::round(v));
}

}  // namespace fleetsim
