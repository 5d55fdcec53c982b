#include "sim/units/parse.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <vector>

namespace fleetsim::units {
namespace {

struct Atom {
  std::string_view symbol;
  double scale;  // SI value of one of this unit
  DimVec dim;
};

constexpr DimVec kTime{{1, 0, 0, 0, 0, 0, 0, 0}};
constexpr DimVec kBytes{{0, 1, 0, 0, 0, 0, 0, 0}};
constexpr DimVec kFlop{{0, 0, 1, 0, 0, 0, 0, 0}};
constexpr DimVec kEnergy{{0, 0, 0, 1, 0, 0, 0, 0}};
constexpr DimVec kKelvin{{0, 0, 0, 0, 1, 0, 0, 0}};
constexpr DimVec kMass{{0, 0, 0, 0, 0, 1, 0, 0}};
constexpr DimVec kMoney{{0, 0, 0, 0, 0, 0, 1, 0}};
constexpr DimVec kTokens{{0, 0, 0, 0, 0, 0, 0, 1}};
constexpr DimVec kPower{{-1, 0, 0, 1, 0, 0, 0, 0}};

// Symbols are matched exactly (no prefix guessing), so "min" is minutes and "m" is not a unit.
const std::vector<Atom>& atoms() {
  static const std::vector<Atom> table = {
      {"ns", 1e-9, kTime}, {"us", 1e-6, kTime}, {"\xC2\xB5s", 1e-6, kTime}, {"ms", 1e-3, kTime},
      {"s", 1.0, kTime}, {"min", 60.0, kTime}, {"h", 3600.0, kTime}, {"d", 86400.0, kTime},
      {"week", 604800.0, kTime}, {"yr", 365.0 * 86400.0, kTime},
      {"B", 1.0, kBytes}, {"kB", 1e3, kBytes}, {"KB", 1e3, kBytes}, {"MB", 1e6, kBytes},
      {"GB", 1e9, kBytes}, {"TB", 1e12, kBytes}, {"PB", 1e15, kBytes}, {"EB", 1e18, kBytes},
      {"KiB", 1024.0, kBytes}, {"MiB", 1048576.0, kBytes}, {"GiB", 1073741824.0, kBytes},
      {"TiB", 1099511627776.0, kBytes}, {"PiB", 1125899906842624.0, kBytes},
      {"b", 0.125, kBytes}, {"kb", 125.0, kBytes}, {"Kb", 125.0, kBytes}, {"Mb", 1.25e5, kBytes},
      {"Gb", 1.25e8, kBytes}, {"Tb", 1.25e11, kBytes},
      {"FLOP", 1.0, kFlop}, {"kFLOP", 1e3, kFlop}, {"MFLOP", 1e6, kFlop}, {"GFLOP", 1e9, kFlop},
      {"TFLOP", 1e12, kFlop}, {"PFLOP", 1e15, kFlop}, {"EFLOP", 1e18, kFlop},
      {"J", 1.0, kEnergy}, {"kJ", 1e3, kEnergy}, {"MJ", 1e6, kEnergy}, {"GJ", 1e9, kEnergy},
      {"Wh", 3600.0, kEnergy}, {"kWh", 3.6e6, kEnergy}, {"MWh", 3.6e9, kEnergy},
      {"GWh", 3.6e12, kEnergy}, {"TWh", 3.6e15, kEnergy},
      {"W", 1.0, kPower}, {"kW", 1e3, kPower}, {"MW", 1e6, kPower}, {"GW", 1e9, kPower},
      {"K", 1.0, kKelvin},
      {"g", 1e-3, kMass}, {"kg", 1.0, kMass}, {"t", 1e3, kMass},
      {"USD", 1.0, kMoney}, {"tokens", 1.0, kTokens}, {"token", 1.0, kTokens},
  };
  return table;
}

// Aliases users type out of habit; each maps to a canonical compound unit.
std::string_view canonical(std::string_view u) {
  if (u == "Gbps") return "Gb/s";
  if (u == "Tbps") return "Tb/s";
  if (u == "Mbps") return "Mb/s";
  if (u == "TFLOPS") return "TFLOP/s";
  if (u == "PFLOPS") return "PFLOP/s";
  if (u == "GFLOPS") return "GFLOP/s";
  return u;
}

DimVec add(DimVec a, const DimVec& b, int sign) {
  for (size_t i = 0; i < a.e.size(); ++i) a.e[i] += sign * b.e[i];
  return a;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// One side of a quotient: atoms joined by '*' or '.'. Empty means 1.
bool parse_product(std::string_view s, double& scale, DimVec& dim) {
  s = trim(s);
  if (s.empty() || s == "1") return true;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find('*', start);
    if (end == std::string_view::npos) end = s.size();
    std::string_view sym = trim(s.substr(start, end - start));
    bool found = false;
    for (const auto& a : atoms()) {
      if (a.symbol == sym) {
        scale *= a.scale;
        dim = add(dim, a.dim, +1);
        found = true;
        break;
      }
    }
    if (!found) return false;
    start = end + 1;
  }
  return true;
}

double parse_number(std::string_view s, bool& ok) {
  double v = 0.0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  ok = (ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(v));
  return v;
}

// "1e308 d" is a finite number in a unit whose SI value is not.
double finite_or_throw(double si, std::string_view text) {
  if (!std::isfinite(si))
    throw UnitError("'" + std::string(text) + "' is too large to represent (beyond 1.8e308 in SI units)");
  return si;
}

}  // namespace

DimInfo describe(const DimVec& d) {
  struct Known { DimVec dim; const char* name; const char* example; };
  static const Known known[] = {
      {kTime, "time", "30 min"},
      {kBytes, "bytes", "80 GiB"},
      {add(kBytes, kTime, -1), "bandwidth", "400 Gb/s"},
      {kFlop, "work", "3.8e25 FLOP"},
      {add(kFlop, kTime, -1), "compute rate", "989 TFLOP/s"},
      {kEnergy, "energy", "21.6 GWh"},
      {kPower, "power", "700 W"},
      {add(kPower, kTime, -1), "power ramp rate", "2000 W/s"},
      {kKelvin, "temperature difference", "5 K"},
      {add(kKelvin, kPower, -1), "thermal resistance", "0.06 K/W"},
      {kMass, "mass", "8930 t"},
      {add(kMass, kEnergy, -1), "carbon intensity", "0.414 kg/kWh"},
      {kMoney, "money", "1000 USD"},
      {add(kMoney, kEnergy, -1), "energy price", "0.08 USD/kWh"},
      {kTokens, "token count", "15.6T"},
      {add(DimVec{}, kTime, -1), "rate", "0.5 /d"},
      {DimVec{}, "dimensionless number", "0.5"},
  };
  for (const auto& k : known)
    if (k.dim == d) return {k.name, k.example};
  return {"compound quantity", "1 W/K"};
}

ParsedQuantity parse_quantity(std::string_view text) { return parse_quantity(text, false); }

ParsedQuantity parse_quantity(std::string_view text, bool token_suffixes) {
  std::string_view s = trim(text);
  if (s.empty()) throw UnitError("empty value");
  // Split the leading number from the unit.
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.' ||
                          s[i] == '-' || s[i] == '+' ||
                          ((s[i] == 'e' || s[i] == 'E') && i + 1 < s.size() &&
                           (std::isdigit(static_cast<unsigned char>(s[i + 1])) ||
                            s[i + 1] == '-' || s[i + 1] == '+'))))
    ++i;
  bool ok = false;
  double number = parse_number(s.substr(0, i), ok);
  if (!ok) throw UnitError("'" + std::string(text) + "' does not start with a number");
  std::string_view unit = trim(s.substr(i));
  if (unit.empty()) throw UnitError("'" + std::string(text) + "' has no unit");

  // Token counts with an SI-style suffix: 15.6T, 800B, 4M (optionally followed by "tokens").
  static const std::pair<std::string_view, double> counts[] = {
      {"K", 1e3}, {"M", 1e6}, {"B", 1e9}, {"G", 1e9}, {"T", 1e12}};
  for (const auto& [suffix, mult] : counts) {
    if (!token_suffixes) break;
    if (unit == suffix || unit == std::string(suffix) + " tokens" ||
        unit == std::string(suffix) + " token")
      return {finite_or_throw(number * mult, text), kTokens};
  }
  if (unit == "%") return {number / 100.0, DimVec{}};

  std::string_view u = canonical(unit);
  double scale = 1.0;
  DimVec dim{};
  size_t slash = u.find('/');
  bool good = parse_product(slash == std::string_view::npos ? u : u.substr(0, slash), scale, dim);
  if (good && slash != std::string_view::npos) {
    double den_scale = 1.0;
    DimVec den{};
    good = parse_product(u.substr(slash + 1), den_scale, den);
    scale /= den_scale;
    dim = add(dim, den, -1);
  }
  if (!good)
    throw UnitError("'" + std::string(unit) + "' is not a known unit (e.g. s, min, h, d, GiB, " +
                    "TB/s, Gb/s, TFLOP/s, W, kW, MWh, K/W, kg/kWh, USD/kWh, 15.6T)");
  return {finite_or_throw(number * scale, text), dim};
}

double parse_si(std::string_view text, const DimVec& expected) {
  std::string_view s = trim(text);
  if (expected == DimVec{}) {
    bool ok = false;
    double v = parse_number(s, ok);
    if (ok) return v;
  }
  ParsedQuantity q;
  try {
    q = parse_quantity(s, expected == kTokens);
  } catch (const UnitError& e) {
    DimInfo want = describe(expected);
    throw UnitError(std::string(e.what()) + "; expected a " + want.name + " such as '" +
                    want.example + "'");
  }
  if (!(q.dim == expected)) {
    DimInfo want = describe(expected), got = describe(q.dim);
    throw UnitError("'" + std::string(s) + "' is a " + got.name + ", expected a " + want.name +
                    " such as '" + want.example + "'");
  }
  return q.si;
}

Celsius parse_celsius(std::string_view text) {
  std::string_view s = trim(text);
  for (std::string_view suffix : {std::string_view("degC"), std::string_view("\xC2\xB0" "C"),
                                  std::string_view("C")}) {
    if (s.size() > suffix.size() && s.substr(s.size() - suffix.size()) == suffix) {
      bool ok = false;
      double v = parse_number(trim(s.substr(0, s.size() - suffix.size())), ok);
      if (ok) return {v};
    }
  }
  try {
    ParsedQuantity q = parse_quantity(s);
    if (q.dim == kKelvin) return {q.si - 273.15};
  } catch (const UnitError&) {
  }
  throw UnitError("'" + std::string(s) + "' is not a temperature; write e.g. '25 degC' or '298 K'");
}

std::string format(double si, const DimVec& dim) {
  struct Unit { const char* sym; double scale; };
  std::vector<Unit> ladder;
  if (dim == kTime) ladder = {{"d", 86400}, {"h", 3600}, {"min", 60}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
  else if (dim == kBytes) ladder = {{"PB", 1e15}, {"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3}, {"B", 1}};
  else if (dim == add(kBytes, kTime, -1)) ladder = {{"TB/s", 1e12}, {"GB/s", 1e9}, {"MB/s", 1e6}, {"B/s", 1}};
  else if (dim == add(kFlop, kTime, -1)) ladder = {{"PFLOP/s", 1e15}, {"TFLOP/s", 1e12}, {"GFLOP/s", 1e9}, {"FLOP/s", 1}};
  else if (dim == kPower) ladder = {{"GW", 1e9}, {"MW", 1e6}, {"kW", 1e3}, {"W", 1}};
  else if (dim == kEnergy) ladder = {{"GWh", 3.6e12}, {"MWh", 3.6e9}, {"kWh", 3.6e6}, {"J", 1}};
  else if (dim == kTokens) ladder = {{"T", 1e12}, {"B", 1e9}, {"M", 1e6}, {"K", 1e3}, {"", 1}};
  else if (dim == kFlop) ladder = {{"EFLOP", 1e18}, {"PFLOP", 1e15}, {"TFLOP", 1e12}, {"FLOP", 1}};
  char buf[64];
  for (const auto& u : ladder) {
    if (std::fabs(si) >= u.scale || &u == &ladder.back()) {
      std::snprintf(buf, sizeof buf, "%.4g%s%s", si / u.scale, (dim == kTokens ? "" : " "), u.sym);
      return buf;
    }
  }
  std::snprintf(buf, sizeof buf, "%.6g", si);
  return buf;
}

}  // namespace fleetsim::units
