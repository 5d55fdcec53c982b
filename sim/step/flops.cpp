#include "sim/step/flops.hpp"

#include <algorithm>

namespace fleetsim::step {

bool is_moe_layer(const ModelSpec& m, int layer_index) {
  const int i = layer_index - m.moe_first_dense_layers;
  return m.is_moe() && i >= 0 && (i % std::max(1, m.moe_layer_freq)) == 0;
}

LayerFlops layer_forward_flops(const ModelSpec& m, bool moe_layer) {
  const double s = m.seq_length, h = m.hidden_size;
  const double heads = m.num_attention_heads;
  const double groups = m.num_query_groups > 0 ? m.num_query_groups : heads;
  const double kv = 2.0 * groups * (h / heads);  // K and V projections (grouped-query attention)
  const double f = m.ffn_hidden_size > 0 ? m.ffn_hidden_size : 4.0 * h;
  const double mlp_mats = m.swiglu ? 3.0 : 2.0;  // SwiGLU: gate, up, down; GELU: up, down
  LayerFlops out;
  if (m.is_mla()) {
    // MLA (flops.hpp header): every projection GEMM counted as 2 M N K, the scores with
    // qk_nope + qk_rope per head and the values with v_head_dim, causal half.
    const double H = heads, dqk = m.qk_nope_head_dim + m.qk_rope_head_dim, dv = m.v_head_dim;
    const double ql = m.q_lora_rank, kvl = m.kv_lora_rank;
    const double q = ql > 0 ? h * ql + ql * H * dqk : h * H * dqk;
    const double kv = h * (kvl + m.qk_rope_head_dim) + kvl * H * (m.qk_nope_head_dim + dv);
    out.qkv = Flops(2.0 * s * (q + kv));
    out.attention_core = Flops(2.0 * s * s * H * (dqk + dv) * 0.5);
    out.attention_out = Flops(2.0 * s * H * dv * h);
  } else {
    out.qkv = Flops(2.0 * s * h * (h + kv));
    out.attention_core = Flops(4.0 * s * s * h * 0.5);  // QK^T and AV, causal half (see header)
    out.attention_out = Flops(2.0 * s * h * h);
  }
  double experts = 1.0, width = f;
  if (moe_layer) {
    experts = m.moe_router_topk + m.moe_shared_experts;  // routed + shared, not the padding
    width = m.expert_ffn();
    out.router = Flops(2.0 * s * h * m.num_experts);
  }
  out.mlp = Flops(2.0 * s * h * width * mlp_mats * experts);
  return out;
}

Flops logits_forward_flops(const ModelSpec& m) {
  return Flops(2.0 * m.seq_length * static_cast<double>(m.hidden_size) * m.vocab_size);
}

namespace {
}  // namespace

int moe_layer_count(const ModelSpec& m) {
  if (!m.is_moe()) return 0;
  const int k = std::max(1, m.moe_layer_freq);
  const int n = m.num_layers - m.moe_first_dense_layers;
  return n <= 0 ? 0 : (n + k - 1) / k;  // layers f, f + k, f + 2k, ... after the first dense f
}

Flops mtp_forward_flops(const ModelSpec& m) {
  if (m.mtp_depth <= 0) return Flops(0);
  const double proj = 2.0 * m.seq_length * 2.0 * static_cast<double>(m.hidden_size) * m.hidden_size;
  return Flops(m.mtp_depth * (layer_forward_flops(m, m.is_moe()).forward().si() +
                              logits_forward_flops(m).si() + proj));
}

namespace {
int moe_layers(const ModelSpec& m) { return moe_layer_count(m); }
}  // namespace

Flops model_flops_per_iteration(const WorkloadSpec& w) {
  const ModelSpec& m = w.model;
  const int n_moe = moe_layers(m);
  const double per_seq = logits_forward_flops(m).si() + mtp_forward_flops(m).si() +
                         (m.num_layers - n_moe) * layer_forward_flops(m, false).forward().si() +
                         n_moe * layer_forward_flops(m, true).forward().si();
  return Flops(3.0 * per_seq * w.training.global_batch_size);
}

Flops hardware_flops_per_iteration(const WorkloadSpec& w) {
  const ModelSpec& m = w.model;
  const int n_moe = moe_layers(m);
  const LayerFlops dense = layer_forward_flops(m, false), moe = layer_forward_flops(m, true);
  double recompute = 0.0;
  if (w.parallel.recompute_granularity == Recompute::Full)
    recompute = (m.num_layers - n_moe) * dense.forward().si() + n_moe * moe.forward().si() +
                m.mtp_depth * (m.is_moe() ? moe : dense).forward().si();
  else if (w.parallel.recompute_granularity == Recompute::Selective && m.is_mla()) {
    // DeepSeek-V3's set (stage_costs.cpp): the MLA up-projections of every layer.
    const double H = m.num_attention_heads;
    const double up = 2.0 * m.seq_length *
                      ((m.q_lora_rank > 0 ? m.q_lora_rank * H * (m.qk_nope_head_dim + m.qk_rope_head_dim) : 0.0) +
                       m.kv_lora_rank * H * (m.qk_nope_head_dim + m.v_head_dim));
    recompute = (m.num_layers + m.mtp_depth) * up;
  } else if (w.parallel.recompute_granularity == Recompute::Selective)
    recompute = (m.num_layers - n_moe) * dense.attention_core.si() + n_moe * moe.attention_core.si();
  return model_flops_per_iteration(w) + Flops(recompute * w.training.global_batch_size);
}

Flops megatron_iteration_flops(const ModelSpec& m, int global_batch) {
  const double B = global_batch, s = m.seq_length, l = m.num_layers, h = m.hidden_size,
               V = m.vocab_size;
  return Flops(96.0 * B * s * l * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h)));
}

}  // namespace fleetsim::step
