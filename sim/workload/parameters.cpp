#include "sim/workload/parameters.hpp"

namespace fleetsim {
namespace {

double count(const ModelSpec& m, bool active_only) {
  const double h = m.hidden_size, f = m.ffn_hidden_size, V = m.vocab_size;
  const double head_dim = h / m.num_attention_heads;
  const double groups = m.num_query_groups > 0 ? m.num_query_groups : m.num_attention_heads;
  double attention = h * (h + 2.0 * groups * head_dim) + h * h;
  if (m.is_mla()) {
    // MLA (DeepSeek-V2 §2.1): Q down/up (or direct), KV down (+ shared rotary key) and up, output,
    // and the two latent norms.
    const double H = m.num_attention_heads, dqk = m.qk_nope_head_dim + m.qk_rope_head_dim;
    const double ql = m.q_lora_rank, kvl = m.kv_lora_rank;
    attention = (ql > 0 ? h * ql + ql * H * dqk + ql : h * H * dqk) +
                h * (kvl + m.qk_rope_head_dim) + kvl * H * (m.qk_nope_head_dim + m.v_head_dim) + kvl +
                H * m.v_head_dim * h;
  }
  const double mlp_one = (m.swiglu ? 3.0 : 2.0) * h * f;
  const double expert_one = (m.swiglu ? 3.0 : 2.0) * h * m.expert_ffn();
  auto moe_mlp = [&] {
    return expert_one * ((active_only ? m.moe_router_topk : m.num_experts) + m.moe_shared_experts) +
           h * m.num_experts;
  };
  double layers = 0.0;
  for (int i = 0; i < m.num_layers; ++i) {
    const int j = i - m.moe_first_dense_layers;
    const bool moe = m.is_moe() && j >= 0 && (j % m.moe_layer_freq == 0);
    layers += attention + (moe ? moe_mlp() : mlp_one) + 2.0 * h;
  }
  const double embeddings = V * h * (m.untie_embeddings_and_output_weights ? 2.0 : 1.0);
  return layers + embeddings + h;
}

}  // namespace

double parameter_count(const ModelSpec& m) { return count(m, false); }
double active_parameter_count(const ModelSpec& m) { return count(m, true); }

double mtp_parameter_count(const ModelSpec& m) {
  if (m.mtp_depth <= 0) return 0.0;
  // One layer like the main model's last (attention + MoE), the 2h -> h projection and three
  // norms per module; embedding and output head are shared (DeepSeek-V3 §2.2).
  ModelSpec one = m;
  one.num_layers = 1;
  one.moe_first_dense_layers = 0;
  one.vocab_size = 0;
  const double h = m.hidden_size;
  return m.mtp_depth * (count(one, false) - h + 2.0 * h * h + 3.0 * h);
}

}  // namespace fleetsim
