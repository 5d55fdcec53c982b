// FLOP accounting per op, for MFU (model FLOPs) and HFU (hardware FLOPs incl. recomputation).
//
// Conventions:
// - A GEMM of (M x K) * (K x N) is 2 M N K FLOPs; the backward pass of a GEMM is twice its
//   forward (input and weight gradients), so a training step is 3x the forward.
// - Attention scores (QK^T) and the attention-weighted values (AV) count the causal half of the
//   s x s matrix: 2 * 2 * s^2 * h / 2 per sequence and layer forward, the work a causal language
//   model needs (and what causal flash-attention kernels do; Dao 2023, FlashAttention-2, whose
//   benchmarks count causal attention as half). Megatron-LM's eq. 3 (Narayanan et al. SC'21)
//   and PaLM's App. B (12 L H Q T) count the full square; `megatron_iteration_flops` keeps that
//   convention for reproducing the SC'21 table. At 8K tokens the two differ by ~4% for Llama 3
//   405B, at 128K by ~40%.
// - Model FLOPs exclude recomputation; hardware FLOPs add the recomputed forward passes
//   (full: the whole layer; selective: the attention core, Korthikanti et al. 2022 Sec. 5).
// - Norms, activations, softmax and the optimizer are not counted (negligible, memory-bound).
// - MoE: the top-k routed experts and the shared experts per token (moe_ffn_hidden_size wide),
//   and the router GEMM; not the capacity padding nor the load imbalance.
// - MLA (DeepSeek-V2/V3): the Q down/up, KV down/up and output projections as GEMMs, the scores
//   with qk_nope + qk_rope per head and the values with v_head_dim (causal half).
// - MTP: its layer, projection and output head, forward and backward (mtp_forward_flops).
// MFU = model FLOPs per iteration / (iteration time * GPUs * dense 16-bit peak) (PaLM App. B);
// HFU = the same with hardware FLOPs.
#pragma once

#include "sim/workload/specs.hpp"
#include "sim/units/quantity.hpp"

namespace fleetsim::step {

struct LayerFlops {
  Flops qkv, attention_core, attention_out, mlp, router;  // forward, one sequence, whole layer
  [[nodiscard]] Flops forward() const { return qkv + attention_core + attention_out + mlp + router; }
};

// One transformer layer's forward FLOPs for one sequence of seq_length tokens (all TP ranks).
// MoE layers count moe_router_topk experts per token (not the capacity padding).
[[nodiscard]] LayerFlops layer_forward_flops(const ModelSpec& m, bool moe_layer);
// Logits GEMM forward FLOPs for one sequence: 2 s h V.
[[nodiscard]] Flops logits_forward_flops(const ModelSpec& m);

// Model FLOPs of one iteration (all GPUs): 3 x forward of every layer and the logits.
[[nodiscard]] Flops model_flops_per_iteration(const WorkloadSpec& w);
// Hardware FLOPs of one iteration: model FLOPs plus the recomputed forward passes.
[[nodiscard]] Flops hardware_flops_per_iteration(const WorkloadSpec& w);

// Narayanan et al. SC'21 eq. 3: F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h)), GPT with 4h MLP,
// full recomputation counted (4 passes). Used to report the paper's "achieved TFLOP/s".
[[nodiscard]] Flops megatron_iteration_flops(const ModelSpec& m, int global_batch);

[[nodiscard]] bool is_moe_layer(const ModelSpec& m, int layer_index);
[[nodiscard]] int moe_layer_count(const ModelSpec& m);

// Multi-token prediction (DeepSeek-V3 §2.2), counted in model FLOPs: it is training work the
// objective asks for. Per module and sequence forward: one transformer layer (MoE when the model
// is), the 2h -> h projection, the shared output head.
[[nodiscard]] Flops mtp_forward_flops(const ModelSpec& m);

}  // namespace fleetsim::step
