// A Megatron-LM `pretrain_gpt.py` argument list (megatron/training/arguments.py; the 2021 names
// of examples/sc21 too: --DDP-impl, --checkpoint-activations) read into fleetsim's terms.
#pragma once

#include <string>
#include <vector>

#include "sim/import/imported.hpp"

namespace fleetsim::importer {

// `args` as the shell passes them ("--key value", "--key=value", "--flag"). Throws ConfigError
// naming the argument for a value that is not a number or a layout that does not divide.
[[nodiscard]] Imported read_megatron_args(const std::vector<std::string>& args);

// Splits a command line on whitespace (what `$MEGATRON_PARAMS` does unquoted in the SC'21
// scripts); a leading `python ... pretrain_gpt.py` or `torchrun ...` is skipped up to the script.
[[nodiscard]] std::vector<std::string> split_command_line(const std::string& line);

}  // namespace fleetsim::importer
