#include "sim/step/layout.hpp"

#include <algorithm>
#include <string>

#include "sim/core/error.hpp"
#include "sim/workload/layout_rules.hpp"

namespace fleetsim::step {
namespace {

[[noreturn]] void fail(const std::string& key, const std::string& message) {
  throw InfeasibleError(key + ": " + message);
}

void require_positive(int v, const std::string& key) {
  if (v < 1) fail(key, "must be at least 1, got " + std::to_string(v));
}

// Splits `layers` of one pipeline rank into `vpp` chunks. The remainder goes to the middle of the
// model: the first rank's first chunk (which also holds the embedding) and the last rank's last
// chunk (which also holds the logits and the loss) are the ones left lighter, as in Llama 3
// (Sec. 3.3.2: "we reduce one Transformer layer each from the first and the last stages").
void split_rank(int layers, int vpp, int rank, int pp, std::vector<int>& chunk_layers) {
  int base = layers / vpp, rem = layers % vpp;
  for (int v = 0; v < vpp; ++v) {
    bool extra = (rank == 0 && pp > 1) ? (v >= vpp - rem) : (v < rem);
    chunk_layers[static_cast<size_t>(v * pp + rank)] = base + (extra ? 1 : 0);
  }
}

}  // namespace

Layout make_layout(const ClusterSpec& cluster, const WorkloadSpec& w) {
  const ParallelSpec& par = w.parallel;
  const ModelSpec& m = w.model;
  Layout l;
  l.gpus = cluster.gpus;
  l.tp = par.tensor_model_parallel_size;
  l.pp = par.pipeline_model_parallel_size;
  l.vpp = par.virtual_pipeline_model_parallel_size;
  l.cp = par.context_parallel_size;
  l.ep = par.expert_model_parallel_size;
  require_positive(l.gpus, "cluster.gpus");
  require_positive(l.tp, "workload.parallel.tensor_model_parallel_size");
  require_positive(l.pp, "workload.parallel.pipeline_model_parallel_size");
  require_positive(l.vpp, "workload.parallel.virtual_pipeline_model_parallel_size");
  require_positive(l.cp, "workload.parallel.context_parallel_size");
  require_positive(l.ep, "workload.parallel.expert_model_parallel_size");
  require_positive(m.num_layers, "workload.model.num_layers");
  require_positive(m.hidden_size, "workload.model.hidden_size");
  require_positive(m.num_attention_heads, "workload.model.num_attention_heads");
  require_positive(m.seq_length, "workload.model.seq_length");
  require_positive(m.vocab_size, "workload.model.vocab_size");
  require_positive(w.training.micro_batch_size, "workload.training.micro_batch_size");
  require_positive(w.training.global_batch_size, "workload.training.global_batch_size");

  if (const auto problem = layout_problem(m, layout_shape(w, cluster.gpus, cluster.node.gpus_per_node)))
    fail(problem->key, problem->message);
  l.dp = l.gpus / (l.tp * l.pp * l.cp);
  if (m.hidden_size % m.num_attention_heads != 0)
    fail("workload.model.hidden_size", "must be a multiple of num_attention_heads");
  if (m.is_moe() && (m.moe_router_topk < 1 || m.moe_router_topk > m.num_experts))
    fail("workload.model.moe_router_topk", "must be between 1 and num_experts");
  if (w.parallel.pipeline_schedule == PipelineScheduleKind::DualPipe && (l.vpp != 1 || l.pp < 2 || l.pp % 2 != 0))
    fail("workload.parallel.pipeline_schedule", "dualpipe needs an even PP >= 2 and VPP 1");
  l.micro_batch = w.training.micro_batch_size;
  l.global_batch = w.training.global_batch_size;
  l.microbatches = l.global_batch / (l.micro_batch * l.dp);
  // N contiguous microbatches per model chunk (its range is a layout rule, layout_rules.cpp).
  const int n = w.parallel.microbatch_group_size_per_vp_stage;
  l.microbatch_group = std::min(n > 0 ? n : l.pp, l.microbatches);

  // Layers per pipeline rank, then per chunk. An explicit split gives one count per pipeline
  // rank, or one per model chunk in model order (p v entries).
  l.stage_layers.assign(static_cast<size_t>(l.pp), 0);
  l.chunk_layers.assign(static_cast<size_t>(l.pp * l.vpp), 0);
  const auto& split = w.parallel.pipeline_layer_split;
  if (!split.empty()) {
    const int n = static_cast<int>(split.size());
    if (n != l.pp && n != l.pp * l.vpp)
      fail("workload.parallel.pipeline_layer_split",
           "has " + std::to_string(n) + " entries, needs one per pipeline stage (" +
               std::to_string(l.pp) + ") or one per model chunk (" + std::to_string(l.pp * l.vpp) + ")");
    int sum = 0;
    for (int v : split) {
      if (v < 0) fail("workload.parallel.pipeline_layer_split", "layer counts must be >= 0");
      sum += v;
    }
    if (sum != m.num_layers)
      fail("workload.parallel.pipeline_layer_split",
           "sums to " + std::to_string(sum) + " layers, the model has " +
               std::to_string(m.num_layers));
    if (n == l.pp) {
      l.stage_layers = split;
      for (int r = 0; r < l.pp; ++r)
        split_rank(l.stage_layers[static_cast<size_t>(r)], l.vpp, r, l.pp, l.chunk_layers);
    } else {
      l.chunk_layers = split;
      for (int j = 0; j < n; ++j) l.stage_layers[static_cast<size_t>(j % l.pp)] += split[static_cast<size_t>(j)];
    }
  } else {
    if (m.num_layers % (l.pp * l.vpp) != 0)
      fail("workload.parallel.pipeline_model_parallel_size",
           std::to_string(m.num_layers) + " layers do not divide into PP x VPP = " +
               std::to_string(l.pp * l.vpp) +
               " equal chunks; give workload.parallel.pipeline_layer_split");
    for (auto& s : l.stage_layers) s = m.num_layers / l.pp;
    for (auto& c : l.chunk_layers) c = m.num_layers / (l.pp * l.vpp);
  }

  // Group placement (Megatron-core RankGenerator): TP innermost, then CP, then DP and PP in the
  // scenario's order; expert-parallel groups are carved from the innermost DP x CP ranks.
  const std::string& order = w.parallel.rank_order;
  bool dp_inner;
  if (order == "tp-cp-dp-pp" || order == "tp-cp-ep-dp-pp" || order.empty()) dp_inner = true;
  else if (order == "tp-cp-pp-dp" || order == "tp-cp-ep-pp-dp") dp_inner = false;
  else
    fail("workload.parallel.rank_order",
         "'" + order + "' is not supported; use tp-cp-dp-pp (Megatron) or tp-cp-pp-dp (Llama 3)");
  l.tp_group = {l.tp, 1};
  l.cp_group = {l.cp, l.tp};
  l.dp_group = {l.dp, dp_inner ? l.tp * l.cp : l.tp * l.cp * l.pp};
  l.pp_group = {l.pp, dp_inner ? l.tp * l.cp * l.dp : l.tp * l.cp};
  l.ep_group = {l.ep, l.tp};
  return l;
}

}  // namespace fleetsim::step
