#include "sim/workload/layout_rules.hpp"

#include <algorithm>

namespace fleetsim {
namespace {

// Grouped-query attention's key/value heads; 0 means one per attention head.
int query_groups(const ModelSpec& m) {
  return m.num_query_groups > 0 ? m.num_query_groups : m.num_attention_heads;
}

}  // namespace

LayoutShape layout_shape(const WorkloadSpec& w, int gpus, int gpus_per_node) {
  const ParallelSpec& p = w.parallel;
  return LayoutShape{.gpus = gpus,
                     .gpus_per_node = gpus_per_node,
                     .tp = p.tensor_model_parallel_size,
                     .pp = p.pipeline_model_parallel_size,
                     .vpp = p.virtual_pipeline_model_parallel_size,
                     .cp = p.context_parallel_size,
                     .ep = p.expert_model_parallel_size,
                     .micro_batch = w.training.micro_batch_size,
                     .global_batch = w.training.global_batch_size,
                     .explicit_split = !p.pipeline_layer_split.empty(),
                     .any_microbatch_count = p.pipeline_schedule == PipelineScheduleKind::Llama3,
                     .microbatch_group = p.microbatch_group_size_per_vp_stage};
}

std::optional<LayoutRule> broken_layout_rule(const ModelSpec& m, const LayoutShape& s) {
  const long long model_parallel = 1LL * s.tp * s.pp * s.cp;
  if (s.gpus % model_parallel != 0) return LayoutRule::ModelParallelDividesGpus;
  const long long dp = s.gpus / model_parallel;
  if (m.num_attention_heads % s.tp != 0) return LayoutRule::TpDividesHeads;
  const int groups = query_groups(m);
  if (groups % s.tp != 0 && s.tp % groups != 0) return LayoutRule::TpAndQueryGroupsDivide;
  if (s.gpus_per_node > 0 && s.tp > s.gpus_per_node && s.tp % s.gpus_per_node != 0)
    return LayoutRule::TpFitsOrTilesNodes;
  // An explicit split may leave a chunk without layers (Llama 3: an embedding-only first chunk,
  // arXiv:2407.21783 §3.3.2); otherwise every chunk needs one.
  if (!s.explicit_split && 1LL * s.pp * s.vpp > m.num_layers) return LayoutRule::ChunksWithinLayers;
  if (s.vpp > 1 && s.pp == 1) return LayoutRule::InterleavingNeedsPipeline;
  const long long per_step = 1LL * s.micro_batch * dp;
  if (s.global_batch % per_step != 0) return LayoutRule::BatchDivides;
  // Narayanan et al. SC'21 Sec. 2.2.2: the interleaved schedule runs microbatches in groups of p.
  // Llama 3's schedule runs any number of microbatches (arXiv:2407.21783 §3.3.2).
  if (s.vpp > 1 && !s.any_microbatch_count && (s.global_batch / per_step) % s.pp != 0)
    return LayoutRule::InterleavedMicrobatchesDivide;
  // N contiguous microbatches per chunk: Megatron-core's schedules.py refuses N outside [PP, M];
  // in this op order N < min(PP, M), or a last partial group of fewer than PP, deadlocks
  // (specs.hpp, PipelineScheduleKind).
  if (s.vpp > 1 && (s.any_microbatch_count || s.microbatch_group > 0)) {
    const long long mb = s.global_batch / per_step;
    const long long n = std::min<long long>(s.microbatch_group > 0 ? s.microbatch_group : s.pp, mb);
    const long long lo = s.any_microbatch_count ? std::min<long long>(s.pp, mb) : s.pp;
    if ((s.microbatch_group > 0 && s.microbatch_group > mb) || n < lo || (mb % n != 0 && mb % n < s.pp))
      return LayoutRule::MicrobatchGroupInRange;
  }
  if (m.seq_length % s.cp != 0) return LayoutRule::CpDividesSequence;
  if (!m.is_moe()) {
    if (s.ep > 1) return LayoutRule::EpNeedsMoe;
  } else {
    if (m.num_experts % s.ep != 0) return LayoutRule::EpDividesExperts;
    if ((dp * s.cp) % s.ep != 0) return LayoutRule::EpDividesDpCp;
  }
  return std::nullopt;
}

std::optional<LayoutProblem> layout_problem(const ModelSpec& m, const LayoutShape& s) {
  const auto rule = broken_layout_rule(m, s);
  if (!rule) return std::nullopt;
  using std::to_string;
  const std::string P = "workload.parallel.";
  const long long model_parallel = 1LL * s.tp * s.pp * s.cp;
  const long long dp = s.gpus / model_parallel;
  const long long per_step = 1LL * s.micro_batch * dp;
  switch (*rule) {
    case LayoutRule::ModelParallelDividesGpus:
      return LayoutProblem{P + "tensor_model_parallel_size",
                           "TP x PP x CP = " + to_string(s.tp) + " x " + to_string(s.pp) + " x " + to_string(s.cp) +
                               " = " + to_string(model_parallel) + " does not divide cluster.gpus = " +
                               to_string(s.gpus)};
    case LayoutRule::TpDividesHeads:
      return LayoutProblem{P + "tensor_model_parallel_size",
                           "num_attention_heads = " + to_string(m.num_attention_heads) +
                               " is not divisible by TP = " + to_string(s.tp)};
    case LayoutRule::TpAndQueryGroupsDivide:
      return LayoutProblem{P + "tensor_model_parallel_size",
                           "num_query_groups = " + to_string(query_groups(m)) + " and TP = " + to_string(s.tp) +
                               " do not divide one another"};
    case LayoutRule::TpFitsOrTilesNodes:
      return LayoutProblem{P + "tensor_model_parallel_size",
                           "TP " + to_string(s.tp) + " neither fits in nor tiles a node of " +
                               to_string(s.gpus_per_node) + " GPUs"};
    case LayoutRule::ChunksWithinLayers:
      return LayoutProblem{P + "pipeline_model_parallel_size",
                           "PP x VPP = " + to_string(1LL * s.pp * s.vpp) + " pipeline chunks exceed the " +
                               to_string(m.num_layers) + " layers of the model"};
    case LayoutRule::InterleavingNeedsPipeline:
      return LayoutProblem{P + "virtual_pipeline_model_parallel_size",
                           "an interleaved schedule needs pipeline_model_parallel_size > 1"};
    case LayoutRule::BatchDivides:
      return LayoutProblem{"workload.training.global_batch_size",
                           to_string(s.global_batch) + " sequences is not divisible by micro_batch_size x DP = " +
                               to_string(s.micro_batch) + " x " + to_string(dp) + " = " + to_string(per_step)};
    case LayoutRule::InterleavedMicrobatchesDivide:
      return LayoutProblem{"workload.training.global_batch_size",
                           "the interleaved schedule needs the " + to_string(s.global_batch / per_step) +
                               " microbatches per replica to be a multiple of PP = " + to_string(s.pp)};
    case LayoutRule::MicrobatchGroupInRange: {
      const long long mb = s.global_batch / per_step;
      const long long lo = s.any_microbatch_count ? std::min<long long>(s.pp, mb) : s.pp;
      return LayoutProblem{P + "microbatch_group_size_per_vp_stage",
                           "N = " + to_string(s.microbatch_group > 0 ? s.microbatch_group : s.pp) +
                               " contiguous microbatches per chunk must lie in [" + to_string(lo) + ", " + to_string(mb) +
                               "] (the microbatches per replica) and leave a last group of 0 or at least PP = " +
                               to_string(s.pp) + " of the " + to_string(mb) + " microbatches; e.g. N = " + to_string(mb)};
    }
    case LayoutRule::CpDividesSequence:
      return LayoutProblem{P + "context_parallel_size",
                           "seq_length = " + to_string(m.seq_length) + " is not divisible by CP = " + to_string(s.cp)};
    case LayoutRule::EpNeedsMoe:
      return LayoutProblem{P + "expert_model_parallel_size",
                           "EP > 1 needs a mixture-of-experts model (num_experts > 1)"};
    case LayoutRule::EpDividesExperts:
      return LayoutProblem{P + "expert_model_parallel_size",
                           "num_experts = " + to_string(m.num_experts) + " is not divisible by EP = " + to_string(s.ep)};
    case LayoutRule::EpDividesDpCp:
      return LayoutProblem{P + "expert_model_parallel_size",
                           "EP = " + to_string(s.ep) + " must divide DP x CP = " + to_string(dp * s.cp)};
  }
  return std::nullopt;  // not reached: every rule has its words above
}

}  // namespace fleetsim
