// The parallel layout of one training job, derived once from the cluster and the workload:
// group sizes, microbatches, which layers each pipeline chunk holds, and where each
// communication group lies in the rank space (for the topology-aware collective costs).
#pragma once

#include <vector>

#include "sim/scenario.hpp"

namespace fleetsim::step {

// Where a communication group's members sit: `size` ranks, `stride` apart in the global rank
// order (Megatron-core RankGenerator: the first dimension of the order is innermost).
struct GroupPlacement {
  int size = 1;
  int stride = 1;
};

struct Layout {
  int gpus = 0;
  int tp = 1, pp = 1, vpp = 1, cp = 1, ep = 1, dp = 1;
  int micro_batch = 1;        // sequences per microbatch
  int microbatches = 1;       // per data-parallel replica per iteration
  int microbatch_group = 1;   // N: contiguous microbatches per model chunk (interleaved schedule)
  int global_batch = 1;       // sequences per iteration
  std::vector<int> stage_layers;  // transformer layers on each pipeline rank
  std::vector<int> chunk_layers;  // layers of model chunk j (j = v * pp + rank), pp * vpp entries
  GroupPlacement tp_group, cp_group, dp_group, pp_group, ep_group;

  [[nodiscard]] int chunks() const { return pp * vpp; }
  [[nodiscard]] int rank_of_chunk(int j) const { return j % pp; }
};

// Checks that the layout divides the cluster, the model and the batch; throws InfeasibleError
// naming the key and what would be valid.
Layout make_layout(const ClusterSpec& cluster, const WorkloadSpec& workload);

}  // namespace fleetsim::step
