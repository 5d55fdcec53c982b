// A NeMo recipe as YAML read into fleetsim's terms. Two layouts are understood:
// - NeMo 1 / NeMo-Framework-Launcher training configs (`trainer:` + `model:`; e.g.
//   launcher_scripts/conf/training/llama/llama3_1_405b.yaml);
// - a Megatron-Bridge ConfigContainer dumped as YAML (`model:`, `train:`, `ddp:`, `optimizer:`,
//   `mixed_precision:`; docs/megatron-lm-to-megatron-bridge.md gives the field names).
#pragma once

#include <string>

#include "sim/import/imported.hpp"

namespace fleetsim::importer {

// Throws ConfigError naming the file and key for unreadable YAML or a value of the wrong type,
// and for a path that is not a regular file of at most kMaxRecipeBytes (a FIFO, device, directory).
[[nodiscard]] Imported read_nemo_recipe(const std::string& path);

// The same from the recipe's text; `path` names it in messages (fuzz/import_nemo_fuzz.cpp).
[[nodiscard]] Imported read_nemo_recipe_text(const std::string& text, const std::string& path);

inline constexpr unsigned kMaxRecipeBytes = 4u << 20;  // as a scenario file

}  // namespace fleetsim::importer
