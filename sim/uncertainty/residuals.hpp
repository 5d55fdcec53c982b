// The step model's residuals on the judged published cases (sim/uncertainty/README.md): one row
// per judged step case of `fleetsim validate`, with what it shares with other predictions
// (features.hpp) and its error as the log of (true iteration time / predicted iteration time).
//
// The rows are computed from the cases (step_residuals), never typed in; the shipped table
// sim/uncertainty/data/step_residuals.csv caches them so `fleetsim step` does not re-run every
// published case. `fleetsim validate --only step --write-residuals FILE` regenerates it and
// tests/validation/uncertainty_test.cpp fails when the shipped table is stale.
#pragma once

#include <string>
#include <vector>

#include "sim/reproduce/case.hpp"
#include "sim/uncertainty/features.hpp"

namespace fleetsim::uncertainty {

struct StepResidual {
  std::string source;  // the published table (ValidationCase::source)
  std::string case_name;
  StepFeatures features;
  // log(T_true / T_predicted): for a time metric log(published / predicted); for a rate metric
  // (TFLOP/s, tokens/s, MFU: all proportional to 1 / T) log(predicted / published).
  double log_ratio = 0;
};

// Whether a case's metric is one of the step model's (iteration time or a rate proportional to
// 1 / iteration time) and the case is judged with a scenario to load.
[[nodiscard]] bool is_judged_step_case(const ValidationCase& c);
// The residual of one such case (loads its scenario for the features).
[[nodiscard]] StepResidual step_residual(const ValidationCase& c);
// The residuals of every judged step case among `cases` (others are skipped).
[[nodiscard]] std::vector<StepResidual> step_residuals(const std::vector<ValidationCase>& cases);

// The shipped table: <home>/sim/uncertainty/data/step_residuals.csv.
[[nodiscard]] std::string step_residuals_file();
// Reads the table (ConfigError naming the file and column when it is missing or corrupt); the
// result of the shipped table is cached per process.
[[nodiscard]] std::vector<StepResidual> read_step_residuals(const std::string& path);
[[nodiscard]] const std::vector<StepResidual>& shipped_step_residuals();
// Writes the table atomically (a temporary file renamed over the target).
void write_step_residuals(const std::string& path, const std::vector<StepResidual>& rows);

}  // namespace fleetsim::uncertainty
