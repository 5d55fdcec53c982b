// ETTR of the simulation against Meta's closed form (Kokolis et al. HPCA'25, arXiv:2410.21680:
// E[ETTR] ~ (1 - N r_f (u0 + dt/2)) / (1 + w/dt), within 2 points where its small-loss assumption
// holds) and against a Markov model of the job's states solved with Eigen (within 1 point).
#include <catch2/catch.hpp>

#include "sim/reproduce/run_sources.hpp"
#include "tests/validation/run_print.hpp"

TEST_CASE("the simulated ETTR agrees with Meta's closed form and with a Markov model of the job", "[validation][run]") {
  fleetsim::test::check_run_cases(fleetsim::reproduce::ettr_estimator_cases(100));
}
