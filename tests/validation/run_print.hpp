// Prints run-model validation cases, one line per case, and checks each against its tolerance.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/reproduce/case.hpp"

namespace fleetsim::test {

inline void check_run_cases(const std::vector<ValidationCase>& cases) {
  REQUIRE_FALSE(cases.empty());
  std::string source;
  for (const auto& c : cases) {
    if (c.source != source) std::printf("\n  source: %s\n", (source = c.source).c_str());
    std::printf("  %-4s %-52s %-58s published %9.4g  simulated %9.4g  error %+8.4f%s (tolerance %g%s)\n",
                c.pass ? "ok" : "FAIL", c.case_name.c_str(), c.metric.c_str(), c.published, c.predicted,
                c.error_is_absolute ? c.error : 100 * c.error, c.error_is_absolute ? "" : "%",
                c.error_is_absolute ? c.tolerance : 100 * c.tolerance, c.error_is_absolute ? "" : "%");
  }
  for (const auto& c : cases) {
    INFO(c.source << " | " << c.case_name << " | " << c.metric << ": published " << c.published
                  << ", simulated " << c.predicted);
    CHECK(c.pass);
  }
}

}  // namespace fleetsim::test
