// Checking YAML against the schema and turning it into ParamSets: unknown keys (with a
// did-you-mean), missing keys, units, ranges, choices, preset references, and the bounded walk
// that defuses YAML alias bombs.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "sim/config/params.hpp"
#include "sim/config/schema.hpp"

namespace fleetsim::config {

class Resolver {
 public:
  // `node_budget` bounds the number of YAML nodes visited in all (aliases count every time).
  explicit Resolver(size_t node_budget = 200000) : budget_(node_budget) {}

  // Scenario files (and their --set) may declare a number uncertain, {value: V, range: [lo, hi]}
  // (uncertain_value.cpp); elsewhere (plan files, facility presets) nothing would draw it, so a
  // declaration is refused there rather than silently reduced to its value.
  void allow_uncertain_values(bool allow) { allow_uncertain_ = allow; }

  // Full resolution: required keys must be present, presets are loaded and overridden.
  ParamSet resolve(const YAML::Node& node, const Schema& schema, const std::string& path,
                   const std::string& file);
  // Partial check of one file or override: keys, types, units and preset names, nothing required.
  void check(const YAML::Node& node, const Schema& schema, const std::string& path,
             const std::string& file);
  // Schema-aware merge: `over` wins; a preset given as a name in `base` and overridden with a
  // mapping in `over` becomes {preset: name, overrides...}. Returns a fresh tree.
  YAML::Node merge(const YAML::Node& base, const YAML::Node& over, const Schema& schema);
  // A bounded deep copy.
  YAML::Node clone(const YAML::Node& node);
  // Nodes that may still be visited (a later Resolver started with it continues the same bound).
  size_t budget_left() const { return budget_; }

  // Loads a catalog entry: `name` is a preset name in models/<kind>/ or a path to a YAML file
  // (relative to the directory of `referer`). Returns the file path.
  std::string find_preset(const std::string& kind, const std::string& name,
                          const std::string& referer, const std::string& key) const;

 private:
  ParamSet walk(const YAML::Node& node, const Schema& schema, const std::string& path,
                const std::string& file, bool partial);
  Param value(const YAML::Node& node, const Field& field, const std::string& path,
              const std::string& file, bool partial);
  ParamSet preset(const YAML::Node& node, const Field& field, const std::string& path,
                  const std::string& file, bool partial);
  Param uncertain_value(const YAML::Node& node, const Field& field, const std::string& path,
                        const std::string& file, bool partial);
  void spend(const std::string& file);
  size_t budget_;
  bool allow_uncertain_ = false;
};

// "did you mean 'x'?" or "" when nothing is close.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);
std::string join(const std::vector<std::string>& words, const std::string& sep = ", ");

}  // namespace fleetsim::config
