// Slowdown processes of one iteration (sim/step/slowdown.hpp, issue 27).
#include <catch2/catch.hpp>

#include <cmath>

#include "sim/config/load.hpp"
#include "sim/run/stragglers.hpp"
#include "sim/step/slowdown.hpp"
#include "sim/step/step_model.hpp"

using namespace fleetsim;

TEST_CASE("the tabulated expected maximum of n normals agrees with the order-statistic integral", "[unit][stragglers]") {
  for (int n : {2, 3, 5, 8, 17, 64, 100, 1000, 16384, 131072, 1000000}) {
    INFO("n = " << n);
    CHECK(step::expected_max_normal_fast(n) == Approx(run::expected_max_normal(n)).margin(1e-3));
  }
  CHECK(step::expected_max_normal_fast(1) == 0.0);
  CHECK(step::expected_max_normal_fast(1e9) > step::expected_max_normal_fast(2.6e8));  // beyond the table: still grows
}

TEST_CASE("the closed-form slowest lognormal is within 1% of the exact integral for sigma <= 0.1", "[unit][stragglers]") {
  for (int n : {8, 64, 1024, 16384, 131072})
    for (double sigma : {0.01, 0.03, 0.1}) {
      INFO("n = " << n << ", sigma = " << sigma);
      CHECK(step::expected_slowest_lognormal_fast(n, sigma, 10.0) ==
            Approx(run::expected_slowest_lognormal(n, sigma, 10.0)).epsilon(0.01));
    }
}

TEST_CASE("sequence-length imbalance grows with the spread of document lengths and vanishes when re-balanced",
          "[unit][stragglers]") {
  const double a = 0.4;
  CHECK(step::sample_cost_cv(32768, 0, 1.5, true, a) == 0.0);  // fixed-length samples
  const double narrow = step::sample_cost_cv(32768, 2000, 0.5, true, a);
  const double wide = step::sample_cost_cv(32768, 2000, 1.5, true, a);
  CHECK(narrow > 0.0);
  CHECK(wide > narrow);
  CHECK(step::sample_cost_cv(32768, 2000, 1.5, false, a) > wide);  // one document per sample varies more

  Scenario s = config::load_scenario("");
  const StepResult r = evaluate_step(s.cluster, s.workload);
  s.stragglers.seq_doc_median = 2000;
  s.stragglers.seq_doc_sigma = 1.5;
  const double imbalanced = step::evaluate_slowdown(s.stragglers, s.cluster, s.workload, r).cause("sequence_length");
  CHECK(imbalanced > 0.0);
  s.stragglers.seq_rebalance = true;
  CHECK(step::evaluate_slowdown(s.stragglers, s.cluster, s.workload, r).cause("sequence_length") == 0.0);
}

TEST_CASE("planned GC costs one pause per interval, unsynchronized GC on 16,384 ranks costs a pause nearly every iteration",
          "[unit][stragglers]") {
  Scenario s = config::load_scenario("");
  const StepResult r = evaluate_step(s.cluster, s.workload);
  s.stragglers.gc_pause = Seconds(0.3);
  s.stragglers.gc_interval_steps = 500;
  const double unsync = step::evaluate_slowdown(s.stragglers, s.cluster, s.workload, r).cause("gc_pauses");
  s.stragglers.gc_synchronized = true;
  const double sync = step::evaluate_slowdown(s.stragglers, s.cluster, s.workload, r).cause("gc_pauses");
  CHECK(unsync == Approx(0.3).epsilon(1e-6));  // 1 - (1 - 1/500)^16384 ~ 1
  CHECK(sync == Approx(0.3 / 500));
}

TEST_CASE("a fail-slow host of the compute kind stretches the compute, re-balancing recovers most of it", "[unit][stragglers]") {
  Scenario s = config::load_scenario("");
  const StepResult r = evaluate_step(s.cluster, s.workload);
  s.stragglers.fail_slow_rate_per_node = PerSecond(0.01 / 86400.0);
  s.stragglers.fail_slow_slowdown = 2.0;
  const auto sd = step::evaluate_slowdown(s.stragglers, s.cluster, s.workload, r);
  const double c = r.breakdown.compute.si() / r.iteration_time.si();
  CHECK(sd.fail_slow_factor == Approx(1.0 + c));
  // dp = 128 replicas: the slow one gets half the microbatches, 128 / 127.5 of the healthy pace.
  CHECK(sd.fail_slow_rebalanced_factor == Approx(1.0 + c * (128.0 / 127.5 - 1.0)));
  CHECK(sd.fail_slow_probability > 0.0);
  CHECK(sd.expected_factor > sd.steady_factor);
}
