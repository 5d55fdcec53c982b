// Resolved workload: the model architecture, the parallel layout and the batch.
//
// Key names follow Megatron-LM's arguments (DESIGN.md §5) so users recognize them.
#pragma once

#include <string>
#include <vector>

#include "sim/units/quantity.hpp"

namespace fleetsim {

struct ModelSpec {
  std::string name;
  int num_layers = 0;
  int hidden_size = 0;
  int ffn_hidden_size = 0;             // per expert for MoE
  int num_attention_heads = 0;
  int num_query_groups = 0;            // = heads without grouped-query attention
  int seq_length = 0;
  int vocab_size = 0;
  bool swiglu = false;                 // SwiGLU MLP (3 matrices) instead of GELU (2)
  bool untie_embeddings_and_output_weights = true;
  int num_experts = 0;                 // 0 = dense
  int moe_router_topk = 0;
  double moe_capacity_factor = 1.0;
  int moe_layer_freq = 1;              // every k-th layer is MoE
  [[nodiscard]] bool is_moe() const { return num_experts > 1; }
};

enum class Recompute { None, Selective, Full };

struct ParallelSpec {
  int tensor_model_parallel_size = 1;
  int pipeline_model_parallel_size = 1;
  int virtual_pipeline_model_parallel_size = 1;  // model chunks per pipeline rank (interleaving)
  int context_parallel_size = 1;
  int expert_model_parallel_size = 1;
  int data_parallel_size = 1;                    // derived: gpus / (tp * pp * cp)
  bool sequence_parallel = false;
  Recompute recompute_granularity = Recompute::None;
  bool use_distributed_optimizer = false;        // ZeRO-1: optimizer states sharded over DP
  int zero_stage = 0;                            // 0..3; 1 = distributed optimizer, 3 = FSDP
  bool overlap_grad_reduce = true;               // bucketed overlap of DP reduce with backward
  bool overlap_param_gather = true;
  bool fsdp_reshard_after_forward = true;        // ZeRO-3: re-gather weights for the backward too
  // Overlap is not free (sim/step/overlap.hpp): SMs a data-parallel NCCL collective holds while
  // it overlaps compute, whether that and its HBM traffic slow the overlapped kernels, and how
  // many ops ahead ZeRO-3 may prefetch a chunk's weights (0 = unlimited).
  int dp_comm_sms = 20;
  bool overlap_sm_contention = true;
  bool overlap_hbm_contention = true;
  int fsdp_prefetch_ops = 1;
  // The ZeRO stage in effect: the distributed optimizer is ZeRO-1.
  [[nodiscard]] int effective_zero_stage() const { return zero_stage > 0 ? zero_stage : (use_distributed_optimizer ? 1 : 0); }
  std::vector<int> pipeline_layer_split;         // layers per pipeline stage; empty = even
  // Rank order, innermost first (Megatron-core RankGenerator `order`): "tp-cp-dp-pp" (Megatron
  // default) or "tp-cp-pp-dp" (Llama 3, Sec. 3.3.2: DP outermost). Decides which GPUs a group spans.
  std::string rank_order = "tp-cp-dp-pp";
};

// Mixed-precision regime. bf16: Megatron-LM forces `accumulate_allreduce_grads_in_fp32` (fp32
// gradient accumulation and reduction; Llama 3 does the same, arXiv:2407.21783 §3.3.2), no loss
// scaling. fp16 (Megatron SC'21, Megatron-DeepSpeed): 16-bit gradients reduced in 16 bits, then
// copied to fp32 main gradients and unscaled with an inf/NaN check (dynamic loss scaling).
enum class Precision { Bf16, Fp16 };

struct TrainingSpec {
  int micro_batch_size = 1;                      // sequences
  int global_batch_size = 1;                     // sequences
  Tokens train_tokens;                           // 0 = train until run.duration ends
  int bytes_per_param = 2;                       // BF16 weights in compute
  bool use_flash_attn = true;                    // fused (flash) attention; false = unfused
                                                 // softmax over the s x s scores (Megatron 2021)
  Precision precision = Precision::Bf16;
  // Bytes of one gradient element as accumulated over microbatches and reduced over DP.
  [[nodiscard]] double grad_bytes() const { return precision == Precision::Bf16 ? 4.0 : 2.0; }
};

struct WorkloadSpec {
  ModelSpec model;
  ParallelSpec parallel;
  TrainingSpec training;
};

}  // namespace fleetsim
