// libFuzzer harness: `fleetsim import nemo` on bytes (a NeMo 1.x or Megatron-Bridge recipe in
// YAML), then the scenario it prints, loaded back as a scenario file would be. Bad input must end
// in ConfigError or InfeasibleError; any other exception, a crash, a sanitizer report (an integer
// that wraps, say), a hang or a memory blow-up is a finding. The printed scenario, completed
// with the default scenario's cluster, must load or be refused with a ConfigError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/config/catalog.hpp"
#include "sim/config/load.hpp"
#include "sim/config/yaml_source.hpp"
#include "sim/core/error.hpp"
#include "sim/import/imported.hpp"
#include "sim/import/nemo_recipe.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool kept = (fleetsim::config::keep_files_in_memory(true), true);
  (void)kept;
  static const std::string scenario_path = fleetsim::config::scenarios_dir() + "/fuzz-imported.yaml";
  std::string yaml;
  try {
    const auto imp = fleetsim::importer::read_nemo_recipe_text(std::string(reinterpret_cast<const char*>(data), size),
                                                               "fuzz-recipe.yaml");
    (void)fleetsim::importer::import_notes(imp);
    yaml = fleetsim::importer::scenario_yaml(imp);
  } catch (const fleetsim::ConfigError&) {
    return 0;
  } catch (const fleetsim::InfeasibleError&) {
    return 0;
  }
  try {
    // Completed with the default scenario's cluster, as a user would, so that the imported model
    // and layout meet the layout checks.
    (void)fleetsim::config::load_scenario_text("extends: llama3-405b-16k.yaml\n" + yaml, scenario_path);
  } catch (const fleetsim::ConfigError&) {
  } catch (const fleetsim::InfeasibleError&) {
  }
  return 0;
}
