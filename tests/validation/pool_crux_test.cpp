// Crux's prevalence of inter-job link sharing (issue 28; Cao et al., SIGCOMM'24, Sec 2.2;
// fabric_interference.csv I01, I02) on scenarios/pool-crux-alibaba.yaml. The calibration / judged
// split is in sim/reproduce/pool_crux.cpp and the scenario's header.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include "sim/reproduce/pool_sources.hpp"

TEST_CASE("an Alibaba-like cluster: Crux's 36.3% of jobs / 51% of GPUs on a shared link, a known gap: today's error "
          "bounded, target 10 points (I01/I02)",
          "[validation][pool][interference]") {
  const auto c = fleetsim::reproduce::crux_reproduction();
  REQUIRE(c.replications == 4);
  REQUIRE(c.jobs > 3000);  // about 5,000 jobs in 14 days, as in Crux
  REQUIRE(c.cases.size() == 3);
  std::printf("pool-crux-alibaba (%zu replications, %.0f jobs each):\n", c.replications, c.jobs);
  for (const auto& v : c.cases)
    std::printf("  %-11s %-80s published %8.3f predicted %8.3f error %+7.3f%s (tolerance %.2f) %s\n",
                v.role == fleetsim::CaseRole::Calibration ? "calibration" : "judged", v.case_name.c_str(), v.published,
                v.predicted, v.error, v.error_is_absolute ? "" : " rel", v.tolerance, v.pass ? "met" : "NOT met");
  // The calibration's round trip: the offered load lands where it was computed to (within 15%).
  CHECK(c.cases[0].pass);
  // Judged, I01 and I02: target 10 points each (the cases' tolerance), NOT met today (topology
  // placement gives 0.6% of jobs, 4.2% of GPUs; sim/reproduce/pool_crux.cpp says why). The gate
  // bounds today's error so that it cannot grow unnoticed; tighten it when the gap closes.
  CHECK(c.cases[1].tolerance == 0.10);
  CHECK(c.cases[2].tolerance == 0.10);
  CHECK(std::abs(c.cases[1].error) < 0.37);
  CHECK(std::abs(c.cases[2].error) < 0.49);
}
