// FGD reproduction (Weng et al., "Beware of Fragmentation", USENIX ATC'23; data: Alibaba
// cluster-trace-gpu-v2023, openb node and default pod lists, data/validation/pool/): pods arrive
// until their GPU requests reach the cluster's capacity; fragmentation-aware placement (FGD) must
// leave fewer GPUs unallocated than best-fit and packing. The paper reports up to 49% fewer
// unallocated GPUs than its baselines (abstract; published_stats.csv "unallocated-GPU reduction by
// FGD vs packing"), i.e. about 290 more GPUs allocated on the ~6,200-GPU cluster.
// Judged: nothing is fitted; the inputs are the trace's node and pod lists. Checked: a reduction of
// at least 10% against each baseline (FGD ahead) and at most the paper's 49% plus 10 points (a
// margin of the paper's size; 49% is the paper's best case, so the bound is one-sided above).
#include "sim/core/paths.hpp"
#include "sim/reproduce/pool_sources.hpp"

namespace fleetsim::reproduce {

FgdReproduction fgd_reproduction(int repetitions) {
  using namespace fleetsim::pool;
  const std::string dir = validation_dir() + "/pool/";
  const auto nodes = read_openb_nodes(dir + "alibaba_v2023_openb_node_list_all_node.csv");
  const auto pods = read_openb_pods(dir + "alibaba_v2023_openb_pod_list_default.csv");
  FgdReproduction f;
  f.nodes = static_cast<int>(nodes.size());
  for (const auto& n : nodes) f.gpus += n.gpus;
  f.repetitions = repetitions;
  for (int k = 0; k < 3; ++k) {
    for (int r = 0; r < repetitions; ++r) {
      const FgdCurve c = replay_openb(nodes, pods, f.policies[k], 1, r, 0.1);
      f.unallocated[k] += c.unallocated_at_full / repetitions;
      if (r == 0) f.first.push_back(c);
    }
  }
  const char* src = "FGD (Weng et al., ATC'23), Alibaba openb, 6,212 GPUs";
  constexpr double kPaper = 0.49, kMargin = 0.10, kAtLeast = 0.10;
  for (int k = 0; k < 2; ++k) {
    const double reduction = 1.0 - f.unallocated[2] / f.unallocated[k];
    ValidationCase c = make_case(src,
                                 std::string("FGD vs ") + fgd_policy_name(f.policies[k]) + ", " + std::to_string(repetitions) +
                                     " reps; pass 0.10 to 0.59",
                                 "unallocated-GPU reduction", kPaper, reduction, kMargin, true);
    c.pass = reduction >= kAtLeast && reduction <= kPaper + kMargin;
    c.note = "paper: up to 49% fewer unallocated GPUs (its best case); passes when FGD is ahead by "
             "10% up to 49% + 10 points";
    f.cases.push_back(c);
  }
  return f;
}

}  // namespace fleetsim::reproduce
