// V1: Llama 3 405B, 54 days on 16,384 H100 (Llama Team 2024, arXiv:2407.21783, §3.3.4 Table 5;
// data/validation/llama3_table5_interruptions.csv): 419 unexpected interruptions in Table 5's
// proportions, 47 planned, ETTR above 90% with recovery parameters from public sources.
#include <catch2/catch.hpp>

#include "sim/reproduce/run_sources.hpp"
#include "tests/validation/run_print.hpp"

TEST_CASE("Llama 3's 54 days on 16,384 H100 give 419 interruptions in Table 5's proportions and ETTR above 90%",
          "[validation][run]") {
  fleetsim::test::check_run_cases(fleetsim::reproduce::llama3_cases(200));
}
