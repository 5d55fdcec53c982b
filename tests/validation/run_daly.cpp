// V3: Daly's optimum checkpoint interval (Daly, FGCS 22(3):303-312, 2006, Figs. 3-5: dump 5 min,
// restart 10 min, M = 24 h, 6 h, 15 min -> 117, 57, 9.1 min): the closed form to +-0.5 min and the
// interval that minimises wall-clock in a sweep of the simulation to +-10%.
#include <catch2/catch.hpp>

#include "sim/reproduce/run_sources.hpp"
#include "tests/validation/run_print.hpp"

TEST_CASE("Daly's optimum interval is reproduced in closed form and by a sweep of the simulation",
          "[validation][run][slow]") {
  fleetsim::test::check_run_cases(fleetsim::reproduce::daly_cases(400));
}
