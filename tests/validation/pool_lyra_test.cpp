// Lyra-like co-location what-if (Li et al., EuroSys'23): the cases and their bounds are in
// sim/reproduce/pool_lyra.cpp. Checked: lending raises the pool's allocation, by no more than the
// paper's "up to 25%" plus 5 points, training waits less and its slowdown is lower, and the
// inference SLO still holds at least 95% of the service-time (reclaims give 5 minutes' notice).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>

#include "sim/reproduce/pool_sources.hpp"

TEST_CASE("tidal co-location raises a Lyra-like pool's usage by at most the paper's 25%, training waits less",
          "[validation][pool]") {
  const auto l = fleetsim::reproduce::lyra_reproduction();
  std::printf("Lyra-like co-location (8,192 GPUs, 40 services peaking at half the pool, trough 30%%):\n"
              "  allocation %.3f -> %.3f: %+.1f points, %+.1f%% relative (Lyra: cluster usage up to +25%%)\n"
              "  training queueing delay %.2f h -> %.2f h (%.2fx; Lyra: queuing 1.53x), slowdown %.2f -> %.2f "
              "(%.2fx; Lyra: JCT 1.48x)\n  inference SLO attainment with tidal co-location %.4f\n",
              l.alloc_none, l.alloc_tidal, 100 * (l.alloc_tidal - l.alloc_none), 100 * l.gain, l.delay_none_h,
              l.delay_tidal_h, l.delay_none_h / std::max(l.delay_tidal_h, 1e-9), l.slowdown_none, l.slowdown_tidal,
              l.slowdown_none / std::max(l.slowdown_tidal, 1e-9), l.slo_tidal);
  CHECK(l.gain > 0.0);
  CHECK(l.gain <= 0.30);
  CHECK(l.delay_tidal_h < l.delay_none_h);
  CHECK(l.slowdown_tidal < l.slowdown_none);
  CHECK(l.slo_tidal >= 0.95);
  REQUIRE(l.cases.size() == 4);
  for (const auto& c : l.cases) {
    INFO(c.metric << ": " << c.predicted << " vs " << c.published);
    CHECK(c.pass);
    CHECK(c.role == fleetsim::CaseRole::Judged);
    CHECK(c.scenario == "pool-lyra-colocation");
  }
}
