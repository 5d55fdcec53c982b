// The lemon keys of a failure profile (issue 27): a part of failures.lemon_retirement given on its
// own keeps the rest (the preset's or the defaults), and the choices reach the run model's specs.
#include <catch2/catch.hpp>

#include "sim/config/load.hpp"

TEST_CASE("failures.lemon_retirement given in part keeps its other keys", "[config][lemon]") {
  const fleetsim::Scenario s = fleetsim::config::load_scenario(
      "", {"failures.lemon_model=per_node", "failures.lemon_retirement.after_failures=3",
           "failures.lemon_distribution=lognormal", "failures.lemon_sigma=1.5"});
  CHECK(s.failures.lemon_retirement.after_failures == 3);
  CHECK(s.failures.lemon_retirement.window.si() == Approx(7 * 86400.0));  // the default
  CHECK(s.failures.lemon_model == fleetsim::LemonModel::PerNode);
  CHECK(s.failures.lemon_distribution == fleetsim::LemonDistribution::Lognormal);
  CHECK(s.failures.lemon_sigma == Approx(1.5));
  const fleetsim::Scenario w = fleetsim::config::load_scenario(
      "", {"failures.lemon_model=per_node", "failures.lemon_retirement.window=3 d"});
  CHECK(w.failures.lemon_retirement.after_failures == 0);
  CHECK(w.failures.lemon_retirement.window.si() == Approx(3 * 86400.0));
}
