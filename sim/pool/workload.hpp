// Job streams of the pool: training and development jobs drawn from their distributions (or read
// from a trace), and the replicas inference services need over time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/pool/specs.hpp"

namespace fleetsim::pool {

enum class JobClass : std::uint8_t { Training = 0, Development = 1, Inference = 2 };
inline constexpr int kJobClasses = 3;
const char* class_key(JobClass c);  // "training", "development", "inference"

struct JobSpec {
  double submit = 0.0;      // s since the start
  double duration = 0.0;    // s of run time at the requested size
  int gpus = 1;             // whole GPUs requested (1 for a shared-GPU job)
  std::uint8_t eighths = 0; // > 0: a fraction of one GPU, in eighths
  std::uint8_t priority = 0;  // 0 low, 1 high (training); inference replicas rank above both
  bool elastic = false;
  JobClass cls = JobClass::Training;
  float straggler_waste = 0.0f;  // 1 - 1 / S of its straggler slowdown S (sim/pool/stragglers.hpp)
  bool straggler_counted = false;  // in the straggler shares (large enough, after the warm-up)
};

// Training and development jobs submitted in [0, horizon), sorted by submission time. Sizes above
// one node are rounded up to whole nodes. `file` names the scenario in trace errors; a trace job
// larger than `pool_gpus` is an error naming its row.
std::vector<JobSpec> generate_jobs(const PoolSpec& spec, int gpus_per_node, int pool_gpus, double horizon,
                                   std::uint64_t seed, int replication, const std::string& file);

// Replicas a service of `g` needs at time t (s since a Monday 00:00): ceil(peak x shape(t)).
int replicas_needed(const InferenceGroup& g, double t);

// Share of requests of g whole GPUs (index g, 1..gpus_per_node) among jobs that fit one node: the
// workload distribution fragmentation-aware placement measures fragmentation against.
std::vector<double> single_node_request_shares(const std::vector<JobSpec>& jobs, int gpus_per_node);

}  // namespace fleetsim::pool
