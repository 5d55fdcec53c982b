// The whole pipeline of `fleetsim run`: step model -> run model -> facility model, with the
// facility's hooks (temperature-driven failure acceleration, thermal throttling) fed into the run.
// Shared by the run and sweep commands and by the scenario tests.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/facility/facility_model.hpp"
#include "sim/facility/power_dynamics.hpp"
#include "sim/results/hdf5_writer.hpp"
#include "sim/results/report.hpp"
#include "sim/run/run_model.hpp"
#include "sim/scenario.hpp"
#include "sim/step/slowdown.hpp"
#include "sim/step/step_model.hpp"

namespace fleetsim {

struct PipelineOptions {
  int threads = 0;                          // 0 = all cores
  std::function<void(int done, int total)> progress;
  bool record_timeline = false;             // replication 0 keeps its state timeline (run --trace)
  // MPI (sim/mpi/run.hpp): this process computes only `share` of the replications; `gather`
  // then collects them all and returns false on a process that does not hold the merged result
  // (the pipeline stops there).
  ReplicationShare share = {};
  std::function<bool(RunResult&)> gather = {};
  // Declared uncertain inputs (issue 25; sim/uncertainty/inputs.hpp): when set, replication i
  // runs on replication_scenario(i), its own drawn inputs and iteration; the step headline and
  // the run's summary figures stay the point scenario's. Deterministic for a seed: the draw
  // depends only on (seed, i).
  std::function<Scenario(int replication)> replication_scenario = {};
  // Replication 0's event log (results file, trace); a caller that reads only the figures
  // (sim/plan) turns it off. No figure depends on it.
  bool record_events = true;
};

struct PipelineResult {
  StepResult step;
  double single_gpu_mfu = 0.0;              // MFU with communication and bubbles free
  double parameters = 0.0;
  RunResult run;
  std::vector<FacilityResult> facility;     // one per replication
  Report report;                            // step.*, run.*, facility.* (and pool.*) metrics
  bool pool_simulated = false;              // the pool factor came from the pool simulator (sim/pool)
  // facility.power_timeline: on — replication 0's sub-second power (sim/facility/power_dynamics.hpp).
  std::optional<facility::PowerDynamicsResult> power;
  // With PipelineOptions::replication_scenario: each replication's own iteration time and MFU.
  std::vector<double> replication_iteration_time_s, replication_mfu;
};

// Evaluates the iteration on the scenario's tier. Throws InfeasibleError when it does not fit.
StepResult evaluate_scenario_step(const Scenario& s);

// What the pipeline computes before the run model, from the fields those stages read: the step
// (cluster, workload, step tier), its slowdown processes (stragglers), the step re-timed for a
// compute slowdown (memoized, shared by every run given these stages), and the facility's two
// hooks into the run (cooling, site, the GPU's thermal chain, run.duration). Scenarios that
// differ only in recovery, checkpointing or failures share them (sim/plan memoizes them per
// layout, fabric and cooling; tests/plan checks the results are identical to unshared runs).
struct PipelineStages {
  std::shared_ptr<const Scenario> scenario;        // the one they were computed on (re-timing reads it)
  StepResult step;
  double parameters = 0.0, single_gpu_mfu = 0.0;
  step::SlowdownResult slowdown;
  std::function<Seconds(double compute_slowdown)> iteration_time;
  double failure_rate_multiplier = 1.0;
  std::function<double(Seconds)> throughput_factor;
  std::shared_ptr<HookIntegralCache> hook_integral_cache;  // the run model's integral of that hook
  std::shared_ptr<const OutdoorSeries> outdoor;  // the site's climate per facility step (the run's likely length)
};
// Throws InfeasibleError when the step does not fit.
[[nodiscard]] PipelineStages pipeline_stages(const Scenario& s);

// Throws ConfigError / InfeasibleError for inputs that cannot run.
PipelineResult run_pipeline(const Scenario& s, const PipelineOptions& options = {});
// The same with the stages computed already (pipeline_stages of a scenario that agrees with `s`
// on everything they read).
PipelineResult run_pipeline_with(const Scenario& s, const PipelineStages& stages, const PipelineOptions& options = {});

// HDF5 tables of a pipeline result: per-replication figures, the first replication's event log
// and its facility time series.
// `annotate`, when given, adds to the file before it is committed (the command's intervals).
void write_results_file(const std::string& path, const Scenario& s, const PipelineResult& r,
                        const std::string& command, const std::function<void(ResultsFile&)>& annotate = {});

}  // namespace fleetsim
