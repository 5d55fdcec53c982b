// Pieces shared by tier.cpp and iteration.cpp (no SimGrid types).
#pragma once

#include <optional>

#include "sim/simgrid/fabric.hpp"
#include "sim/simgrid/isolate.hpp"
#include "sim/simgrid/plan.hpp"
#include "sim/simgrid/sg_runs.hpp"
#include "sim/simgrid/simgrid_tier.hpp"

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
PipelineProgram pipeline_program(const TierSetup& setup, const ClusterSpec& cluster, const WorkloadSpec& workload,
                                 const SimgridOptions& options, const CommScales& scales = {});

}  // namespace fleetsim::sgtier
