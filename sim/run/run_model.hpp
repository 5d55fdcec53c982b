// The training-run model: a job-level discrete-event simulation of a whole training run (days to
// months) with failure injection, detection, recovery, checkpoints, spares, stragglers and planned
// maintenance, over Monte-Carlo replications (DESIGN.md §2, run model).
//
// The engine is decoupled from YAML and from the step model: it receives a RunInputs (resolved
// specs plus the cluster shape) and a function giving the iteration time for a compute slowdown,
// which the caller memoizes (or not: the engine calls it once per distinct state, up front).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sim/run/specs.hpp"
#include "sim/units/quantity.hpp"

namespace fleetsim {

class Report;

// The run's integral of RunInputs::throughput_factor (run_engine.hpp, Prepared::hook_integral),
// shared by runs given the same hook (sim/plan: the designs of one fabric and cooling, through
// PipelineStages): computed once per table length; a table depends on nothing else.
struct HookIntegralCache {
  std::mutex mutex;
  std::map<size_t, std::shared_ptr<const std::vector<double>>> by_cells;
};

struct RunInputs {  // everything the engine needs, decoupled from YAML
  // Cluster shape. The job uses every GPU of the cluster.
  int gpus = 16384;
  int gpus_per_node = 8;
  int gpus_per_leaf = 32;            // endpoints under one leaf switch (a leaf failure takes them down)
  int data_parallel_size = 1;        // replicas: the unit of replica_restart (FT-HSDP)
  int nodes_per_replica = 0;         // 0 = nodes / data_parallel_size
  int nics_per_node = 0;             // 0 = one per GPU (rail-optimized, Llama 3 §3.3.1)
  int spine_switches = 0;            // 0 = leaves / 2 (radix-64 two-tier Clos, half the ports up)
  int links = 0;                     // cables/optics in scope `link`; 0 = one NIC-leaf link per GPU

  FailureProfile failures;
  RecoverySpec recovery;
  CheckpointSpec checkpoint;
  StragglerSpec stragglers;
  RunSpec run;

  Bytes checkpoint_bytes;            // model state size (parameters x checkpoint.bytes_per_param)
  double tokens_per_iteration = 0;
  double train_tokens = 0;           // 0 = run for run.duration
  std::function<Seconds(double compute_slowdown)> iteration_time;  // called once per state
  // Slowdown processes beyond compute variation (sim/step/slowdown.hpp), as iteration-time
  // factors: GC pauses, sequence lengths, degraded links (>= 1); while a fail-slow host is in the
  // job and after re-balancing (0 = re-time the step with the compute slowdown instead).
  double straggler_iteration_factor = 1.0;
  double fail_slow_factor = 0.0;
  double fail_slow_rebalanced_factor = 0.0;
  double failure_rate_multiplier = 1.0;  // hook: the facility model scales hazards
  std::function<double(Seconds t)> throughput_factor;  // hook: thermal throttling (1 = none); may be empty
  bool record_timeline = false;      // replication 0 keeps its state timeline (`run --trace`)
  bool record_events = true;         // replication 0 keeps its event log (results file, trace)
  std::shared_ptr<HookIntegralCache> hook_integral_cache;  // may be empty (integrated per run)
};

// One stretch of wall-clock time in one state (replication 0 with RunInputs::record_timeline):
// "training", "checkpoint_write", an outage phase (phase:: names), or, on its own track,
// "lost_work": the compute rolled back by the interruption at `end` (its length is that compute
// time, drawn back from the interruption).
struct StateSpan {
  Seconds start, end;
  std::string state;
  std::string cause;   // the interruption's component, "planned", "fail_slow"; empty for training
};

enum class EventKind { Failure, CheckpointDurable, Restart, Planned, FailSlow, Eviction, ReplicaRejoin, End };
const char* to_string(EventKind k);

struct Event {
  Seconds time;        // when it happened, from the run start
  EventKind kind;
  std::string cause;   // failure component name, "planned", "fail_slow", ...
  Seconds duration;    // outage it caused (failure: detection..load; checkpoint: blocking stall)
};

// Names of the wall-clock phases (lost_hours keys). Productive time is kept apart.
namespace phase {
inline constexpr const char* kLostWork = "lost_work";              // compute rolled back
inline constexpr const char* kDetection = "detection";
inline constexpr const char* kDiagnosis = "diagnosis";
inline constexpr const char* kRescheduling = "rescheduling";       // spare swap or requeue
inline constexpr const char* kWaitingForSpares = "waiting_for_spares";  // no spare: wait for a repair
inline constexpr const char* kRestart = "restart";                 // init + checkpoint load (+ replica reconfigure)
inline constexpr const char* kCheckpointStalls = "checkpoint_stalls";
inline constexpr const char* kPlannedMaintenance = "planned_maintenance";
inline constexpr const char* kDegraded = "degraded";               // replicas out under replica_restart
}  // namespace phase

struct ReplicationResult {
  double ettr = 0;                   // productive time / wall time
  double wall_clock_days = 0;
  double tokens_trained = 0;
  int unexpected = 0;
  int planned = 0;
  int fail_slow = 0;                 // fail-slow episodes (evicted or ended by a restart)
  int lemon_failures = 0;            // unexpected interruptions that hit a lemon node
  // lemon_model per_node (sim/run/README.md, "Lemon nodes"): lemon nodes drawn into the job at the
  // start and left at the end, nodes retired (failures.lemon_retirement) and how many of them
  // were lemons, and the retired nodes' GPU-hours from retirement to the end of the run (the
  // capacity the operator replaces from spares).
  int lemon_nodes_start = 0;
  int lemon_nodes_end = 0;
  int retired_nodes = 0;
  int retired_lemon_nodes = 0;
  double retirement_gpu_hours = 0;
  std::map<std::string, int> by_cause;        // unexpected interruptions by component name
  std::map<std::string, double> lost_hours;   // by phase (see phase::)
  double productive_hours = 0;
  double compute_hours = 0;          // GPUs computing (productive + lost work): power model
  double stalled_hours = 0;          // GPUs idle or stalled (everything else)
  double slow_hours = 0;             // running with a fail-slow node in the job
  // Wall-clock hours of throughput lost while running slow (fail-slow nodes, unmitigated or
  // re-balanced): the time x (1 - slow pace / healthy pace). Counted as productive in ETTR; the
  // waterfall charges it to `stragglers` (inside parallel scaling).
  double fail_slow_lost_hours = 0;
  double fail_slow_outage_hours = 0;  // outages begun by fail-slow mitigation (swap, checkpoint_restart)
  std::vector<Event> events;         // only filled for replication 0
  std::vector<StateSpan> timeline;   // replication 0 with RunInputs::record_timeline
};

struct RunResult {
  std::vector<ReplicationResult> replications;
  double mtti_hours = 0;             // expected job mean time to (unexpected) interruption
  double checkpoint_interval_s = 0;  // compute time between checkpoints (fixed or Daly)
  double checkpoint_stall_s = 0;     // blocking part of one checkpoint
  double checkpoint_persist_s = 0;   // background persist (async) after the stall
  double restart_s = 0;              // init + load of one full restart
  double straggler_slowdown = 1.0;   // expected slowest-rank factor applied to compute
  double iteration_time_s = 0;       // healthy iteration time with stragglers
  bool per_node_lemons = false;      // lemon_model per_node: the lemon_retirement metrics are reported
};

// The mean over the replications of one figure of a replication, e.g.
// mean_over_replications(r, [](const ReplicationResult& x) { return x.ettr; }); 0 without any.
template <class Get>
[[nodiscard]] double mean_over_replications(const RunResult& r, Get get) {
  if (r.replications.empty()) return 0.0;
  double sum = 0;
  for (const auto& x : r.replications) sum += static_cast<double>(get(x));
  return sum / static_cast<double>(r.replications.size());
}

using ProgressFn = std::function<void(int done, int total)>;

// The replications one process computes when several share a run (MPI ranks, sim/mpi/run.hpp):
// replication i belongs to part i % parts. Each replication's random streams depend only on its
// index, so the parts merged equal the whole.
struct ReplicationShare {
  int part = 0;
  int parts = 1;
};

// Runs in.run.replications replications on `threads` threads (0 = hardware concurrency).
// Deterministic: the same inputs and seed give the same result for any thread count.
// `progress` is called (serialized) after each replication. Throws ConfigError on bad inputs.
// With a share, only its replications are computed; the others stay default-constructed.
RunResult simulate_run(const RunInputs& in, int threads = 0, ProgressFn progress = {}, ReplicationShare share = {});

// The figures of simulate_run that no replication changes (MTTI, checkpoint plan, restart,
// iteration time with stragglers), with no replication computed.
RunResult summarize_run(const RunInputs& in);

// A token target and the run model's horizon (limits::kMaxRunSeconds, 20 years): the fewest
// seconds `train_tokens` can take, training at the failure-free pace (`iteration_s` per
// iteration of `tokens_per_iteration`). When even that is beyond the horizon the run would stop
// there with the target unmet, so it is refused: InfeasibleError (exit 2 for `run`; `plan` lists
// the design as "does not run") naming workload.training.train_tokens, the horizon, the lower bound
// and the most tokens that fit. Called by prepare(); shared so the run and plan say the same.
double token_target_lower_bound_s(double train_tokens, double tokens_per_iteration, double iteration_s);

// ettr, wall_clock_days, tokens_trained, interruptions.{unexpected,planned,by_cause.*},
// lost_hours.*, mtti_hours, checkpoint_interval_s: statistics as mean/p05/p95.
void add_run_metrics(const RunResult& result, Report& report);

}  // namespace fleetsim
