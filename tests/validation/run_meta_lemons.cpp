// Kokolis et al. HPCA'25 Sec 5.1 (data/validation/stragglers_failslow.csv F35): after lemon-node
// detection the failure rate of 512+-GPU jobs fell from 14% to 4%. The lemon multiplier is fitted
// to the 14% (calibration, within 1 point); the 4% after the run model's retirement is judged
// within 2 points (sim/reproduce/kokolis_lemons.cpp).
#include <catch2/catch.hpp>

#include "sim/reproduce/run_sources.hpp"
#include "tests/validation/run_print.hpp"

TEST_CASE("lemon retirement takes RSC-1's 512-GPU job failures from 14% to 4% within 2 points", "[validation][run][lemon]") {
  fleetsim::test::check_run_cases(fleetsim::reproduce::meta_lemon_cases(20000));
}
