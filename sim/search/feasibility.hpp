// Feasibility of a candidate before it is timed: the layout divisibility rules
// (sim/workload/layout_rules.hpp, shared with config::check_layout and step::make_layout), and the
// memory fit from the step model's own memory accounting. Every rejection has a reason, counted.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/scenario.hpp"
#include "sim/search/space.hpp"
#include "sim/step/memory.hpp"

namespace fleetsim::search {

enum class Reason {
  ModelParallelNotDividingGpus,  // GPUs % (TP x PP x CP); enumerate_groups leaves these out
  TpNotDividingHeads,            // num_attention_heads % TP
  TpVsQueryGroups,               // query groups and TP do not divide one another
  TpSpansNodes,                  // TP larger than a node and not a multiple of it
  CpNotDividingSequence,         // seq_length % CP
  BatchNotDivisible,             // global batch % (micro-batch x DP)
  InterleavingMicrobatches,      // interleaved schedule: microbatches % PP
  ChunksExceedLayers,            // fewer layers than PP x VPP chunks (one layer per chunk at least)
  InterleavingWithoutPipeline,   // VPP > 1 with PP 1; enumerate_groups leaves these out
  ExpertsNotDivisible,           // num_experts % EP, or EP > 1 for a dense model
  EpNotDividingDpCp,             // (DP x CP) % EP
  StepModelRejected,             // a rule of the step model not mirrored here (message dropped)
  OutOfMemory,                   // the fullest stage exceeds the usable memory
  BalancedSplitSameAsEven,       // the memory-balanced split came out equal to the default one
  Count
};

// The JSON key of a reason ("tp_does_not_divide_heads", "out_of_memory", ...).
[[nodiscard]] const char* reason_key(Reason r);

class RejectionCounts {
 public:
  void add(Reason r, long long n = 1) { counts_[static_cast<size_t>(r)] += n; }
  void merge(const RejectionCounts& o) {
    for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += o.counts_[i];
  }
  [[nodiscard]] long long operator[](Reason r) const { return counts_[static_cast<size_t>(r)]; }
  [[nodiscard]] long long total() const;
  [[nodiscard]] std::map<std::string, long long> by_key() const;  // nonzero only, sorted by key

 private:
  std::array<long long, static_cast<size_t>(Reason::Count)> counts_{};
};

// The first layout rule the group breaks (broken_layout_rule), as a rejection reason.
[[nodiscard]] std::optional<Reason> check_divisibility(const Scenario& s, const Group& g);

// Usable memory per GPU: capacity minus the preset's reserve (CUDA context, fragmentation).
[[nodiscard]] Bytes usable_memory(const GpuSpec& gpu);

// The fullest stage of a per-stage memory vector.
struct MemoryPeak {
  Bytes bytes;
  int stage = 0;
};
[[nodiscard]] MemoryPeak peak_memory(const std::vector<step::StageMemory>& stages);

}  // namespace fleetsim::search
