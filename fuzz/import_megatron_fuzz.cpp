// libFuzzer harness: `fleetsim import megatron -- ARGS...` on bytes: one argument per line (as the
// shell passes them; a line with spaces is split as a whole command line is, which the CLI does
// too), then the scenario it prints, loaded back as import_nemo_fuzz does. Bad input must end in
// ConfigError or InfeasibleError; any other exception, a crash, a sanitizer report, a hang or a
// memory blow-up is a finding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/import_round_trip.hpp"
#include "sim/import/megatron_args.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
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
  fuzz::import_round_trip([&] { return fleetsim::importer::read_megatron_args(argv); });
  return 0;
}
