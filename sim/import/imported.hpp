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
  bool dropout = true;         // hidden dropout > 0 (Megatron's and NeMo's default 0.1)
  int num_experts = 0, moe_router_topk = 0, moe_layer_freq = 1;
  double moe_capacity_factor = 1.0;
  int moe_ffn_hidden_size = 0, moe_shared_experts = 0, moe_router_max_nodes = 0, mtp_depth = 0;
  // Multi-head latent attention (0 = none).
  int q_lora_rank = 0, kv_lora_rank = 0, qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;
  // workload.parallel
  int tp = 1, pp = 1, vpp = 1, cp = 1, ep = 1;
  int microbatch_group_size = 0;  // 0 = PP
  bool sequence_parallel = false;
  std::string recompute = "none";
  bool distributed_optimizer = false;
  int zero_stage = 0;
  bool overlap_grad_reduce = false, overlap_param_gather = false;
  bool tp_comm_overlap = false, overlap_p2p_comm = false;
  // TE userbuffers settings read from tp_comm_overlap_cfg (nemo_userbuffers.hpp); `tp_overlap_cfg`
  // false: none given, the scenario's defaults (NeMo's Llama 3 70B TP 4 config) apply.
  bool tp_overlap_cfg = false;
  std::string tp_overlap_rs_method = "pipeline";
  std::vector<int> tp_overlap_rs_sms, tp_overlap_bulk_sms;
  bool tp_overlap_aggregate = false, tp_overlap_rs_fp8_buf = false;
  int cpu_offloading_num_layers = 0;  // activation offloading (Megatron-core cpu_offloading)
  std::string rank_order;      // "" = the schema's default (Megatron's tp-cp-dp-pp)
  // Uneven pipeline split: layers on the first / last stage (0 = even), and Megatron-core's
  // account_for_embedding / account_for_loss_in_pipeline_split (the embedding / loss as a layer).
  int first_stage_layers = 0, last_stage_layers = 0;
  bool embedding_as_layer = false, loss_as_layer = false;
  // workload.training
  int micro_batch_size = 1, global_batch_size = 0;
  double train_tokens = 0;     // 0 = not stated
  std::string precision = "bf16";
  std::string fp8_recipe;      // "" = the schema's default (delayed)
  bool flash_attention = false;
  bool gradient_accumulation_fusion = false;
  bool grad_reduce_in_fp32 = true, fp8_param_gather = false;

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

// The pipeline split the uneven-split fields ask for, as workload.parallel.pipeline_layer_split
// (per stage, or per model chunk with VPP > 1); empty = even. Throws ConfigError when it cannot be
// laid out (the layers left do not divide over the middle stages).
[[nodiscard]] std::vector<int> pipeline_layer_split(const Imported& imp);

// The scenario YAML (workload: model, parallel, training; cluster.gpus when known) with a header
// saying where it came from and what to complete. Throws ConfigError naming the setting when a
// required value is missing.
[[nodiscard]] std::string scenario_yaml(const Imported& imp);

// The ignored / unsupported / unknown / assumed lists, one line each, for stderr.
[[nodiscard]] std::string import_notes(const Imported& imp);

}  // namespace fleetsim::importer
