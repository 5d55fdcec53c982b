// Lemon nodes in the run model (issue 27; sim/run/README.md "Lemon nodes"): the frailty
// distributions keep the fleet-average rate, the per-node model draws a job's nodes and follows
// them, and retirement removes repeat offenders with its GPU-hours accounted.
#include <catch2/catch.hpp>

#include <cmath>

#include "sim/core/error.hpp"
#include "sim/reproduce/run_sources.hpp"
#include "sim/run/failure_process.hpp"
#include "sim/run/profiles.hpp"

using namespace fleetsim;

namespace {

// A Kokolis-style fleet: one node-scoped process at RSC-1's rate, nothing else.
RunInputs rsc1(int gpus, double days, int replications) {
  RunInputs in = reproduce::meta_model_inputs("meta-rsc1", gpus, Seconds(300), Seconds(0), Seconds(1800),
                                              Seconds(days * 86400.0), replications);
  return in;
}

double mean_of(const RunResult& r, int ReplicationResult::*field) {
  return mean_over_replications(r, [&](const ReplicationResult& x) { return x.*field; });
}

}  // namespace

TEST_CASE("frailty bins keep the fleet-average hazard and put the lemons in the top share", "[unit][run][lemon]") {
  FailureProfile p = run::builtin_profile("meta-rsc1");
  for (double sigma : {0.5, 1.0, 2.0, 3.0}) {
    p.lemon_distribution = LemonDistribution::Lognormal;
    p.lemon_sigma = sigma;
    const auto bins = run::frailty_bins(p);
    double mass = 0, mean = 0, lemons = 0, top = 0;
    for (const auto& b : bins) {
      mass += b.mass;
      mean += b.mass * b.multiplier;
      if (b.lemon) lemons += b.mass;
      top = std::max(top, b.multiplier);
    }
    INFO("sigma " << sigma);
    CHECK(mass == Approx(1.0).margin(1e-12));
    CHECK(mean == Approx(1.0).margin(1e-9));  // E[Z] = 1: the profile rate is the fleet average
    CHECK(lemons == Approx(p.lemon_fraction).margin(1e-12));
    // The heaviest bin of a lognormal: its multiplier grows like exp(sigma * z) with the tail.
    CHECK(top > std::exp(sigma * 2.0) * std::exp(-sigma * sigma / 2));
  }
  p.lemon_distribution = LemonDistribution::TwoPoint;
  const auto two = run::frailty_bins(p);
  REQUIRE(two.size() == 2);
  CHECK(two[1].multiplier / two[0].multiplier == Approx(p.lemon_multiplier));
}

TEST_CASE("per-node lemons: the expected failure count is the fleet average, a job's lemons vary", "[unit][run][lemon]") {
  RunInputs in = rsc1(512, 30, 400);
  in.failures.lemon_model = LemonModel::PerNode;
  in.failures.lemon_multiplier = 50;
  const RunResult r = simulate_run(in, 2);
  // 64 nodes x 6.5 / 1000 node-days x 30 d = 12.48 failures expected.
  const double expected = 64 * 6.5e-3 * 30;
  const double mean = mean_of(r, &ReplicationResult::unexpected);
  CHECK(mean == Approx(expected).epsilon(0.10));
  // Lemons drawn per job: 64 x 1.2% = 0.77 on average, and some jobs get none.
  CHECK(mean_of(r, &ReplicationResult::lemon_nodes_start) == Approx(64 * 0.012).epsilon(0.15));
  int without = 0;
  for (const auto& x : r.replications) without += x.lemon_nodes_start == 0;
  CHECK(without > 100);
  CHECK(without < 300);
  // Deterministic at any thread count.
  const RunResult one = simulate_run(in, 1);
  CHECK(mean_of(one, &ReplicationResult::unexpected) == mean);
}

TEST_CASE("lemon retirement removes repeat offenders and accounts their GPU-hours", "[unit][run][lemon]") {
  RunInputs in = rsc1(16000, 30, 4);
  in.failures.lemon_model = LemonModel::PerNode;
  in.failures.lemon_multiplier = 200;  // a lemon fails about every 3 days
  const RunResult kept = simulate_run(in, 2);
  in.failures.lemon_retirement = {2, Seconds(7 * 86400.0)};
  const RunResult retired = simulate_run(in, 2);
  const double lemons = mean_of(retired, &ReplicationResult::lemon_nodes_start);
  CHECK(lemons == Approx(2000 * 0.012).epsilon(0.3));
  CHECK(mean_of(kept, &ReplicationResult::retired_nodes) == 0);
  // Most lemons go within the month; few healthy nodes fail twice in a week (rate 1.6e-3 / day).
  CHECK(mean_of(retired, &ReplicationResult::retired_lemon_nodes) > 0.8 * lemons);
  CHECK(mean_of(retired, &ReplicationResult::retired_nodes) - mean_of(retired, &ReplicationResult::retired_lemon_nodes) < 2);
  CHECK(mean_of(retired, &ReplicationResult::lemon_nodes_end) < 0.2 * lemons);
  CHECK(mean_of(retired, &ReplicationResult::unexpected) < 0.8 * mean_of(kept, &ReplicationResult::unexpected));
  for (const auto& x : retired.replications) {
    // Each retired node's 8 GPUs from its retirement to the end: more than 0, less than the whole run.
    CHECK(x.retirement_gpu_hours > 0);
    CHECK(x.retirement_gpu_hours < x.retired_nodes * 8 * 30 * 24.0);
  }
}

TEST_CASE("the fleet-average two-point model is unchanged by the per-node machinery", "[unit][run][lemon]") {
  // The lemon split of before issue 27 (fractional counts) still gives the same classes.
  RunInputs in = reproduce::llama3_405b_inputs(2);
  const run::FailureModel m = run::build_failure_model(in);
  int lemons = 0;
  for (const auto& c : m.classes) lemons += c.lemon;
  CHECK(lemons > 0);
  CHECK(m.bins.empty());
  CHECK_FALSE(m.per_node);
}

TEST_CASE("lemon keys out of range are refused naming the key", "[unit][run][lemon]") {
  RunInputs in = rsc1(512, 1, 1);
  auto refused = [&](const RunInputs& x, const std::string& key) {
    try {
      (void)simulate_run(x, 1);
    } catch (const ConfigError& e) {
      return std::string(e.what()).find(key) != std::string::npos;
    }
    return false;
  };
  RunInputs a = in;
  a.failures.lemon_retirement.after_failures = 2;  // without per_node
  CHECK(refused(a, "failures.lemon_retirement.after_failures"));
  a.failures.lemon_model = LemonModel::PerNode;
  a.failures.lemon_retirement.window = Seconds(0);
  CHECK(refused(a, "failures.lemon_retirement.window"));
  RunInputs b = in;
  b.failures.lemon_distribution = LemonDistribution::Lognormal;
  b.failures.lemon_sigma = 0;
  CHECK(refused(b, "failures.lemon_sigma"));
}
