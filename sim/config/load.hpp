// Loading a scenario: file (or the default), `extends:` chain, presets from models/, `--set`
// overrides, unit parsing and every validation rule, ending in an immutable Scenario.
#pragma once

#include <string>
#include <vector>

#include "sim/scenario.hpp"

namespace fleetsim::config {

// `scenario` is a path, a name from scenarios/ (with or without .yaml), or "" for the default
// (scenarios/llama3-405b-16k.yaml). `sets` are "key.path=value" overrides, applied after the
// file and parsed like YAML. Throws ConfigError naming file, key and what would be valid.
Scenario load_scenario(const std::string& scenario, const std::vector<std::string>& sets = {});

// The same from the text of a scenario, as if read from `path` (which names it in messages and
// anchors relative `extends:` and preset paths; it need not exist). For tests and fuzzing.
Scenario load_scenario_text(const std::string& text, const std::string& path,
                            const std::vector<std::string>& sets = {});

// Where the catalog and scenarios live: fleetsim::home_dir() (sim/core/paths.hpp).
std::string home_dir();
std::string default_scenario_path();

}  // namespace fleetsim::config
