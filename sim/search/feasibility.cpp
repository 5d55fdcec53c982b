#include "sim/search/feasibility.hpp"

#include "sim/workload/layout_rules.hpp"

namespace fleetsim::search {

const char* reason_key(Reason r) {
  switch (r) {
    case Reason::ModelParallelNotDividingGpus: return "tp_x_pp_x_cp_does_not_divide_gpus";
    case Reason::TpNotDividingHeads: return "tp_does_not_divide_heads";
    case Reason::TpVsQueryGroups: return "tp_and_query_groups_do_not_divide";
    case Reason::TpSpansNodes: return "tp_does_not_tile_nodes";
    case Reason::CpNotDividingSequence: return "cp_does_not_divide_sequence";
    case Reason::BatchNotDivisible: return "batch_not_divisible_by_micro_batch_x_dp";
    case Reason::InterleavingMicrobatches: return "interleaving_needs_microbatches_multiple_of_pp";
    case Reason::ChunksExceedLayers: return "more_pipeline_chunks_than_layers";
    case Reason::InterleavingWithoutPipeline: return "interleaving_needs_pp_above_1";
    case Reason::ExpertsNotDivisible: return "ep_does_not_divide_experts";
    case Reason::EpNotDividingDpCp: return "ep_does_not_divide_dp_x_cp";
    case Reason::StepModelRejected: return "rejected_by_step_model";
    case Reason::OutOfMemory: return "out_of_memory";
    case Reason::BalancedSplitSameAsEven: return "balanced_split_same_as_default";
    case Reason::Count: break;
  }
  return "unknown";
}

long long RejectionCounts::total() const {
  long long t = 0;
  for (long long c : counts_) t += c;
  return t;
}

std::map<std::string, long long> RejectionCounts::by_key() const {
  std::map<std::string, long long> out;
  for (size_t i = 0; i < counts_.size(); ++i)
    if (counts_[i] > 0) out[reason_key(static_cast<Reason>(i))] = counts_[i];
  return out;
}

std::optional<Reason> check_divisibility(const Scenario& s, const Group& g) {
  const LayoutShape shape{.gpus = s.cluster.gpus,
                          .gpus_per_node = s.cluster.node.gpus_per_node,
                          .tp = g.tp, .pp = g.pp, .vpp = g.vpp, .cp = g.cp, .ep = g.ep,
                          .micro_batch = g.micro_batch,
                          .global_batch = s.workload.training.global_batch_size};
  const auto rule = broken_layout_rule(s.workload.model, shape);
  if (!rule) return std::nullopt;
  switch (*rule) {
    case LayoutRule::ModelParallelDividesGpus: return Reason::ModelParallelNotDividingGpus;
    case LayoutRule::TpDividesHeads: return Reason::TpNotDividingHeads;
    case LayoutRule::TpAndQueryGroupsDivide: return Reason::TpVsQueryGroups;
    case LayoutRule::TpFitsOrTilesNodes: return Reason::TpSpansNodes;
    case LayoutRule::ChunksWithinLayers: return Reason::ChunksExceedLayers;
    case LayoutRule::InterleavingNeedsPipeline: return Reason::InterleavingWithoutPipeline;
    case LayoutRule::BatchDivides: return Reason::BatchNotDivisible;
    case LayoutRule::InterleavedMicrobatchesDivide: return Reason::InterleavingMicrobatches;
    case LayoutRule::MicrobatchGroupInRange: return Reason::InterleavingMicrobatches;
    case LayoutRule::CpDividesSequence: return Reason::CpNotDividingSequence;
    case LayoutRule::EpNeedsMoe: return Reason::ExpertsNotDivisible;
    case LayoutRule::EpDividesExperts: return Reason::ExpertsNotDivisible;
    case LayoutRule::EpDividesDpCp: return Reason::EpNotDividingDpCp;
  }
  return Reason::StepModelRejected;  // not reached: every rule has its reason above
}

Bytes usable_memory(const GpuSpec& gpu) { return gpu.memory - gpu.usable_memory_reserve; }

MemoryPeak peak_memory(const std::vector<step::StageMemory>& stages) {
  MemoryPeak p;
  for (size_t r = 0; r < stages.size(); ++r) {
    const Bytes t = stages[r].total();
    if (r == 0 || t > p.bytes) { p.bytes = t; p.stage = static_cast<int>(r); }
  }
  return p;
}

}  // namespace fleetsim::search
