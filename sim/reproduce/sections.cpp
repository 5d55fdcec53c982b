#include "sim/reproduce/sections.hpp"

namespace fleetsim::reproduce {

const std::vector<Section>& sections() {
  static const std::vector<Section> all = {
      {"step", step_validation_cases},
      {"run", run_validation_cases},
      {"facility", facility_validation_cases},
      {"pool", pool_validation_cases},
      {"stragglers", stragglers_validation_cases},
      {"serving", serving_validation_cases},
  };
  return all;
}

std::vector<ValidationCase> validation_cases(const std::string& only) {
  std::vector<ValidationCase> cases;
  for (const auto& s : sections()) {
    if (!only.empty() && only != s.name) continue;
    auto v = s.cases();
    cases.insert(cases.end(), v.begin(), v.end());
  }
  return cases;
}

}  // namespace fleetsim::reproduce
