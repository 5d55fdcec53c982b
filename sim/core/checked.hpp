// Narrowing conversions that refuse instead of wrapping. static_cast<int>(double) out of range is
// undefined behaviour and llround of a value beyond long long is unspecified: both once turned
// bad input into wrong answers or out-of-bounds reads. Bad input is refused at load with a
// ConfigError naming the key (sim/config/limits.hpp); reaching a refusal here afterwards is an
// internal fault, reported as std::range_error naming what was converted.
#pragma once

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

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

}  // namespace fleetsim
