// Lyra-like co-location what-if (Li et al., EuroSys'23; published_stats.csv: "capacity loaning
// gains ... cluster usage up to +25%", JCT 1.48x, queuing 1.53x): the same pool and job streams
// without co-location and with tidal co-location (scenarios/pool-lyra-colocation.yaml). Checked:
// lending raises the pool's allocation, by no more than the paper's "up to 25%" plus 5 points
// (an upper bound: Lyra's figure is the best case of its traces), training waits less, and the
// inference SLO still holds at least 95% of the service-time (reclaims give 5 minutes' notice).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>

#include "sim/config/load.hpp"
#include "sim/pool/pool_model.hpp"
#include "tests/test_paths.hpp"

TEST_CASE("tidal co-location raises a Lyra-like pool's usage by at most the paper's 25%, training waits less",
          "[validation][pool]") {
  const std::string file = fleetsim::testing::source_dir() + "/scenarios/pool-lyra-colocation.yaml";
  const auto none = fleetsim::pool::simulate_pool(fleetsim::config::load_scenario(file, {"pool.colocation=none"}));
  const auto tidal = fleetsim::pool::simulate_pool(fleetsim::config::load_scenario(file, {"pool.colocation=tidal"}));
  auto mean_delay = [](const fleetsim::pool::PoolResult& r) {
    double s = 0, n = 0;
    for (const auto& rep : r.replications)
      for (float x : rep.queue_delay_h[0]) s += x, n += 1;
    return n > 0 ? s / n : 0.0;
  };
  auto mean_slowdown = [](const fleetsim::pool::PoolResult& r) {
    double s = 0, n = 0;
    for (const auto& rep : r.replications)
      for (float x : rep.slowdown[0]) s += x, n += 1;
    return n > 0 ? s / n : 0.0;
  };
  const double a0 = none.allocation_share().mean, a1 = tidal.allocation_share().mean;
  double slo = 1;
  for (const auto& rep : tidal.replications) slo = std::min(slo, rep.slo_attainment);
  const double gain = a1 / a0 - 1.0;
  std::printf("Lyra-like co-location (8,192 GPUs, 40 services peaking at half the pool, trough 30%%):\n"
              "  allocation %.3f -> %.3f: %+.1f points, %+.1f%% relative (Lyra: cluster usage up to +25%%)\n"
              "  training queueing delay %.2f h -> %.2f h (%.2fx; Lyra: queuing 1.53x), slowdown %.2f -> %.2f "
              "(%.2fx; Lyra: JCT 1.48x)\n  inference SLO attainment with tidal co-location %.4f\n",
              a0, a1, 100 * (a1 - a0), 100 * gain, mean_delay(none), mean_delay(tidal),
              mean_delay(none) / std::max(mean_delay(tidal), 1e-9), mean_slowdown(none), mean_slowdown(tidal),
              mean_slowdown(none) / std::max(mean_slowdown(tidal), 1e-9), slo);
  CHECK(gain > 0.0);
  CHECK(gain <= 0.30);
  CHECK(mean_delay(tidal) < mean_delay(none));
  CHECK(slo >= 0.95);
}
