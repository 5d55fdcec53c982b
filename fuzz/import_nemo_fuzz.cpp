// libFuzzer harness: `fleetsim import nemo` on bytes (a NeMo 1.x or Megatron-Bridge recipe in
// YAML), then the scenario it prints, loaded back as a scenario file would be. Bad input must end
// in ConfigError or InfeasibleError; any other exception, a crash, a sanitizer report (an integer
// that wraps, say), a hang or a memory blow-up is a finding. The printed scenario, completed
// with the default scenario's cluster, must load or be refused with a ConfigError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/import_round_trip.hpp"
#include "sim/import/nemo_recipe.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  fuzz::import_round_trip([&] { return fleetsim::importer::read_nemo_recipe_text(text, "fuzz-recipe.yaml"); });
  return 0;
}
