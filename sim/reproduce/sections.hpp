// The sections of `fleetsim validate`: each a list of published sources in printed order, one per
// model the cases judge. A new source adds its call to one of the *_section.cpp lists.
#pragma once

#include <string>
#include <vector>

#include "sim/reproduce/case.hpp"

namespace fleetsim::reproduce {

std::vector<ValidationCase> step_validation_cases();      // step_section.cpp
std::vector<ValidationCase> run_validation_cases();       // run_section.cpp
std::vector<ValidationCase> facility_validation_cases();  // facility_sources.cpp
std::vector<ValidationCase> pool_validation_cases();      // pool_section.cpp
std::vector<ValidationCase> stragglers_validation_cases(); // stragglers_bytedance.cpp
std::vector<ValidationCase> serving_validation_cases();   // serving_trtllm.cpp

// DeepSeek-V3's GPU-hours (run-level, and the step-only figure beside it) at the 10%
// target, then the NeMo MoE rows on DGX-H100 and DGX-B200 at 15% per row, each table followed by
// its mean absolute error (the tail of the step section).
[[nodiscard]] std::vector<ValidationCase> moe_validation_cases();

struct Section {
  const char* name;  // the value of `fleetsim validate --only`
  std::vector<ValidationCase> (*cases)();
};
// step, run, facility, pool, stragglers: the order `fleetsim validate` prints them in (new
// sections last, so the others print as they did before them).
[[nodiscard]] const std::vector<Section>& sections();
// The cases of every section, or of the one named `only` ("" for all).
[[nodiscard]] std::vector<ValidationCase> validation_cases(const std::string& only);

}  // namespace fleetsim::reproduce
