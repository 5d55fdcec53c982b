// Fail-slow episodes and their mitigation policies in the run model (issue 27; sim/run/README.md).
#include <catch2/catch.hpp>

#include "sim/reproduce/run_sources.hpp"
#include "sim/run/run_model.hpp"

using namespace fleetsim;

namespace {

RunResult with_policy(FailSlowPolicy policy) {
  RunInputs in = reproduce::llama3_405b_inputs(4);
  in.stragglers.fail_slow_rate_per_node = PerSecond(0.01 / 86400.0);  // ~20 episodes a day on 2,048 nodes
  in.stragglers.fail_slow_slowdown = 2.0;
  in.stragglers.fail_slow_duration = Seconds(12 * 3600.0);
  in.stragglers.fail_slow_detect = Seconds(1800.0);
  in.stragglers.fail_slow_policy = policy;
  return simulate_run(in, 1);
}

double mean_of(const RunResult& r, double ReplicationResult::*field) {
  return mean_over_replications(r, [&](const ReplicationResult& x) { return x.*field; });
}

}  // namespace

TEST_CASE("fail-slow policies: ignoring loses the most throughput, swapping trades it for restarts", "[unit][run][stragglers]") {
  const RunResult ignore = with_policy(FailSlowPolicy::Ignore);
  const RunResult rebalance = with_policy(FailSlowPolicy::Rebalance);
  const RunResult swap = with_policy(FailSlowPolicy::Swap);
  const RunResult restart = with_policy(FailSlowPolicy::CheckpointRestart);
  const double lost_ignore = mean_of(ignore, &ReplicationResult::fail_slow_lost_hours);
  const double lost_rebalance = mean_of(rebalance, &ReplicationResult::fail_slow_lost_hours);
  const double lost_swap = mean_of(swap, &ReplicationResult::fail_slow_lost_hours);
  CHECK(lost_ignore > lost_rebalance);
  CHECK(lost_rebalance > lost_swap);
  CHECK(lost_swap > 0.0);  // slow until detected
  // Only swap and checkpoint-and-restart stop the job; their outages are in ETTR.
  CHECK(mean_of(ignore, &ReplicationResult::fail_slow_outage_hours) == 0.0);
  CHECK(mean_of(rebalance, &ReplicationResult::fail_slow_outage_hours) == 0.0);
  CHECK(mean_of(swap, &ReplicationResult::fail_slow_outage_hours) > 0.0);
  CHECK(mean_of(restart, &ReplicationResult::fail_slow_outage_hours) > 0.0);
  CHECK(mean_of(ignore, &ReplicationResult::ettr) > mean_of(swap, &ReplicationResult::ettr));
  // Deterministic: the same inputs give the same numbers at any thread count.
  RunInputs in = reproduce::llama3_405b_inputs(4);
  in.stragglers.fail_slow_rate_per_node = PerSecond(0.01 / 86400.0);
  in.stragglers.fail_slow_duration = Seconds(12 * 3600.0);
  in.stragglers.fail_slow_policy = FailSlowPolicy::Rebalance;
  const RunResult a = simulate_run(in, 1), b = simulate_run(in, 3);
  CHECK(mean_of(a, &ReplicationResult::fail_slow_lost_hours) == mean_of(b, &ReplicationResult::fail_slow_lost_hours));
}

TEST_CASE("a correlated NVL72 domain failure takes the whole rack out and costs more than a single node", "[unit][run][stragglers]") {
  // What-if: 16,384 GPUs in 72-GPU NVLink domains (rounded: partial domains count pro rata).
  RunInputs in = reproduce::llama3_405b_inputs(4);
  in.failures.components.clear();
  FailureComponent rack;
  rack.name = "nvl72_domain";
  rack.category = "Host";
  rack.scope = ComponentScope::Domain;
  rack.domain_gpus = 72;
  rack.rate = PerSecond(1.0 / (365.0 * 86400.0));  // one per rack-year
  in.failures.components.push_back(rack);
  in.recovery.spare_nodes = 0;
  const RunResult r = simulate_run(in, 1);
  // 16,384 / 72 = 227.6 domains: 227.6 x 54 / 365 = 33.7 failures expected.
  const double failures = mean_over_replications(r, [](const ReplicationResult& x) { return x.unexpected; });
  CHECK(failures == Approx(16384.0 / 72 * 54 / 365).epsilon(0.25));
  CHECK(r.mtti_hours == Approx(365.0 * 24 * 72 / 16384).epsilon(1e-6));
}
