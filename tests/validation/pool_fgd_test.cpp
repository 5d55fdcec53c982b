// FGD reproduction (Weng et al., USENIX ATC'23; data: Alibaba cluster-trace-gpu-v2023, openb node
// and default pod lists, data/validation/pool/): pods arrive until their GPU requests reach the
// cluster's capacity; fragmentation-aware placement (FGD) must leave fewer GPUs unallocated than
// best-fit and packing. The paper reports up to 49% fewer unallocated GPUs than its baselines
// (abstract; published_stats.csv "unallocated-GPU reduction by FGD vs packing"), i.e. about 290
// more GPUs allocated on the ~6,200-GPU cluster. Checked: a reduction of at least 10% against each
// baseline (FGD ahead) and at most the paper's 49% plus 10 points (a margin of the paper's size).
#include <catch2/catch.hpp>

#include <cstdio>

#include "sim/core/paths.hpp"
#include "sim/pool/fgd.hpp"

TEST_CASE("FGD leaves fewer openb GPUs unallocated than best-fit and packing, by a margin like the paper's",
          "[validation][pool]") {
  using namespace fleetsim::pool;
  const std::string dir = fleetsim::validation_dir() + "/pool/";
  const auto nodes = read_openb_nodes(dir + "alibaba_v2023_openb_node_list_all_node.csv");
  const auto pods = read_openb_pods(dir + "alibaba_v2023_openb_pod_list_default.csv");
  long long gpus = 0;
  for (const auto& n : nodes) gpus += n.gpus;
  CHECK(nodes.size() == 1523);
  CHECK(gpus == 6212);
  constexpr int kReps = 2;
  double unalloc[3] = {0, 0, 0};
  const FgdPolicy policies[3] = {FgdPolicy::BestFit, FgdPolicy::Packing, FgdPolicy::FragmentationAware};
  std::vector<FgdCurve> first;
  for (int k = 0; k < 3; ++k) {
    for (int r = 0; r < kReps; ++r) {
      const FgdCurve c = replay_openb(nodes, pods, policies[k], 1, r, 0.1);
      unalloc[k] += c.unallocated_at_full / kReps;
      if (r == 0) first.push_back(c);
    }
  }
  std::printf("FGD reproduction: unallocated GPU share vs arrived load (openb default, repetition 0)\n  arrived");
  for (double a : first[0].arrived) std::printf(" %5.2f", a);
  std::printf("\n");
  for (int k = 0; k < 3; ++k) {
    std::printf("  %-20s", fgd_policy_name(policies[k]));
    for (double u : first[k].unallocated) std::printf(" %5.3f", u);
    std::printf("   at 100%%: %.4f (%.0f GPUs, mean of %d)\n", unalloc[k], unalloc[k] * gpus, kReps);
  }
  for (int k = 0; k < 2; ++k) {
    const double reduction = 1.0 - unalloc[2] / unalloc[k];
    std::printf("  FGD vs %-10s: %.1f%% fewer unallocated GPUs (%+.0f GPUs allocated); paper: up to 49%%, +290 GPUs\n",
                fgd_policy_name(policies[k]), 100 * reduction, (unalloc[k] - unalloc[2]) * gpus);
    CHECK(reduction >= 0.10);
    CHECK(reduction <= 0.59);
  }
}
