// The whole pipeline of `fleetsim run`: step model -> run model -> facility model, with the
// facility's hooks (temperature-driven failure acceleration, thermal throttling) fed into the run.
// Shared by the run and sweep commands and by the scenario tests.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/facility/facility_model.hpp"
#include "sim/facility/power_dynamics.hpp"
#include "sim/results/hdf5_writer.hpp"
#include "sim/results/report.hpp"
#include "sim/run/run_model.hpp"
#include "sim/scenario.hpp"
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

// Throws ConfigError / InfeasibleError for inputs that cannot run.
PipelineResult run_pipeline(const Scenario& s, const PipelineOptions& options = {});

// HDF5 tables of a pipeline result: per-replication figures, the first replication's event log
// and its facility time series.
// `annotate`, when given, adds to the file before it is committed (the command's intervals).
void write_results_file(const std::string& path, const Scenario& s, const PipelineResult& r,
                        const std::string& command, const std::function<void(ResultsFile&)>& annotate = {});

}  // namespace fleetsim
