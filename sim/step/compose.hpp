// The end of an iteration after the pipeline: data-parallel gradient reduction (bucketed, behind
// the backward of the remaining chunks), the parameter all-gather of sharded optimizers
// (ZeRO-1/2 once, ZeRO-3/FSDP per microbatch), and the optimizer step; the slowest pipeline rank
// ends the iteration. One composition for both tiers: the analytical tier passes its own
// schedule and α-β collective times, the SimGrid tier the simulated ones, so on a
// contention-free fabric the two agree by construction.
#pragma once

#include <functional>
#include <vector>

#include "sim/step/collectives.hpp"
#include "sim/step/overlap.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/workload/specs.hpp"

namespace fleetsim::step {

// The pipeline as it ran: per rank its finish time, per chunk (global chunk index) the start and
// end of its last backward.
// The next iteration's first forward (microbatch 0) of each chunk is where the parameter
// all-gathers must have arrived (overlap_param_gather).
struct PipelineTimes {
  const std::vector<double>& rank_end;
  const std::vector<double>& last_backward_start;
  const std::vector<double>& last_backward_end;
  const std::vector<double>& first_forward_start;
  const std::vector<double>& first_forward_end;
};

// What each tier supplies: seconds of one data-parallel collective of `dense_bytes` per rank over
// the dense-weight DP group plus `expert_bytes` over the expert DP group, and of the optimizer
// step of one pipeline rank. compose_iteration decides which collectives and how many bytes.
struct DataParallelCosts {
  std::function<double(Collective kind, double dense_bytes, double expert_bytes)> collective;
  std::function<double(int rank)> optimizer;
  OverlapContention contention;  // what overlapped collectives cost the compute (overlap.hpp)
};

struct Composition {
  double iteration_time = 0;
  int critical_rank = 0;
  // Per pipeline rank: data-parallel communication on the critical path, all of it, the
  // optimizer, and the compute time added by collectives running concurrently with compute
  // (overlap.hpp, mechanism 3).
  std::vector<double> dp_exposed, dp_total, optimizer, contention;
  // Of dp_exposed on each rank: the next iteration's forward stalled on parameter all-gathers,
  // and ZeRO-3 gathers that the prefetch depth did not let hide.
  std::vector<double> gather_stall, prefetch_exposed;
};

// One data-parallel collective as composed, for the iteration trace (sim/step/trace.cpp).
struct DpSpan {
  int rank = 0;
  int chunk = -1;            // global chunk of a gradient reduction; -1 the parameter all-gather,
                             // -2 the further ZeRO-3 gathers of all microbatches
  Collective kind = Collective::AllReduce;
  double start = 0, end = 0; // gradient reductions: on the rank's DP stream (end - start may
                             // exceed `seconds`: the last bucket waits for the last backward)
  double seconds = 0;        // transfer time
  double exposed = 0;        // parameter gathers: the part on the critical path
  double dense_bytes = 0, expert_bytes = 0;  // per GPU
  int buckets = 1;           // gradient reductions: DDP buckets of the chunk (overlapped reduction)
};

// With `record`, each collective's placement is appended to it.
[[nodiscard]] Composition compose_iteration(const StageCosts& sc, const WorkloadSpec& w,
                                            const PipelineTimes& pipe, const DataParallelCosts& costs,
                                            std::vector<DpSpan>* record = nullptr);

// Parameters whose optimizer state one GPU of pipeline rank `rank` updates (its shard when the
// optimizer is distributed).
[[nodiscard]] double local_optimizer_params(const StageCosts& sc, const ParallelSpec& par, int rank);

}  // namespace fleetsim::step
