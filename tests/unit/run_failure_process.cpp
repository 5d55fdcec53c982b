// Failure classes aggregated from a profile and the cluster shape (sim/run/failure_process.hpp).
#include <catch2/catch.hpp>

#include "sim/run/failure_process.hpp"
#include "sim/run/profiles.hpp"
#include "sim/run/rng.hpp"

using namespace fleetsim;
using namespace fleetsim::run;

namespace {
RunInputs cluster(int gpus) {
  RunInputs in;
  in.gpus = gpus;
  in.gpus_per_node = 8;
  in.gpus_per_leaf = 16;
  return in;
}
FailureComponent one(ComponentScope scope, double per_second, double shape = 1.0) {
  FailureComponent c;
  c.name.assign(1, 'x');  // (assigning a short literal trips GCC 12's -Wrestrict, PR105329)
  c.scope = scope;
  c.rate = PerSecond(per_second);
  c.weibull_shape = shape;
  return c;
}
}  // namespace

TEST_CASE("component counts come from the cluster shape", "[unit][run]") {
  const RunInputs in = cluster(16384);
  CHECK(component_count(ComponentScope::Gpu, in) == 16384);
  CHECK(component_count(ComponentScope::Node, in) == 2048);
  CHECK(component_count(ComponentScope::Nic, in) == 16384);
  CHECK(component_count(ComponentScope::LeafSwitch, in) == 1024);
  CHECK(component_count(ComponentScope::SpineSwitch, in) == 512);
  CHECK(component_count(ComponentScope::Link, in) == 16384);
  CHECK(component_count(ComponentScope::Job, in) == 1);
}

TEST_CASE("the llama3-h100 profile gives 419 interruptions in 54 days at 16,384 GPUs", "[unit][run]") {
  RunInputs in = cluster(16384);
  in.failures = builtin_profile("llama3-h100");
  const FailureModel m = build_failure_model(in);
  CHECK(m.total_rate * 54 * 86400 == Approx(419).epsilon(1e-9));
  CHECK(m.mtti().si() / 3600 == Approx(3.09).margin(0.01));  // research note §0: 3.09 h
}

TEST_CASE("a profile's rates hold at any cluster size: the MTTI scales as one over the GPUs", "[unit][run]") {
  RunInputs small = cluster(16384), large = cluster(131072);
  small.failures = large.failures = builtin_profile("llama3-h100");
  CHECK(build_failure_model(small).mtti().si() / build_failure_model(large).mtti().si() == Approx(8.0));
}

TEST_CASE("lemon nodes redistribute failures without changing the total rate", "[unit][run]") {
  RunInputs in = cluster(16384);
  in.failures.components = {one(ComponentScope::Node, 1e-6)};
  const double plain = build_failure_model(in).total_rate;
  in.failures.lemon_fraction = 0.015;
  in.failures.lemon_multiplier = 10;
  const FailureModel m = build_failure_model(in);
  REQUIRE(m.classes.size() == 2);
  CHECK(m.total_rate == Approx(plain));
  const double lemon_share = m.classes[1].total_rate() / m.total_rate;
  CHECK(lemon_share == Approx(0.15 / 1.135).epsilon(1e-6));  // f m / (1 - f + f m) ~ 13%
}

TEST_CASE("a correlated leaf-switch failure takes down every node below the switch", "[unit][run]") {
  RunInputs in = cluster(16384);
  in.gpus_per_leaf = 32;
  FailureComponent c = one(ComponentScope::LeafSwitch, 1e-7);
  c.correlated_node_loss = true;
  in.failures.components = {c};
  CHECK(build_failure_model(in).classes[0].nodes_lost == 4);
}

TEST_CASE("a failure fixed by a reset takes no node out of the job", "[unit][run]") {
  RunInputs in = cluster(16384);
  FailureComponent c = one(ComponentScope::Gpu, 1e-7);
  c.needs_repair = false;
  in.failures.components = {c};
  CHECK(build_failure_model(in).classes[0].nodes_lost == 0);
}

TEST_CASE("classes are picked in proportion to their rates", "[unit][run]") {
  RunInputs in = cluster(16384);
  in.failures.components = {one(ComponentScope::Gpu, 3e-8), one(ComponentScope::Gpu, 1e-8)};
  const FailureModel m = build_failure_model(in);
  Rng rng(1, 0, Stream::FailurePick);
  int first = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) first += pick_exponential(m, rng.uniform()) == 0;
  CHECK(first / static_cast<double>(n) == Approx(0.75).margin(0.01));
}

TEST_CASE("a Weibull class with shape one is a Poisson process", "[unit][run]") {
  RunInputs in = cluster(1024);
  in.failures.components = {one(ComponentScope::Gpu, 1e-6, 1.0)};
  const FailureClass c = build_failure_model(in).classes[0];
  CHECK(weibull_cumulative(c, 1000.0) == Approx(1024 * 1e-6 * 1000.0));
}

TEST_CASE("infant mortality front-loads failures and tends to the long-run rate", "[unit][run]") {
  RunInputs in = cluster(1024);
  in.failures.components = {one(ComponentScope::Gpu, 1e-6, 0.7)};
  const FailureClass c = build_failure_model(in).classes[0];
  const double early = weibull_cumulative(c, 3600.0);
  CHECK(early > 1024 * 1e-6 * 3600.0);  // more than the stationary count in the first hour
  const double t = 1e9;                  // ~30 years: stationary
  CHECK((weibull_cumulative(c, 2 * t) - weibull_cumulative(c, t)) / t == Approx(1024 * 1e-6).epsilon(0.01));
}

TEST_CASE("the next Weibull arrival solves the cumulative intensity", "[unit][run]") {
  RunInputs in = cluster(1024);
  in.failures.components = {one(ComponentScope::Gpu, 1e-6, 0.7)};
  const FailureClass c = build_failure_model(in).classes[0];
  const double next = weibull_next(c, 5000.0, 0.5);
  CHECK(weibull_cumulative(c, next) - weibull_cumulative(c, 5000.0) == Approx(0.5).epsilon(1e-3));
}

TEST_CASE("meta-rsc profiles give Kokolis' projected MTTF", "[unit][run]") {
  RunInputs in = cluster(16384);
  in.failures = builtin_profile("meta-rsc1");
  CHECK(build_failure_model(in).mtti().si() / 3600 == Approx(1.80).margin(0.01));
  in.failures = builtin_profile("meta-rsc2");
  CHECK(build_failure_model(in).mtti().si() / 3600 == Approx(5.0).margin(0.02));
}
