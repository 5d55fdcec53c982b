// What `fleetsim import` reads from another tool's configuration: the model, the parallel layout
// and the batch, in fleetsim's scenario terms, plus what it could not use. Both importers (a
// Megatron-LM argument list, a NeMo / Megatron-Bridge recipe) fill this, and one writer turns it
// into scenario YAML, so the two agree on every default they assume.
#pragma once

#include <string>
#include <vector>

namespace fleetsim::importer {

struct Imported {
  std::string source;          // what was read ("Megatron-LM pretrain_gpt.py arguments", a file)
  int gpus = 0;                // 0 = not in the configuration (Megatron's world size comes from the launcher)
  // workload.model
  int num_layers = 0, hidden_size = 0, ffn_hidden_size = 0, num_attention_heads = 0;
  int num_query_groups = 0, seq_length = 0, vocab_size = 0;
  bool swiglu = false, untie_embeddings = false;
  int num_experts = 0, moe_router_topk = 0, moe_layer_freq = 1;
  double moe_capacity_factor = 1.0;
  // workload.parallel
  int tp = 1, pp = 1, vpp = 1, cp = 1, ep = 1;
  bool sequence_parallel = false;
  std::string recompute = "none";
  bool distributed_optimizer = false;
  int zero_stage = 0;
  bool overlap_grad_reduce = false, overlap_param_gather = false;
  // workload.training
  int micro_batch_size = 1, global_batch_size = 0;
  std::string precision = "bf16";
  bool flash_attention = false;

  // Reported on stderr, never dropped silently.
  std::vector<std::string> ignored;      // read, no effect on the iteration (learning rate, data paths, ...)
  std::vector<std::string> unsupported;  // understood, not modeled (FP8, ...): what was done instead
  std::vector<std::string> unknown;      // not understood
  std::vector<std::string> assumed;      // defaults taken where the configuration is silent
};

// Megatron's vocabulary padding (megatron/training/tokenizer: _vocab_size_with_padding): the
// tokenizer's size rounded up to a multiple of make_vocab_size_divisible_by x TP. Throws ConfigError
// (naming `source`) when the result does not fit an int (found by fuzz/import_megatron_fuzz.cpp).
[[nodiscard]] int padded_vocab(int vocab, int divisible_by, int tp, const std::string& source = "");

// Megatron's default MLP width (megatron/training/arguments.py): 4h, or with SwiGLU 2/3 of it
// rounded down to a multiple of 64. Throws ConfigError (naming `source`) when 4h does not fit an int.
[[nodiscard]] int default_ffn_hidden_size(int hidden, bool swiglu, const std::string& source = "");

// The scenario YAML (workload: model, parallel, training; cluster.gpus when known) with a header
// saying where it came from and what to complete. Throws ConfigError naming the setting when a
// required value is missing.
[[nodiscard]] std::string scenario_yaml(const Imported& imp);

// The ignored / unsupported / unknown / assumed lists, one line each, for stderr.
[[nodiscard]] std::string import_notes(const Imported& imp);

}  // namespace fleetsim::importer
