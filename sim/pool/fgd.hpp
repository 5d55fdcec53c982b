// Replay of the FGD paper's experiment (Weng et al., "Beware of Fragmentation: Scheduling
// GPU-Sharing Workloads with Fragmentation Gradient Descent", USENIX ATC'23, §6): pods sampled from
// the Alibaba 2023 openb pod list arrive one by one on the openb node list, never leave, and are
// placed by a policy (or dropped when none fits) until the arrived GPU requests reach the
// cluster's GPU capacity; the curve is the unallocated share of the GPUs against the arrived load.
// Small (1,523 nodes, ~8,000 pods): every GPU of every node is kept, and FGD evaluates every node.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fleetsim::pool {

struct OpenbNode {
  int cpu_milli = 0;
  long long memory_mib = 0;
  int gpus = 0;
};

struct OpenbPod {
  int cpu_milli = 0;
  long long memory_mib = 0;
  int num_gpu = 0;      // whole GPUs (or 1 with gpu_milli < 1000: a share of one GPU)
  int gpu_milli = 0;    // per GPU, thousandths
  [[nodiscard]] int gpu_request_milli() const { return num_gpu * gpu_milli; }
};

// Readers of the trace's CSV files (cluster-trace-gpu-v2023); errors name file, row and column.
std::vector<OpenbNode> read_openb_nodes(const std::string& path);
std::vector<OpenbPod> read_openb_pods(const std::string& path);

enum class FgdPolicy { BestFit, Packing, FragmentationAware };
const char* fgd_policy_name(FgdPolicy p);

struct FgdCurve {
  std::vector<double> arrived;      // arrived GPU requests / GPU capacity, at each recorded point
  std::vector<double> unallocated;  // free GPU (milli summed) / GPU capacity
  double unallocated_at_full = 0.0; // at arrived = 1
  long long failed_pods = 0;
};

// One replay: pods drawn with replacement (seed, repetition) until arrived >= 1; points recorded
// every `step` of arrived load.
FgdCurve replay_openb(const std::vector<OpenbNode>& nodes, const std::vector<OpenbPod>& pods, FgdPolicy policy,
                      std::uint64_t seed, int repetition, double step = 0.05);

}  // namespace fleetsim::pool
