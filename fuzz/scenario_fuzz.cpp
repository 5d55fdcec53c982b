// libFuzzer harness: the scenario loader from bytes (YAML, extends, presets, every validation
// rule, the layout checks). Bad input must end in ConfigError or InfeasibleError; any other
// exception, a crash, a sanitizer report, a hang or a memory blow-up is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/config/catalog.hpp"
#include "sim/config/load.hpp"
#include "sim/config/yaml_source.hpp"
#include "sim/core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Presets and `extends:` targets are read from disk once, then served from memory: the input is
  // what varies, the catalog does not.
  static const bool kept = (fleetsim::config::keep_files_in_memory(true), true);
  (void)kept;
  // As if the file sat in scenarios/, so "extends: llama3-405b-16k.yaml" resolves.
  static const std::string path = fleetsim::config::scenarios_dir() + "/fuzz-input.yaml";
  try {
    (void)fleetsim::config::load_scenario_text(std::string(reinterpret_cast<const char*>(data), size), path);
  } catch (const fleetsim::ConfigError&) {
  } catch (const fleetsim::InfeasibleError&) {
  }
  return 0;
}
