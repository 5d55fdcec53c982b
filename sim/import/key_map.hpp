// Which recipe key and which Megatron-LM argument sets each workload key of the scenario schema:
// the one table `fleetsim import` is held to. tests/unit/import_keys_test.cpp walks the schema's
// workload keys (workload.model, .parallel, .training) and fails when one is missing here, when a
// row names neither a NeMo key nor a Megatron argument without saying why, or when an importer
// leaves a listed spelling unknown, ignored or "not modeled".
#pragma once

#include <string>
#include <vector>

namespace fleetsim::importer {

// A spelling of the setting in one tool, with a value the importer must turn into a scenario
// different from the one without it, and any other settings that value needs to mean something
// (a GQA group count needs --group-query-attention).
struct KeySpelling {
  std::string key;                   // NeMo: dotted recipe key ("model.ub_tp_comm_overlap"); Megatron: "--tp-comm-overlap"
  std::string example;               // the value; "" for a Megatron flag
  std::vector<std::string> context;  // NeMo: "dotted.key=value"; Megatron: argument tokens
};

struct WorkloadKeyMapping {
  std::string schema_key;              // "parallel.tp_comm_overlap" (under workload.)
  std::vector<KeySpelling> nemo;       // NeMo 1 launcher YAML (model.*), NeMo 2 / Megatron-Bridge
  std::vector<KeySpelling> megatron;   // Megatron-LM pretrain_gpt.py arguments
  std::string no_equivalent;           // why a side (or both) has no spelling; empty when both have one
};

[[nodiscard]] const std::vector<WorkloadKeyMapping>& workload_key_map();

}  // namespace fleetsim::importer
