// Coverage of the step model's intervals as a validation source (issue 25; sim/uncertainty/README.md):
// every judged step case of `fleetsim validate`, its 80% interval estimated leave-one-source-out,
// whether the published figure falls inside. Computed from the cases (not from the shipped table)
// so that a change to the step model is judged by its own residuals. Also checks that the shipped
// residual table is current.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include "sim/reproduce/sections.hpp"
#include "sim/uncertainty/coverage.hpp"

using namespace fleetsim;
using namespace fleetsim::uncertainty;

namespace {

const std::vector<StepResidual>& fresh_residuals() {
  static const std::vector<StepResidual> rows = step_residuals(reproduce::step_validation_cases());
  return rows;
}

}  // namespace

TEST_CASE("leave-one-source-out coverage of 80% step intervals is 70-90%; calibrated median half-width <= 10%",
          "[validation][uncertainty]") {
  const auto& rows = fresh_residuals();
  REQUIRE(rows.size() >= 20);
  const CoverageReport c = step_coverage(rows, 0.8);
  for (const auto& s : c.sources)
    std::printf("  %-45.45s %4d cases  %5.1f%% inside  median half-width %5.1f%%\n", s.source.c_str(), s.cases,
                100 * s.share(), 100 * s.median_relative_half_width);
  std::printf("  all: %d cases, %.1f%% inside, median half-width %.1f%%; calibrated: %d cases, median %.1f%%\n",
              c.overall.cases, 100 * c.overall.share(), 100 * c.overall.median_relative_half_width,
              c.calibrated_cases, 100 * c.calibrated_median_relative_half_width);
  CHECK(c.overall.share() >= 0.70);
  CHECK(c.overall.share() <= 0.90);
  REQUIRE(c.calibrated_cases > 0);
  CHECK(c.calibrated_median_relative_half_width <= 0.10);
}

TEST_CASE("the shipped step residual table is the one the published cases give today", "[validation][uncertainty]") {
  const auto& fresh = fresh_residuals();
  const auto shipped = read_step_residuals(step_residuals_file());
  INFO("stale: regenerate with `fleetsim validate --only step --write-residuals sim/uncertainty/data/step_residuals.csv`");
  REQUIRE(shipped.size() == fresh.size());
  for (size_t i = 0; i < fresh.size(); ++i) {
    INFO(fresh[i].source << " / " << fresh[i].case_name);
    CHECK(shipped[i].source == fresh[i].source);
    CHECK(shipped[i].case_name == fresh[i].case_name);
    CHECK(shipped[i].features.gpu == fresh[i].features.gpu);
    CHECK(shipped[i].features.precision == fresh[i].features.precision);
    CHECK(shipped[i].features.regime == fresh[i].features.regime);
    CHECK(shipped[i].features.gpus == fresh[i].features.gpus);
    CHECK(shipped[i].features.params_b == Approx(fresh[i].features.params_b).epsilon(1e-12));
    CHECK(shipped[i].log_ratio == Approx(fresh[i].log_ratio).margin(1e-12));
  }
}
