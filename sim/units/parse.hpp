// Parsing "3.35 TB/s", "30 min", "15.6T", "25 degC" into SI values with a runtime dimension.
//
// Every dimensional value in a scenario goes through here once, at load. A bare number where a
// unit is needed, an unknown unit, or a unit of the wrong dimension is an error with a message
// that says what would be valid (OMNeT++'s habit: units are mandatory in input files).
#pragma once

#include <array>
#include <stdexcept>
#include <string>
#include <string_view>

#include "sim/units/quantity.hpp"

namespace fleetsim::units {

// Exponents of the eight base dimensions, in the order of fleetsim::Dim.
struct DimVec {
  std::array<int, 8> e{};
  friend bool operator==(const DimVec&, const DimVec&) = default;
};

template <class Q>
constexpr DimVec dim_of() {
  using D = typename Q::dim;
  return DimVec{{D::time, D::bytes, D::flop, D::energy, D::kelvin, D::mass, D::money, D::tokens}};
}

// What a dimension is called in messages, with an example value a user could write.
struct DimInfo {
  std::string name;
  std::string example;
};
DimInfo describe(const DimVec& d);

struct ParsedQuantity {
  double si = 0.0;
  DimVec dim;
};

class UnitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses "<number> <unit>" where unit is a product/quotient of known atoms ("TB/s", "kg/kWh",
// "K/W", "/h"), or a token count "15.6T". Throws UnitError when the text has no unit, an unknown
// unit, or is not a number.
ParsedQuantity parse_quantity(std::string_view text);
// With `token_suffixes`, "15.6T" and "800B" are token counts (used when a token count is expected,
// since "8 K" is otherwise a temperature difference and "80 B" bytes).
ParsedQuantity parse_quantity(std::string_view text, bool token_suffixes);

// Parses and checks the dimension; the message names the expected dimension and an example.
double parse_si(std::string_view text, const DimVec& expected);

template <class Q>
Q parse(std::string_view text) { return Q(parse_si(text, dim_of<Q>())); }

// "25 degC" or "298.15 K".
Celsius parse_celsius(std::string_view text);

// Formats an SI value in a readable unit of its dimension ("3.35 TB/s", "54 d").
std::string format(double si, const DimVec& dim);
template <class Q>
std::string format(Q q) { return format(q.si(), dim_of<Q>()); }

}  // namespace fleetsim::units
