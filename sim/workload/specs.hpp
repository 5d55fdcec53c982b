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
  bool dropout = true;                 // hidden dropout on: each layer stores two dropout masks
                                       // (Korthikanti et al. 2022); Llama trains without dropout
  int num_experts = 0;                 // 0 = dense
  int moe_router_topk = 0;
  double moe_capacity_factor = 1.0;
  int moe_layer_freq = 1;              // every k-th layer is MoE
  // DeepSeek-V3 (arXiv:2412.19437 §2, config.json; sim/step/moe.hpp): fine-grained experts of
  // their own width, shared experts every token passes, the first layers dense, node-limited
  // routing, the routed-token distribution over experts, multi-token prediction.
  int moe_ffn_hidden_size = 0;         // routed and shared expert width; 0 = ffn_hidden_size
  int moe_shared_experts = 0;          // shared experts per MoE layer (each moe_ffn_hidden_size wide)
  int moe_first_dense_layers = 0;      // the first k layers are dense (ffn_hidden_size)
  int moe_router_max_nodes = 0;        // node-limited routing: nodes a token may reach (0 = any)
  std::string moe_token_distribution = "balanced";  // balanced | zipf (tokens per expert)
  double moe_zipf_exponent = 1.0;      // skew of the zipf distribution (expert i gets ~ 1/i^s)
  int mtp_depth = 0;                   // multi-token prediction modules (one layer + head each)
  // Multi-head latent attention (DeepSeek-V2/V3): low-rank Q and joint KV compression.
  int q_lora_rank = 0;                 // 0 = Q projected directly
  int kv_lora_rank = 0;                // > 0 turns MLA on
  int qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;
  [[nodiscard]] bool is_moe() const { return num_experts > 1; }
  [[nodiscard]] bool is_mla() const { return kv_lora_rank > 0; }
  [[nodiscard]] int expert_ffn() const { return moe_ffn_hidden_size > 0 ? moe_ffn_hidden_size : ffn_hidden_size; }
};

enum class Recompute { None, Selective, Full };

// Pipeline schedule family (with interleaving, VPP > 1):
// - megatron: Megatron-core's interleaved 1F1B; microbatches run in groups of N contiguous ones per
//   model chunk, N = microbatch_group_size_per_vp_stage in [PP, M] (default PP; Narayanan et al.
//   SC'21 Sec. 2.2.2 has N = PP), and M must be a multiple of PP;
// - llama3: Llama 3's modified interleaved schedule (arXiv:2407.21783 §3.3.2, Fig. 6): any number
//   of microbatches M, N tunable ("a sweet spot between DFS and BFS"). In this op order N must be
//   at least min(PP, M), and a last, partial group must hold 0 or at least PP microbatches:
//   otherwise a rank waits on a forward that is queued behind its own backward (deadlock; checked
//   exhaustively for PP <= 16, VPP <= 8, M < 40 in tests/unit/step_schedule_test.cpp).
// - dualpipe: DeepSeek-V3's bidirectional schedule (arXiv:2412.19437 §3.2.1, Table 2; VPP 1, even
//   PP): each rank holds two stages (two copies of parameters), runs pairs of forward and backward
//   chunks of different microbatches together so each one's all-to-all hides behind the other's
//   compute; timed in closed form by sim/step/dualpipe.hpp.
enum class PipelineScheduleKind { Megatron, Llama3, DualPipe };

// How Transformer Engine overlaps a forward reduce-scatter with its GEMM (NeMo userbuffers
// configs; sim/step/tp_overlap.hpp): pipelined on SMs (PipelineOverlapCfg) or ring exchange
// through the copy engine (RingExchangeOverlapCfg).
enum class TpOverlapMethod { Pipeline, RingExchange };

struct ParallelSpec {
  int tensor_model_parallel_size = 1;
  int pipeline_model_parallel_size = 1;
  int virtual_pipeline_model_parallel_size = 1;  // model chunks per pipeline rank (interleaving)
  PipelineScheduleKind pipeline_schedule = PipelineScheduleKind::Megatron;
  int microbatch_group_size_per_vp_stage = 0;    // N contiguous microbatches per chunk; 0 = PP
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
  // Activation offloading (Megatron-core TransformerConfig.cpu_offloading with
  // cpu_offloading_num_layers, activations only): the saved activations of this many layers of each
  // pipeline chunk are copied to host memory after their forward and back before their backward,
  // on a side stream (Grace-Blackwell: NVLink-C2C). Memory only: the copies are taken as hidden
  // behind compute (sim/step/README.md, "Megatron-Bridge").
  int cpu_offloading_num_layers = 0;
  // SMs the expert-parallel dispatch / combine kernels hold while they overlap compute
  // (DeepSeek-V3 §3.2.2: 20 of 132 on H800); compute overlapped with them runs on the rest.
  int ep_comm_sms = 20;
  bool tp_comm_overlap = false;                  // TE userbuffers: TP all-gather / reduce-scatter
                                                 // pipelined with the adjacent GEMM (needs SP)
  // TE userbuffers per-op settings (NeMo tp_comm_overlap_cfg; defaults: NeMo's
  // userbuffers_bf16_h100_h8192_tp4_mbs1_seqlen8192, Llama 3 70B TP 4): the forward
  // reduce-scatters' method and SMs (attention output, FC2), the bulk overlaps' SMs (QKV dgrad,
  // QKV wgrad, FC1 dgrad, FC1 wgrad), two chunks per ring step (`aggregate`), the pipelined
  // reduce-scatter's FP8 output buffer and its splits (sim/step/tp_overlap.hpp).
  TpOverlapMethod tp_comm_overlap_rs_method = TpOverlapMethod::Pipeline;
  std::vector<int> tp_comm_overlap_rs_sms = {24, 16};
  std::vector<int> tp_comm_overlap_bulk_sms = {4, 24, 2, 4};
  bool tp_comm_overlap_aggregate = false;
  bool tp_comm_overlap_rs_fp8_buf = true;
  int tp_comm_overlap_splits = 4;
  bool overlap_p2p_comm = false;                 // asynchronous pipeline sends (Megatron-core
                                                 // overlap_p2p_comm; Llama 3 §3.3.2)
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
// fp8 (NVIDIA Transformer Engine under Megatron-core / NeMo): the linear layers' GEMMs (QKV,
// attention output, MLP, experts; forward, input-gradient and weight-gradient) run in FP8 at the
// GPU's FP8 peak; attention, norms, router, embedding, logits and the loss stay in BF16; master
// weights, gradients and the optimizer as under bf16 (sim/step/fp8.hpp).
enum class Precision { Bf16, Fp16, Fp8 };

// How Transformer Engine scales FP8 tensors (transformer_engine.common.recipe):
// - delayed: DelayedScaling, one scale per tensor from an amax history of earlier iterations
//   (TE default; NeMo 24.07's H100 tables);
// - current: Float8CurrentScaling, one scale per tensor from the tensor itself (an extra amax
//   pass before every cast; Megatron-Bridge 25.11 "FP8-CS");
// - mxfp8: MXFP8BlockScaling, one E8M0 scale per 32 elements computed inside the cast (Blackwell
//   tensor cores consume the scales; Megatron-Bridge "MXFP8" / "FP8-MX");
// - blockwise: Float8BlockScaling, DeepSeek-V3's fine-grained scheme (arXiv:2412.19437 §3.3.2):
//   one FP32 scale per 1 x 128 tile of activations and gradients and per 128 x 128 block of
//   weights, computed inside the cast; on Hopper the GEMM applies the scales per 128-wide K
//   slice (promotion to FP32 on CUDA cores), so it runs below the per-tensor FP8 GEMM, by the
//   GPU's fp8_blockwise_gemm_ratio (Megatron-Bridge 25.09's H100 "alternate granularity").
enum class Fp8Recipe { Delayed, Current, Mxfp8, Blockwise };

struct TrainingSpec {
  int micro_batch_size = 1;                      // sequences
  int global_batch_size = 1;                     // sequences
  Tokens train_tokens;                           // 0 = train until run.duration ends
  int bytes_per_param = 2;                       // BF16 weights in compute
  bool use_flash_attn = true;                    // fused (flash) attention; false = unfused
                                                 // softmax over the s x s scores (Megatron 2021)
  Precision precision = Precision::Bf16;
  Fp8Recipe fp8_recipe = Fp8Recipe::Delayed;     // used when precision is fp8
  bool gradient_accumulation_fusion = false;     // wgrad GEMM accumulates into the fp32 main
                                                 // gradient (Megatron-core, NeMo); false: a
                                                 // separate add per microbatch (Megatron 2021)
  // Main gradients in fp32 (Megatron-core DistributedDataParallelConfig.grad_reduce_in_fp32; NeMo's
  // MegatronMixedPrecision plugin sets it on the DDP config). NeMo 25.02's performance recipes
  // (llama3_8b / llama3_70b / llama31_405b pretrain_performance_optimizations) turn it off: the
  // gradient buffer, its accumulation and its reduce-scatter are then BF16.
  bool grad_reduce_in_fp32 = true;
  // FP8 weights (TE fp8_model_init; Megatron-core fp8_param_gather, NeMo's bf16_with_fp8_mixed
  // and NeMo 1's fp8_params): the linear layers' weights exist only as FP8 tensors (plus the
  // transpose), the fp32 main weights stay in the (distributed) optimizer. Memory only: the
  // parameter all-gather at 1 B per linear weight is not timed separately (it overlaps). No
  // effect unless precision is fp8 (NeMo's DtypeConfig defaults it to true for every precision).
  bool fp8_param_gather = false;
  // Bytes of one gradient element as accumulated over microbatches and reduced over DP (fp32
  // under bf16 and fp8 unless grad_reduce_in_fp32 is off; 16 bits under fp16).
  [[nodiscard]] double grad_bytes() const {
    return precision == Precision::Fp16 || !grad_reduce_in_fp32 ? 2.0 : 4.0;
  }
};

struct WorkloadSpec {
  ModelSpec model;
  ParallelSpec parallel;
  TrainingSpec training;
};

}  // namespace fleetsim
