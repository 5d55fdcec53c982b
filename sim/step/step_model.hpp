// The analytical iteration model (DESIGN.md §2, "analytical tier"): the time of one training
// iteration, its breakdown, MFU/HFU and memory per GPU, from closed-form per-op costs and an
// explicit pipeline schedule. Microseconds per evaluation; the run model memoizes it per
// cluster state (StepOptions).
#pragma once

#include <string>
#include <vector>

#include "sim/scenario.hpp"
#include "sim/step/memory.hpp"
#include "sim/units/quantity.hpp"

namespace fleetsim {

class Report;
namespace step { struct StepCapture; }

struct StepOptions {                   // degraded cluster states, used by the run model (memoized per state)
  double compute_slowdown = 1.0;       // slowest rank's compute time multiplier (stragglers, thermal throttling)
  double fabric_bandwidth_scale = 1.0; // achievable fabric bandwidth multiplier (degraded links)
  step::StepCapture* capture = nullptr; // when set, evaluate_step keeps its schedule there (trace.hpp)
};

struct StepBreakdown {  // seconds per iteration on the critical path; plus overlapped amounts
  Seconds compute, tp_comm, pp_comm, dp_comm, cp_comm, ep_comm, bubble, optimizer;
  Seconds exposed_comm, overlapped_comm;
  // Overlap is not free (sim/step/overlap.hpp): compute time added by collectives running
  // concurrently with it; and, of dp_comm, the next iteration's forward stalled on parameter
  // all-gathers and the ZeRO-3 gathers the prefetch depth left exposed.
  Seconds overlap_contention, gather_stall, prefetch_exposed;
  // DualPipe (sim/step/dualpipe.hpp): expert-parallel all-to-all hidden behind the paired chunk's
  // compute, and the compute time the SMs held by the communication kernels add (in `compute`).
  Seconds ep_hidden, ep_sm_partition;
};

struct StepResult {
  Seconds iteration_time;
  double mfu = 0, hfu = 0;
  FlopsPerSecond model_flops_per_gpu, hardware_flops_per_gpu;
  Bytes memory_per_gpu;  bool fits_in_memory = false;
  StepBreakdown breakdown;
  double compute_busy_fraction = 0;   // share of the iteration a GPU is running math kernels (power model)
  std::string tier = "analytical";

  // Details.
  Flops model_flops_per_iteration, hardware_flops_per_iteration;
  Tokens tokens_per_iteration;
  int data_parallel_size = 1, microbatches = 1;
  int critical_stage = 0;              // pipeline rank that finishes last
  // The explicit pipeline schedule's shape and its makespan, enough to re-time it with the same
  // work spread evenly over the chunks (step::stage_imbalance_seconds, slowdown.hpp).
  struct Pipeline {
    bool schedulable = false;                  // list-scheduled (not DualPipe) with more than one chunk
    int pp = 1, vpp = 1, microbatches = 1, group = 0;
    double mean_forward = 0, mean_backward = 0;  // per chunk and microbatch, s
    double p2p = 0;                            // one send, s
    bool async_p2p = false;
    double makespan = 0;                       // s, as scheduled
  } pipeline;
  int peak_memory_stage = 0;           // pipeline rank with the most memory
  step::StageMemory peak_memory;       // its breakdown
  std::vector<Bytes> stage_memory;     // total per pipeline rank
  Bytes usable_memory;                 // GpuSpec.memory - usable_memory_reserve
  std::string memory_message;          // step::memory_error_message for the peak stage
};

// Throws ConfigError/InfeasibleError for layouts that do not divide / cannot be expressed.
StepResult evaluate_step(const ClusterSpec& cluster, const WorkloadSpec& workload,
                         const StepOptions& options = {});

// Throws InfeasibleError with the numbers (memory per component, usable memory) when the
// result does not fit; `run` and `search` call it before simulating.
void require_fits_in_memory(const StepResult& result);

// Adds the step summary (DESIGN.md §5 keys, catalog in sim/step/metrics.cpp) to a report.
void add_step_metrics(const StepResult& result, Report& report);

}  // namespace fleetsim
