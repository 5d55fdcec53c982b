// The two halves of load_scenario (load.hpp), for a caller that applies many `--set` lists to one
// scenario (the --set fuzz harness): the file and its `extends:` chain read, checked and merged
// once, then the overrides, resolution (presets) and cross-field checks for one list of `sets`.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <string>
#include <vector>

#include "sim/scenario.hpp"

namespace fleetsim::config {

struct ScenarioTree {
  std::string path;         // names the scenario in messages
  YAML::Node merged;        // the chain merged base-first, not yet resolved
  std::size_t node_budget;  // what is left of the alias-bomb bound (resolve.hpp) after reading
};

// `scenario` as for load_scenario. Throws ConfigError.
ScenarioTree read_scenario_tree(const std::string& scenario);

// load_scenario(scenario, sets) == apply_sets(read_scenario_tree(scenario), sets); the tree is left
// as it was, so it can take any number of `sets` lists. Throws ConfigError.
Scenario apply_sets(const ScenarioTree& tree, const std::vector<std::string>& sets);

}  // namespace fleetsim::config
