// Coverage of the step model's intervals as a validation source (issue 25; sim/uncertainty/README.md):
// every judged step case of `fleetsim validate`, its 80% interval estimated leave-one-source-out,
// whether the published figure falls inside. Computed from the cases (not from the shipped table)
// so that a change to the step model is judged by its own residuals. Also checks that the shipped
// residual table is current.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/reproduce/sections.hpp"
#include "sim/uncertainty/coverage.hpp"
#include "sim/uncertainty/parameter_bootstrap.hpp"

using namespace fleetsim;
using namespace fleetsim::uncertainty;

namespace {

const std::vector<ValidationCase>& step_cases() {
  static const std::vector<ValidationCase> cases = reproduce::step_validation_cases();
  return cases;
}

const std::vector<StepResidual>& fresh_residuals() {
  static const std::vector<StepResidual> rows = step_residuals(step_cases());
  return rows;
}

// The parameter term of each judged case (the shipped bootstrap draws re-evaluated on its scenario).
const std::vector<double>& parameter_terms() {
  static const std::vector<double> h = case_parameter_half_widths(step_cases(), shipped_parameter_draws(), 0.8);
  return h;
}

void print_summary(const char* what, const CoverageReport& c) {
  std::printf("  %s: %d cases, %.1f%% inside, median half-width %.1f%%; calibrated: %d cases, median %.1f%%\n", what,
              c.overall.cases, 100 * c.overall.share(), 100 * c.overall.median_relative_half_width, c.calibrated_cases,
              100 * c.calibrated_median_relative_half_width);
}

}  // namespace

TEST_CASE("leave-one-source-out coverage of 80% step intervals is 70-90%, calibrated median half-width <= 10%",
          "[validation][uncertainty]") {
  const auto& rows = fresh_residuals();
  REQUIRE(rows.size() >= 20);
  // What `fleetsim step` shows: the model-form term and, outside the calibrated grade, the fitted
  // parameters' bootstrap term (sim/uncertainty/README.md, "Parameter uncertainty").
  REQUIRE(parameter_terms().size() == rows.size());
  const CoverageReport c = step_coverage(rows, 0.8, parameter_terms());
  for (const auto& s : c.sources) {
    // The largest parameter term of the source's cases (log T; the bootstrap of the fit its GPU carries).
    double h_max = 0;
    for (size_t i = 0; i < rows.size(); ++i)
      if (rows[i].source == s.source) h_max = std::max(h_max, parameter_terms()[i]);
    std::printf("  %-45.45s %4d cases  %5.1f%% inside  median half-width %5.1f%%  largest parameter term %4.1f%%\n",
                s.source.c_str(), s.cases, 100 * s.share(), 100 * s.median_relative_half_width,
                100 * (std::exp(h_max) - 1));
  }
  print_summary("model-form term only", step_coverage(rows, 0.8));
  print_summary("with the parameter term (shown)", c);
  {
    // The alternative not taken: the parameter term in quadrature for every grade, calibrated too.
    CoverageReport all = step_coverage(rows, 0.8);
    int inside = 0, with_term = 0;
    std::vector<double> cal;
    for (size_t i = 0; i < all.cases.size(); ++i) {
      const double h = std::hypot(all.cases[i].interval.half_width, parameter_terms()[i]);
      inside += std::fabs(rows[i].log_ratio) <= h ? 1 : 0;
      with_term += parameter_terms()[i] > 0 ? 1 : 0;
      if (all.cases[i].interval.provenance.grade == Grade::Calibrated) cal.push_back(std::exp(h) - std::exp(-h));
    }
    std::sort(cal.begin(), cal.end());
    std::printf("  term added for every grade: %.1f%% inside; calibrated median half-width %.1f%%; %d of %zu cases "
                "carry a nonzero parameter term\n",
                100.0 * inside / static_cast<double>(rows.size()), cal.empty() ? 0.0 : 50 * cal[cal.size() / 2],
                with_term, rows.size());
  }
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
