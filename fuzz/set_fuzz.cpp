// libFuzzer harness: `--set key.path=value` overrides on the default scenario, one per input
// line (at most four), parsed, checked, merged and validated as the command line does.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/load.hpp"
#include "sim/core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> sets;
  for (std::size_t start = 0; start <= text.size() && sets.size() < 4;) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    sets.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  try {
    (void)fleetsim::config::load_scenario("", sets);
  } catch (const fleetsim::ConfigError&) {
  } catch (const fleetsim::InfeasibleError&) {
  }
  return 0;
}
