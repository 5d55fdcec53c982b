// Analytic ETTR estimators (sim/run/ettr_estimators.hpp).
#include <catch2/catch.hpp>

#include "sim/run/ettr_estimators.hpp"

using namespace fleetsim;
using namespace fleetsim::run;
using units::hours;
using units::minutes;

TEST_CASE("Meta's closed form reproduces Kokolis' 16k-GPU examples", "[unit][run]") {
  // Kokolis et al. HPCA'25: r_f = 6.5 per 1000 node-days, u0 = 5 min, non-blocking writes:
  // ~0.68-0.70 at a 60-min interval and 0.93 at 5 min (research note §7 V2).
  const PerSecond rf(6.5e-3 / 86400);
  CHECK(meta_expected_ettr(2048, rf, minutes(5), minutes(60), Seconds(0)) == Approx(0.68).margin(0.01));
  CHECK(meta_expected_ettr(2048, rf, minutes(5), minutes(5), Seconds(0)) == Approx(0.93).margin(0.005));
}

TEST_CASE("the Markov model converges to Daly's exact model with many stages", "[unit][run]") {
  const Seconds m = hours(3), tau = minutes(30), d = minutes(1), r = minutes(10);
  const double exact = daly_ettr(m, tau, d, r);
  CHECK(markov_ettr({m, tau, d, r, 800, 200}) == Approx(exact).margin(2e-3));
}

TEST_CASE("with exponential phases the Markov model has a closed form", "[unit][run]") {
  // One stage per cycle (rate c = 1/tau) and per restart (rate r): pi_C = r / (r + lambda) over the
  // cycle-restart alternation, and a cycle completes at rate c before a failure (rate lambda):
  // ETTR = tau * c * pi_C = r / (r + lambda).
  const Seconds m = hours(3), tau = minutes(30), r = minutes(10);
  const double lambda = 1.0 / m.si(), mu = 1.0 / r.si();
  CHECK(markov_ettr({m, tau, minutes(0), r, 1, 1}) == Approx(mu / (mu + lambda)).epsilon(1e-9));
}

TEST_CASE("checkpointing more often helps until the stalls dominate", "[unit][run]") {
  const Seconds m = hours(2), d = minutes(1), r = minutes(5);
  const double too_rare = daly_ettr(m, hours(2), d, r);
  const double good = daly_ettr(m, minutes(15), d, r);
  const double too_often = daly_ettr(m, minutes(1), d, r);
  CHECK(good > too_rare);
  CHECK(good > too_often);
}
