// Validated values of one schema section, with typed getters. Built by the resolver (resolve.cpp)
// from YAML; read once by the struct builders (scenario_builder.cpp). Models never see this.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/checked.hpp"
#include "sim/units/quantity.hpp"

namespace fleetsim::config {

struct ParamSet;

// A number the scenario declares uncertain (issue 25; sim/config/uncertain_value.cpp):
// {value: V, range: [lo, hi]} (uniform), or {value: V, distribution: D, ...}. `value` stays
// Param::number (what the point prediction uses); this says how the sampling commands draw it.
struct UncertainSpec {
  std::string distribution;                 // uniform, triangular, normal, lognormal
  double lo = 0.0, hi = 0.0;                // support in SI: the range, or the key's own bounds
  bool has_range = false;                   // lo/hi came from `range:` (else the key's bounds)
  double sd = 0.0;                          // normal: standard deviation, SI units of the key
  double sigma = 0.0;                       // lognormal: standard deviation of ln(x); value = median
  std::string shown;                        // as a user reads it: "uniform on [0.7, 1.5]"
};

struct Param {
  double number = 0.0;                      // Quantity (SI), Real, Temperature (degC), Integer
  bool flag = false;
  std::string text;                         // Choice, Text; a Quantity given as a word ("daly")
  std::vector<long long> ints;
  std::vector<ParamSet> rows;               // Table
  std::shared_ptr<ParamSet> sub;            // Section, Preset
  std::string origin;                       // file (or "--set ...") the value came from
  std::string source;                       // citation, for preset fields
  std::shared_ptr<const UncertainSpec> uncertain;  // declared uncertain (scenario files only)
};

struct ParamSet {
  std::string preset_name;                  // for presets: the catalog name or path
  std::string preset_file;
  std::string description;
  std::map<std::string, Param> values;

  [[nodiscard]] const Param& at(const std::string& key) const;
  [[nodiscard]] double num(const std::string& key) const { return at(key).number; }
  // The resolver keeps integer keys within int (limits.hpp); checked all the same.
  [[nodiscard]] int integer(const std::string& key) const { return checked_cast<int>(at(key).number, key); }
  [[nodiscard]] bool flag(const std::string& key) const { return at(key).flag; }
  [[nodiscard]] const std::string& text(const std::string& key) const { return at(key).text; }
  [[nodiscard]] const ParamSet& sub(const std::string& key) const { return *at(key).sub; }
  template <class Q>
  [[nodiscard]] Q get(const std::string& key) const { return Q(at(key).number); }
  [[nodiscard]] Celsius celsius(const std::string& key) const { return {at(key).number}; }
};

}  // namespace fleetsim::config
