// Pieces shared by tier.cpp and iteration.cpp (no SimGrid types).
#pragma once

#include <optional>

#include "sim/simgrid/fabric.hpp"
#include "sim/simgrid/isolate.hpp"
#include "sim/simgrid/plan.hpp"
#include "sim/simgrid/sg_runs.hpp"
#include "sim/simgrid/simgrid_tier.hpp"
#include "sim/step/compose.hpp"
#include "sim/step/pipeline_schedule.hpp"
#include "sim/step/stage_costs.hpp"

namespace fleetsim::sgtier {

// The job laid out on its fabric, with the options that shape every run.
struct TierSetup {
  TierSetup(const ClusterSpec& cluster, const ParallelSpec& parallel, const SimgridOptions& options);
  Layout layout;
  Fabric fabric;
  EngineConfig engine;
  int focus_rank = 0;  // the rank whose groups and pipeline are simulated (the degraded one, if any)

 private:
  static std::optional<CableFault> fault_of(const ClusterSpec& cluster, const SimgridOptions& options);
};

// A collective whose SimGrid run is in flight in a child process (several run in parallel).
struct PendingCollective {
  CollectivePlan plan;
  std::optional<IsolatedRun> run;
};
PendingCollective start_collective(const TierSetup& setup, SimgridCollective kind, GroupShape shape, Bytes bytes,
                                   int max_flows);
Collective to_plan(SimgridCollective kind);
Axis to_plan(ParallelAxis axis);
CollectiveTiming finish_collective(PendingCollective& pending);

// Contention measured on SimGrid relative to the analytical tier, applied to the exposed
// context-parallel exchange and the expert-parallel all-to-all inside the stage durations.
struct CommScales {
  double cp = 1.0, ep = 1.0;
};
// The analytical tier's stage costs with the measured CP/EP contention and the straggler (if its
// stage) applied: what each op of the SimGrid pipeline lasts.
step::StageCosts contended_stage_costs(const TierSetup& setup, const ClusterSpec& cluster, const WorkloadSpec& workload,
                                       const SimgridOptions& options, const CommScales& scales);
PipelineProgram pipeline_program(const TierSetup& setup, const ClusterSpec& cluster, const WorkloadSpec& workload,
                                 const SimgridOptions& options, const CommScales& scales = {});

// What run_pipeline returns (sg_runs.hpp), decoded.
struct PipelineRun {
  struct Transfer {
    int from = 0, to = 0;  // virtual stages (global chunk indices)
    int microbatch = 0;
    double start = 0, end = 0;
  };
  double makespan = 0;
  std::vector<double> stage_finish;                           // per physical stage
  std::vector<double> last_backward_start, last_backward_end; // per global chunk
  std::vector<step::OpTiming> ops;                            // stage by stage, in program order
  std::vector<Transfer> transfers;
  PipelineRun(const std::vector<double>& out, const PipelineProgram& program);
};

// For the trace: the pipeline's sends as SimGrid ran them and the data-parallel collectives as
// composed, with the bytes each puts on every fabric level (SimgridTimeline::transfers; trace.cpp).
void record_transfers(const TierSetup& setup, const PipelineProgram& program, const PipelineRun* pipe,
                      const step::CollectiveVolumes& volumes, const std::vector<step::DpSpan>& dp,
                      const CollectivePlan* dense, const CollectivePlan* expert, std::vector<FabricTransfer>& out);

}  // namespace fleetsim::sgtier
