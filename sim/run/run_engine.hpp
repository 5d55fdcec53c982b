// One replication of the run model: the event loop (internal to sim/run).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/run/checkpoint_policy.hpp"
#include "sim/run/failure_process.hpp"
#include "sim/run/recovery.hpp"
#include "sim/run/run_model.hpp"

namespace fleetsim::run {

// Everything derived once per run and shared read-only by the replications.
struct Prepared {
  FailureModel failures;
  CheckpointPlan plan;
  Time interval = 0, stall = 0, persist = 0, sync_stall = 0;
  Time detect_crash = 0, detect_hang = 0, diagnosis = 0, resched_spare = 0, resched_wait = 0;
  Time restart_full = 0;      // init + load of a full restart
  Time restart_replica = 0;   // init + state transfer of one data-parallel replica
  Time replica_reconfigure = 0, planned_downtime = 0, fail_slow_detect = 0;
  Time end = 0;               // run.duration, or a 20-year cap when training to a token target
  double target_iterations = 0;   // 0 = run for the duration
  double iter_rate = 0;       // iterations per second, healthy (stragglers included)
  double iter_rate_slow = 0;  // with a fail-slow node in the job
  double iter_rate_rebalanced = 0;  // with only re-balanced fail-slow nodes (policy rebalance)
  FailSlowPolicy fail_slow_policy = FailSlowPolicy::Swap;
  double fail_slow_duration_s = 0;  // mean episode length if left alone; 0 = until mitigated
  double planned_rate = 0;    // per second
  double fail_slow_rate = 0;  // per second, whole job
  int dp = 1;
  bool replica_mode = false;
  double straggler_slowdown = 1.0;
  double iteration_time_s = 0;
  // The throughput hook, integrated once for all replications: hook_integral[i] = integral of
  // throughput_factor over [0, i * kHookStep], the factor taken at each step's midpoint. Empty
  // without a hook; past its end the engine calls the hook directly.
  static constexpr double kHookStep = 600.0;
  std::shared_ptr<const std::vector<double>> hook_integral;  // null without a hook
  std::vector<WeibullTable> weibull_tables;  // one per failures.weibull entry, from fleet_age on
};

[[nodiscard]] Prepared prepare(const RunInputs& in);

[[nodiscard]] ReplicationResult simulate_replication(const Prepared& p, const RunInputs& in,
                                                     int replication);

}  // namespace fleetsim::run
