#include "sim/search/feasibility.hpp"

namespace fleetsim::search {

const char* reason_key(Reason r) {
  switch (r) {
    case Reason::TpNotDividingHeads: return "tp_does_not_divide_heads";
    case Reason::TpVsQueryGroups: return "tp_and_query_groups_do_not_divide";
    case Reason::TpSpansNodes: return "tp_does_not_tile_nodes";
    case Reason::CpNotDividingSequence: return "cp_does_not_divide_sequence";
    case Reason::BatchNotDivisible: return "batch_not_divisible_by_micro_batch_x_dp";
    case Reason::InterleavingMicrobatches: return "interleaving_needs_microbatches_multiple_of_pp";
    case Reason::ChunksExceedLayers: return "more_pipeline_chunks_than_layers";
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
  const ModelSpec& m = s.workload.model;
  const int gpus = s.cluster.gpus;
  const int dp = gpus / (g.tp * g.cp * g.pp);
  const int groups = m.num_query_groups > 0 ? m.num_query_groups : m.num_attention_heads;
  if (m.num_attention_heads % g.tp != 0) return Reason::TpNotDividingHeads;
  if (groups % g.tp != 0 && g.tp % groups != 0) return Reason::TpVsQueryGroups;
  const int node = s.cluster.node.gpus_per_node;
  if (node > 0 && g.tp > node && g.tp % node != 0) return Reason::TpSpansNodes;
  if (m.num_layers / g.pp < g.vpp) return Reason::ChunksExceedLayers;
  const long long per_step = 1LL * g.micro_batch * dp;
  if (s.workload.training.global_batch_size % per_step != 0) return Reason::BatchNotDivisible;
  const long long microbatches = s.workload.training.global_batch_size / per_step;
  if (g.vpp > 1 && microbatches % g.pp != 0) return Reason::InterleavingMicrobatches;
  if (m.seq_length % g.cp != 0) return Reason::CpNotDividingSequence;
  if (m.is_moe()) {
    if (m.num_experts % g.ep != 0) return Reason::ExpertsNotDivisible;
    if ((1LL * dp * g.cp) % g.ep != 0) return Reason::EpNotDividingDpCp;
  } else if (g.ep != 1) {
    return Reason::ExpertsNotDivisible;
  }
  return std::nullopt;
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
