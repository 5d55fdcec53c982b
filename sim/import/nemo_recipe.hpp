// A NeMo recipe as YAML read into fleetsim's terms. Two layouts are understood:
// - NeMo 1 / NeMo-Framework-Launcher training configs (`trainer:` + `model:`; e.g.
//   launcher_scripts/conf/training/llama/llama3_1_405b.yaml);
// - a Megatron-Bridge ConfigContainer dumped as YAML (`model:`, `train:`, `ddp:`, `optimizer:`,
//   `mixed_precision:`; docs/megatron-lm-to-megatron-bridge.md gives the field names).
#pragma once

#include <string>

#include "sim/import/imported.hpp"

namespace fleetsim::importer {

// Throws ConfigError naming the file and key for unreadable YAML or a value of the wrong type.
[[nodiscard]] Imported read_nemo_recipe(const std::string& path);

}  // namespace fleetsim::importer
