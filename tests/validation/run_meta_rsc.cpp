// V2: Meta RSC job MTTI versus size (Kokolis et al. HPCA'25, arXiv:2410.21680;
// data/validation/reliability_meta_rsc.csv): 1.8 h at 16,384 GPUs and 0.23 h at 131,072 GPUs
// with r_f = 6.50 failures per 1000 node-days, from the profile and measured in the simulation.
#include <catch2/catch.hpp>

#include "sim/reproduce/run_sources.hpp"
#include "tests/validation/run_print.hpp"

TEST_CASE("meta-rsc1 gives Kokolis' job MTTI of 1.8 h at 16k GPUs and 0.23 h at 131k GPUs", "[validation][run]") {
  fleetsim::test::check_run_cases(fleetsim::reproduce::meta_rsc_cases(100));
}
