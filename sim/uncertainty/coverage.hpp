// Coverage of the step model's intervals as a validation source (sim/uncertainty/README.md): for
// every judged step case, its interval estimated without its own source (leave-one-source-out),
// whether the published figure falls inside, and how wide the interval is.
#pragma once

#include <string>
#include <vector>

#include "sim/uncertainty/step_interval.hpp"

namespace fleetsim::uncertainty {

struct CaseCoverage {
  const StepResidual* row = nullptr;
  StepUncertainty interval;  // without row->source
  bool covered = false;
};

struct SourceCoverage {
  std::string source;  // "" = all judged step cases
  int cases = 0, covered = 0;
  double median_relative_half_width = 0;
  [[nodiscard]] double share() const { return cases ? static_cast<double>(covered) / cases : 0.0; }
};

struct CoverageReport {
  double level = 0.8;
  std::vector<CaseCoverage> cases;
  std::vector<SourceCoverage> sources;  // in the rows' order of first appearance
  SourceCoverage overall;
  // Median relative half-width of the cases graded calibrated (leave-one-source-out), and how many.
  double calibrated_median_relative_half_width = 0;
  int calibrated_cases = 0;
};

// Leave-one-source-out coverage of the level intervals over `rows`. With `parameter_half_widths`
// (one per row, case_parameter_half_widths), each interval gets the parameter term as a user's
// prediction does (add_parameter_term); empty = the model-form term alone.
[[nodiscard]] CoverageReport step_coverage(const std::vector<StepResidual>& rows, double level,
                                           const std::vector<double>& parameter_half_widths = {});

}  // namespace fleetsim::uncertainty
