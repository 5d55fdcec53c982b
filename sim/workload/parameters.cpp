#include "sim/workload/parameters.hpp"

namespace fleetsim {
namespace {

double count(const ModelSpec& m, bool active_only) {
  const double h = m.hidden_size, f = m.ffn_hidden_size, V = m.vocab_size;
  const double head_dim = h / m.num_attention_heads;
  const double groups = m.num_query_groups > 0 ? m.num_query_groups : m.num_attention_heads;
  const double attention = h * (h + 2.0 * groups * head_dim) + h * h;
  const double mlp_one = (m.swiglu ? 3.0 : 2.0) * h * f;
  double layers = 0.0;
  for (int i = 0; i < m.num_layers; ++i) {
    const bool moe = m.is_moe() && (i % m.moe_layer_freq == 0);
    double mlp = mlp_one;
    if (moe) mlp = mlp_one * (active_only ? m.moe_router_topk : m.num_experts) + h * m.num_experts;
    layers += attention + mlp + 2.0 * h;
  }
  const double embeddings = V * h * (m.untie_embeddings_and_output_weights ? 2.0 : 1.0);
  return layers + embeddings + h;
}

}  // namespace

double parameter_count(const ModelSpec& m) { return count(m, false); }
double active_parameter_count(const ModelSpec& m) { return count(m, true); }

}  // namespace fleetsim
