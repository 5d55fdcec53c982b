// Physical quantities as value types whose dimension is part of the type.
//
// A quantity holds its value in SI base units (seconds, bytes, FLOP, joules, kelvin, kilograms,
// US dollars, tokens). Multiplying or dividing two quantities yields the quantity of the combined
// dimension, so `Bytes / BytesPerSecond` is `Seconds` and `Watts * Seconds` is `Joules`; adding
// quantities of different dimensions does not compile. Raw doubles appear only at the SimGrid and
// HDF5 boundaries (STYLE.md, habit 1).
#pragma once

#include <cmath>
#include <compare>

namespace fleetsim {

// Exponents of the base dimensions: time, information (bytes), work (floating-point operations),
// energy, temperature, mass, money, tokens.
template <int T, int B, int F, int E, int K = 0, int M = 0, int C = 0, int N = 0>
struct Dim {
  static constexpr int time = T, bytes = B, flop = F, energy = E, kelvin = K, mass = M, money = C,
                       tokens = N;
};

template <class D1, class D2>
using DimMul = Dim<D1::time + D2::time, D1::bytes + D2::bytes, D1::flop + D2::flop,
                   D1::energy + D2::energy, D1::kelvin + D2::kelvin, D1::mass + D2::mass,
                   D1::money + D2::money, D1::tokens + D2::tokens>;
template <class D1, class D2>
using DimDiv = Dim<D1::time - D2::time, D1::bytes - D2::bytes, D1::flop - D2::flop,
                   D1::energy - D2::energy, D1::kelvin - D2::kelvin, D1::mass - D2::mass,
                   D1::money - D2::money, D1::tokens - D2::tokens>;

using Dimensionless = Dim<0, 0, 0, 0>;

template <class D>
class Quantity {
 public:
  using dim = D;
  constexpr Quantity() = default;
  constexpr explicit Quantity(double value_in_si) : v_(value_in_si) {}
  [[nodiscard]] constexpr double si() const { return v_; }

  constexpr Quantity& operator+=(Quantity o) { v_ += o.v_; return *this; }
  constexpr Quantity& operator-=(Quantity o) { v_ -= o.v_; return *this; }
  constexpr Quantity& operator*=(double k) { v_ *= k; return *this; }
  constexpr Quantity& operator/=(double k) { v_ /= k; return *this; }
  friend constexpr Quantity operator+(Quantity a, Quantity b) { return Quantity(a.v_ + b.v_); }
  friend constexpr Quantity operator-(Quantity a, Quantity b) { return Quantity(a.v_ - b.v_); }
  friend constexpr Quantity operator-(Quantity a) { return Quantity(-a.v_); }
  friend constexpr Quantity operator*(Quantity a, double k) { return Quantity(a.v_ * k); }
  friend constexpr Quantity operator*(double k, Quantity a) { return Quantity(a.v_ * k); }
  friend constexpr Quantity operator/(Quantity a, double k) { return Quantity(a.v_ / k); }
  friend constexpr auto operator<=>(Quantity a, Quantity b) = default;

 private:
  double v_ = 0.0;
};

// Same dimension divided: a plain ratio.
template <class D>
constexpr double operator/(Quantity<D> a, Quantity<D> b) { return a.si() / b.si(); }

template <class D1, class D2>
  requires(!std::is_same_v<D1, D2>)
constexpr Quantity<DimDiv<D1, D2>> operator/(Quantity<D1> a, Quantity<D2> b) {
  return Quantity<DimDiv<D1, D2>>(a.si() / b.si());
}
template <class D1, class D2>
constexpr Quantity<DimMul<D1, D2>> operator*(Quantity<D1> a, Quantity<D2> b) {
  return Quantity<DimMul<D1, D2>>(a.si() * b.si());
}
template <class D>
constexpr Quantity<D> max(Quantity<D> a, Quantity<D> b) { return a < b ? b : a; }
template <class D>
constexpr Quantity<D> min(Quantity<D> a, Quantity<D> b) { return a < b ? a : b; }

using Seconds = Quantity<Dim<1, 0, 0, 0>>;
using Bytes = Quantity<Dim<0, 1, 0, 0>>;
using BytesPerSecond = Quantity<Dim<-1, 1, 0, 0>>;
using Flops = Quantity<Dim<0, 0, 1, 0>>;
using FlopsPerSecond = Quantity<Dim<-1, 0, 1, 0>>;
using Joules = Quantity<Dim<0, 0, 0, 1>>;
using Watts = Quantity<Dim<-1, 0, 0, 1>>;
using Kelvin = Quantity<Dim<0, 0, 0, 0, 1>>;              // a temperature difference
using KelvinPerWatt = Quantity<Dim<1, 0, 0, -1, 1>>;      // thermal resistance
using Kilograms = Quantity<Dim<0, 0, 0, 0, 0, 1>>;
using KilogramsPerJoule = Quantity<Dim<0, 0, 0, -1, 0, 1>>;  // carbon intensity
using Dollars = Quantity<Dim<0, 0, 0, 0, 0, 0, 1>>;
using DollarsPerJoule = Quantity<Dim<0, 0, 0, -1, 0, 0, 1>>;  // energy price
using Tokens = Quantity<Dim<0, 0, 0, 0, 0, 0, 0, 1>>;
using PerSecond = Quantity<Dim<-1, 0, 0, 0>>;             // a rate (failures per second)

// An absolute temperature in degrees Celsius. Kept apart from Kelvin (a difference) because the
// two are related by an offset, not a factor.
struct Celsius {
  double value = 0.0;
  friend constexpr auto operator<=>(Celsius, Celsius) = default;
};
constexpr Celsius operator+(Celsius t, Kelvin d) { return {t.value + d.si()}; }
constexpr Kelvin operator-(Celsius a, Celsius b) { return Kelvin(a.value - b.value); }

// Convenience constructors for code and tests; scenario files go through units/parse.hpp.
namespace units {
constexpr Seconds seconds(double v) { return Seconds(v); }
constexpr Seconds minutes(double v) { return Seconds(60.0 * v); }
constexpr Seconds hours(double v) { return Seconds(3600.0 * v); }
constexpr Seconds days(double v) { return Seconds(86400.0 * v); }
constexpr Bytes bytes(double v) { return Bytes(v); }
constexpr Bytes gib(double v) { return Bytes(v * 1073741824.0); }
constexpr BytesPerSecond gb_per_s(double v) { return BytesPerSecond(v * 1e9); }
constexpr BytesPerSecond gbit_per_s(double v) { return BytesPerSecond(v * 1e9 / 8.0); }
constexpr FlopsPerSecond tflop_per_s(double v) { return FlopsPerSecond(v * 1e12); }
constexpr Watts watts(double v) { return Watts(v); }
constexpr double to_hours(Seconds s) { return s.si() / 3600.0; }
constexpr double to_days(Seconds s) { return s.si() / 86400.0; }
constexpr double to_gib(Bytes b) { return b.si() / 1073741824.0; }
constexpr double to_mwh(Joules j) { return j.si() / 3.6e9; }
}  // namespace units

}  // namespace fleetsim
