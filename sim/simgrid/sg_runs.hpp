// The runs executed inside a SimGrid engine (platform.cpp, activities.cpp). Each call creates the
// process's one engine, so it is only ever made in a forked child (isolate.hpp); the parent never
// sees a SimGrid type. No SimGrid includes here.
#pragma once

#include <string>
#include <vector>

#include "sim/simgrid/fabric.hpp"
#include "sim/simgrid/plan.hpp"

namespace fleetsim::sgtier {

struct EngineConfig {
  std::vector<std::string> cfg;  // extra SimGrid --cfg settings, "key:value"
  bool verbose = false;          // keep SimGrid's own logging
};

// Creates the engine (CM02, crosstraffic off, logging silenced unless verbose, then cfg) and a
// platform holding exactly the GPUs and links the given transfers need, at the rates of `scale`.
// Throws if an engine already exists in this process.
void build_platform(const Fabric& fabric, const std::vector<std::pair<int, int>>& transfers,
                    const LinkScale& scale, const EngineConfig& config);

// One contended collective step: all flows start together; returns the time at which the last
// foreground flow completes (background flows only contend and are cancelled then).
double run_flow_step(const Fabric& fabric, const std::vector<Flow>& flows, const LinkScale& scale,
                     const EngineConfig& config);

// One representative pipeline: a stage actor per physical stage runs its ops in order, waiting for
// activations/gradients from its neighbours, which travel over their routes as SimGrid comms.
// Returns the makespan, each stage's finish time, then for each global chunk j = chunk * stages +
// stage the start and (after those) the end of its last backward; then, for the iteration trace,
// each stage's ops in program order as (start, end) pairs, the number of transfers, and each
// transfer as (sending virtual stage, receiving virtual stage, microbatch, start, end) with the
// start and finish times SimGrid gave the comm. PipelineRun decodes it.
// (Everything travels back from the forked child as doubles: integers below 2^53 are exact.)
std::vector<double> run_pipeline(const Fabric& fabric, const PipelineProgram& program, const EngineConfig& config);

}  // namespace fleetsim::sgtier
