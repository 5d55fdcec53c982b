// A user's measured runs (sim/calibrate/README.md, "Measurements CSV"): one run per row; every
// column but the measured one is a scenario key exactly as `--set` takes it; the measured column
// is one of step_time_s, tokens_per_s_per_gpu, mfu; an optional `role` column (calibration |
// judged) keeps rows out of the fit. Lines starting with '#' are comments (a fixture's source).
// Each row is the base scenario with its columns as overrides, resolved and checked here, so a
// bad row is refused (exit 2, naming the file, the row's line and the column) before any fit.
#pragma once

#include <string>
#include <vector>

#include "sim/scenario.hpp"

namespace fleetsim::calibrate {

enum class Measured { StepTime, TokensPerGpuSecond, Mfu };
[[nodiscard]] const char* measured_name(Measured m);

struct MeasuredRow {
  int number = 0;   // 1-based data row
  int line = 0;     // line in the file
  std::vector<std::string> sets;  // "key=value", one per scenario column
  double measured = 0;            // the measured column's value, in its own unit
  double measured_time_s = 0;     // the same as an iteration time (tokens and MFU at fixed work are 1/T)
  bool judged = false;            // role = judged: never fitted
  Scenario scenario;              // base + sets
  double params_b = 0;            // model parameters, billions (the measured range)
};

struct Measurements {
  std::string path;
  std::string base;                  // the base scenario ("" = the default one)
  std::vector<std::string> columns;  // the scenario columns, in file order
  Measured metric = Measured::StepTime;
  std::vector<MeasuredRow> rows;
  [[nodiscard]] int calibration_rows() const;
  [[nodiscard]] int judged_rows() const;
};

inline constexpr int kMaxMeasuredRows = 100000;

// Reads and resolves every row. Throws ConfigError (exit 2) naming path, line and column for an
// unknown key as a column, no or two measured columns, a measured value <= 0 or not a number, a
// role other than calibration/judged, a row whose layout does not divide or cannot run, a
// truncated row, an empty file, or no calibration row.
[[nodiscard]] Measurements read_measurements(const std::string& path, const std::string& base);

}  // namespace fleetsim::calibrate
