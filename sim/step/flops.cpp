#include "sim/step/flops.hpp"

#include <algorithm>

namespace fleetsim::step {

bool is_moe_layer(const ModelSpec& m, int layer_index) {
  return m.is_moe() && (layer_index % std::max(1, m.moe_layer_freq)) == 0;
}

LayerFlops layer_forward_flops(const ModelSpec& m, bool moe_layer) {
  const double s = m.seq_length, h = m.hidden_size;
  const double heads = m.num_attention_heads;
  const double groups = m.num_query_groups > 0 ? m.num_query_groups : heads;
  const double kv = 2.0 * groups * (h / heads);  // K and V projections (grouped-query attention)
  const double f = m.ffn_hidden_size > 0 ? m.ffn_hidden_size : 4.0 * h;
  const double mlp_mats = m.swiglu ? 3.0 : 2.0;  // SwiGLU: gate, up, down; GELU: up, down
  LayerFlops out;
  out.qkv = Flops(2.0 * s * h * (h + kv));
  out.attention_core = Flops(4.0 * s * s * h * 0.5);  // QK^T and AV, causal half (see header)
  out.attention_out = Flops(2.0 * s * h * h);
  double experts = 1.0;
  if (moe_layer) {
    experts = m.moe_router_topk;
    out.router = Flops(2.0 * s * h * m.num_experts);
  }
  out.mlp = Flops(2.0 * s * h * f * mlp_mats * experts);
  return out;
}

Flops logits_forward_flops(const ModelSpec& m) {
  return Flops(2.0 * m.seq_length * static_cast<double>(m.hidden_size) * m.vocab_size);
}

namespace {
int moe_layers(const ModelSpec& m) {
  if (!m.is_moe()) return 0;
  const int k = std::max(1, m.moe_layer_freq);
  return (m.num_layers + k - 1) / k;  // layers 0, k, 2k, ...
}
}  // namespace

Flops model_flops_per_iteration(const WorkloadSpec& w) {
  const ModelSpec& m = w.model;
  const int n_moe = moe_layers(m);
  const double per_seq = logits_forward_flops(m).si() +
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
    recompute = (m.num_layers - n_moe) * dense.forward().si() + n_moe * moe.forward().si();
  else if (w.parallel.recompute_granularity == Recompute::Selective)
    recompute = (m.num_layers - n_moe) * dense.attention_core.si() + n_moe * moe.attention_core.si();
  return model_flops_per_iteration(w) + Flops(recompute * w.training.global_batch_size);
}

Flops megatron_iteration_flops(const ModelSpec& m, int global_batch) {
  const double B = global_batch, s = m.seq_length, l = m.num_layers, h = m.hidden_size,
               V = m.vocab_size;
  return Flops(96.0 * B * s * l * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h)));
}

}  // namespace fleetsim::step
