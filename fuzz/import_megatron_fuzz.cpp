// libFuzzer harness: `fleetsim import megatron -- ARGS...` on bytes: one argument per line (as the
// shell passes them; a line with spaces is split as a whole command line is, which the CLI does
// too), then the scenario it prints, loaded back as import_nemo_fuzz does. Bad input must end in
// ConfigError or InfeasibleError; any other exception, a crash, a sanitizer report, a hang or a
// memory blow-up is a finding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/catalog.hpp"
#include "sim/config/load.hpp"
#include "sim/config/yaml_source.hpp"
#include "sim/core/error.hpp"
#include "sim/import/imported.hpp"
#include "sim/import/megatron_args.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool kept = (fleetsim::config::keep_files_in_memory(true), true);
  (void)kept;
  static const std::string scenario_path = fleetsim::config::scenarios_dir() + "/fuzz-imported.yaml";
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> argv;
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string arg = text.substr(start, end - start);
    if (arg.find_first_of(" \t") == std::string::npos) {
      if (!arg.empty()) argv.push_back(arg);
    } else {
      for (const auto& t : fleetsim::importer::split_command_line(arg)) argv.push_back(t);
    }
    start = end + 1;
  }
  std::string yaml;
  try {
    const auto imp = fleetsim::importer::read_megatron_args(argv);
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
