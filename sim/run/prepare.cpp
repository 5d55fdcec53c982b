// What the replications share, derived once per run: failure classes, checkpoint plan, phase
// durations in microseconds, iteration rates per state (the only calls to iteration_time), the
// integrated throughput hook and the Weibull tables.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "sim/core/error.hpp"
#include "sim/core/limits.hpp"
#include "sim/units/parse.hpp"
#include "sim/run/run_engine.hpp"
#include "sim/run/run_model.hpp"
#include "sim/run/stragglers.hpp"

namespace fleetsim::run {

namespace {

// A time derived from the scenario (a checkpoint's size over a bandwidth, a restart) must be
// finite and within the limit of any scenario time, or the microsecond clock could overflow.
Time derived_ticks(Seconds s, const std::string& key, const std::string& what) {
  if (!(s.si() >= 0.0 && s.si() <= limits::kMaxTimeSeconds))
    throw ConfigError("", key, what + " comes to " + units::format(s) + "; it must be finite and at most " +
                                   limits::kMaxTimeText + " (check the bandwidths and sizes behind it)");
  return ticks(s);
}

// Work is bounded: expected interruptions over all replications (limits.hpp).
void check_expected_events(const RunInputs& in, const FailureModel& failures, double horizon_s) {
  const double per_second = 1.0 / failures.mtti().si() + in.failures.planned_rate_per_job.si() +
                            in.stragglers.fail_slow_rate_per_node.si() * (static_cast<double>(in.gpus) / in.gpus_per_node);
  const double per_replication = per_second * horizon_s;
  const double events = per_replication * in.run.replications;
  char buf[64];
  if (!(per_replication <= limits::kMaxEventsPerReplication)) {
    std::snprintf(buf, sizeof buf, "%.3g", per_replication);
    throw ConfigError("", "run.duration", std::string("expects ") + buf + " interruptions in one replication (duration x "
                      "the failure, maintenance and fail-slow rates); the limit is 1e6: shorten run.duration or lower "
                      "the rates (failures.rate_scale)");
  }
  if (!(events <= limits::kMaxExpectedEvents)) {
    std::snprintf(buf, sizeof buf, "%.3g", events);
    throw ConfigError("", "run.replications", std::string("expects ") + buf + " interruptions over all replications; "
                      "the limit is 1e8, about a minute of work: lower run.replications, run.duration or "
                      "failures.rate_scale");
  }
}

std::string g3(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

}  // namespace

Prepared prepare(const RunInputs& in) {
  Prepared p;
  p.failures = build_failure_model(in);
  const CheckpointSpec& ck = in.checkpoint;
  p.plan = plan_checkpoints(ck, in.checkpoint_bytes, p.failures.mtti());
  p.stall = derived_ticks(p.plan.stall, "checkpoint.storage_bandwidth", "the checkpoint stall (write_time + size / bandwidth)");
  p.persist = derived_ticks(p.plan.persist, "checkpoint.storage_bandwidth", "the checkpoint persist (size / storage_bandwidth)");
  p.sync_stall = derived_ticks(p.plan.sync_stall, "checkpoint.storage_bandwidth", "a synchronous checkpoint (write_time + size / bandwidth)");
  derived_ticks(p.plan.load, "checkpoint.load_bandwidth", "the checkpoint load (size / load_bandwidth)");
  // Last: a Daly interval is bounded below by the persist time, so a bandwidth problem is named first.
  p.interval = std::max<Time>(1, derived_ticks(p.plan.interval, "checkpoint.interval", "the checkpoint interval"));
  const RecoverySpec& r = in.recovery;
  p.detect_crash = ticks(r.detect_crash);
  p.detect_hang = ticks(r.detect_hang);
  p.diagnosis = ticks(r.diagnosis);
  p.resched_spare = ticks(r.reschedule_spare);
  p.resched_wait = ticks(r.reschedule_wait);
  p.restart_full = derived_ticks(init_time(r, in.gpus) + p.plan.load, "recovery.init_base",
                                 "a restart (init_base x (gpus / init_reference_gpus)^exponent + checkpoint load)");
  p.dp = std::max(1, in.data_parallel_size);
  p.replica_mode = r.policy == RestartPolicy::ReplicaRestart && p.dp > 1;
  // A replica restarts its own ranks and pulls its state (1/dp of the checkpoint) from its peers.
  const int replica_gpus = in.nodes_per_replica > 0 ? in.nodes_per_replica * in.gpus_per_node : in.gpus / p.dp;
  p.restart_replica = derived_ticks(init_time(r, std::max(1, replica_gpus)) + p.plan.load / static_cast<double>(p.dp),
                                    "recovery.init_base", "a replica restart (init + its share of the checkpoint load)");
  p.replica_reconfigure = ticks(r.replica_reconfigure);
  p.planned_downtime = ticks(r.planned_downtime);
  p.fail_slow_detect = ticks(in.stragglers.fail_slow_detect);
  p.planned_rate = in.failures.planned_rate_per_job.si();
  p.fail_slow_rate = in.stragglers.fail_slow_rate_per_node.si() * (static_cast<double>(in.gpus) / in.gpus_per_node);
  if (in.run.replications < 1) throw ConfigError("", "run.replications", "must be at least 1");
  if (!in.iteration_time) throw ConfigError("", "run", "no iteration-time function was given to the run model");
  if (in.tokens_per_iteration < 0) throw ConfigError("", "workload.training", "tokens per iteration must not be negative");
  p.straggler_slowdown = straggler_slowdown(in.stragglers, in.gpus);
  // Compute variation re-times the step (compute_slowdown); GC pauses, sequence lengths and
  // degraded links come as an iteration-time factor from the caller (sim/step/slowdown.hpp).
  const double extra = std::max(1.0, in.straggler_iteration_factor);
  const Seconds healthy = Seconds(in.iteration_time(p.straggler_slowdown).si() * extra);
  const bool fail_slow = in.stragglers.fail_slow_rate_per_node.si() > 0;
  const double mag = std::max(1.0, in.stragglers.fail_slow_slowdown);
  Seconds slow = healthy, rebalanced = healthy;
  if (fail_slow) {
    slow = in.fail_slow_factor > 0 ? Seconds(healthy.si() * std::max(1.0, in.fail_slow_factor))
                                   : Seconds(in.iteration_time(p.straggler_slowdown * mag).si() * extra);
    if (in.stragglers.fail_slow_policy == FailSlowPolicy::Rebalance) {
      // The slow replica gets fewer microbatches: dp / (dp - 1 + 1/mag) of the healthy pace.
      const double dp = p.dp;
      const double g = dp > 1 ? dp / (dp - 1.0 + 1.0 / mag) : mag;
      rebalanced = in.fail_slow_rebalanced_factor > 0
                       ? Seconds(healthy.si() * std::max(1.0, in.fail_slow_rebalanced_factor))
                       : Seconds(in.iteration_time(p.straggler_slowdown * g).si() * extra);
    }
  }
  if (healthy.si() <= 0 || slow.si() <= 0 || rebalanced.si() <= 0) throw InfeasibleError("the iteration time must be positive");
  p.iteration_time_s = healthy.si();
  p.iter_rate = 1.0 / healthy.si();
  p.iter_rate_slow = 1.0 / slow.si();
  p.iter_rate_rebalanced = 1.0 / rebalanced.si();
  p.fail_slow_policy = in.stragglers.fail_slow_policy;
  p.fail_slow_duration_s = in.stragglers.fail_slow_duration.si();
  // Before the work bounds below, which assume a target that ends within the horizon.
  if (in.train_tokens > 0 && in.tokens_per_iteration > 0)
    token_target_lower_bound_s(in.train_tokens, in.tokens_per_iteration, healthy.si());
  // A token target runs about as long as its failure-free time (at most the 20-year horizon).
  check_expected_events(in, p.failures,
                        in.train_tokens > 0 && in.tokens_per_iteration > 0
                            ? std::min(20 * 365 * 86400.0, in.train_tokens / in.tokens_per_iteration * healthy.si())
                            : in.run.duration.si());
  if (in.throughput_factor) {
    // Integrate the hook over the run (or, for a token target, over 10x the failure-free time).
    double horizon = in.run.duration.si();
    if (in.train_tokens > 0 && in.tokens_per_iteration > 0)
      horizon = std::min(20 * 365 * 86400.0, 10.0 * in.train_tokens / in.tokens_per_iteration / p.iter_rate);
    const auto cells = static_cast<size_t>(std::ceil(horizon / Prepared::kHookStep)) + 1;
    auto integrate = [&] {
      auto g = std::make_shared<std::vector<double>>(cells + 1, 0.0);
      for (size_t i = 0; i < cells; ++i)
        (*g)[i + 1] = (*g)[i] + Prepared::kHookStep * in.throughput_factor(Seconds((static_cast<double>(i) + 0.5) * Prepared::kHookStep));
      return std::shared_ptr<const std::vector<double>>(std::move(g));
    };
    if (in.hook_integral_cache) {  // runs given the same hook share its integral
      std::lock_guard lock(in.hook_integral_cache->mutex);
      auto& table = in.hook_integral_cache->by_cells[cells];
      if (!table) table = integrate();
      p.hook_integral = table;
    } else {
      p.hook_integral = integrate();
    }
  }
  if (in.train_tokens > 0) {
    if (in.tokens_per_iteration <= 0)
      throw ConfigError("", "workload.training.train_tokens", "needs a positive number of tokens per iteration");
    p.target_iterations = in.train_tokens / in.tokens_per_iteration;
    p.end = ticks(Seconds(20 * 365 * 86400.0));
  } else {
    if (in.run.duration.si() <= 0)
      throw ConfigError("", "run.duration", "must be a positive time such as '54 d' (or set train_tokens)");
    p.end = ticks(in.run.duration);
  }
  const double age = in.failures.fleet_age.si();
  for (const int c : p.failures.weibull)
    p.weibull_tables.emplace_back(p.failures.classes[static_cast<size_t>(c)], age, age + seconds_of(p.end));
  return p;
}

}  // namespace fleetsim::run

namespace fleetsim {

double token_target_lower_bound_s(double train_tokens, double tokens_per_iteration, double iteration_s) {
  const double bound = train_tokens / tokens_per_iteration * iteration_s;
  if (!(bound <= limits::kMaxRunSeconds)) {
    const double fits = limits::kMaxRunSeconds / iteration_s * tokens_per_iteration;
    throw InfeasibleError("workload.training.train_tokens: " + run::g3(train_tokens) + " tokens need at least " +
                          std::to_string(static_cast<long long>(std::min(bound / 86400.0, 1e15))) +
                          " d of training even without failures (" + run::g3(iteration_s) + " s per iteration of " +
                          run::g3(tokens_per_iteration) + " tokens), beyond the run model's horizon of " +
                          std::to_string(static_cast<long long>(limits::kMaxRunSeconds / 86400.0)) + " d (" +
                          limits::kMaxRunText + "); valid: at most " + run::g3(fits) +
                          " tokens on this design, or a faster design");
  }
  return bound;
}

}  // namespace fleetsim
