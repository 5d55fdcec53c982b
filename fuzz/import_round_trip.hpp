// What both import harnesses do once an importer has read its input: print the scenario, then
// load it back completed with the default scenario's cluster, as a user would. `read` is the
// importer call; bad input must end in ConfigError or InfeasibleError, anything else is a finding.
#pragma once

#include <string>

#include "sim/config/catalog.hpp"
#include "sim/config/load.hpp"
#include "sim/config/yaml_source.hpp"
#include "sim/core/error.hpp"
#include "sim/import/imported.hpp"

namespace fuzz {

template <class Read>
void import_round_trip(Read read) {
  static const bool kept = (fleetsim::config::keep_files_in_memory(true), true);
  (void)kept;
  static const std::string scenario_path = fleetsim::config::scenarios_dir() + "/fuzz-imported.yaml";
  std::string yaml;
  try {
    const fleetsim::importer::Imported imp = read();
    (void)fleetsim::importer::import_notes(imp);
    yaml = fleetsim::importer::scenario_yaml(imp);
  } catch (const fleetsim::ConfigError&) {
    return;
  } catch (const fleetsim::InfeasibleError&) {
    return;
  }
  try {
    // The default scenario's cluster, so that the imported model and layout meet the layout checks.
    (void)fleetsim::config::load_scenario_text("extends: llama3-405b-16k.yaml\n" + yaml, scenario_path);
  } catch (const fleetsim::ConfigError&) {
  } catch (const fleetsim::InfeasibleError&) {
  }
}

}  // namespace fuzz
