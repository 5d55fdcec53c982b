// Fitting a software stack's efficiencies to a user's measured runs (sim/calibrate/README.md):
// which parameters the rows identify (the Jacobian's sensitivity and conditioning), a bounded
// least-squares fit on the log error, a bootstrap of the fitted values, and an error judged on
// rows the fit did not see (leave-one-out, or k-fold on many rows) — the figure a user reads
// before trusting the file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/calibrate/measurements.hpp"
#include "sim/calibrate/parameters.hpp"

namespace fleetsim::calibrate {

struct FitOptions {
  std::vector<std::string> fit;  // parameters asked for (--fit); empty = every one the rows may identify
  int draws = 200;               // bootstrap resamples
  std::uint64_t seed = 37;       // their stream
  double level = 0.8;            // of the bootstrap ranges and the prediction interval
  // Parameters already fitted elsewhere (profiler traces: trace_fit.hpp), applied to every row
  // and not refitted on the CSV rows.
  std::vector<std::pair<std::string, double>> fixed;
};

enum class ParameterStatus { Fitted, NotExercised, Collinear, TooFewRows, SetByColumn, Unset, NotAsked, FromTraces };
[[nodiscard]] const char* status_name(ParameterStatus s);

struct ParameterFit {
  StackParameter p;
  ParameterStatus status = ParameterStatus::Unset;
  std::string why;          // for a parameter left at the preset: the reason, in words
  double preset = 0;        // the base scenario's value
  double value = 0;         // fitted (= preset when not fitted)
  double lo = 0, hi = 0;    // central `level` range of the bootstrap refits (= value when not fitted)
  double sensitivity = 0;   // RMS over calibration rows of d log T / d log value at the preset
  bool at_bound = false;    // the fit ended on a physical bound
};

struct RowFit {
  double measured_s = 0;    // the measured value as an iteration time
  double preset_s = 0;      // predicted with the preset
  double fitted_s = 0;      // predicted with the fit on every calibration row
  double held_out_s = 0;    // calibration rows: predicted by the fit of the fold that left it out; judged: = fitted_s
  [[nodiscard]] double error_preset() const { return preset_s / measured_s - 1; }
  [[nodiscard]] double error_fitted() const { return fitted_s / measured_s - 1; }
  [[nodiscard]] double error_held_out() const { return held_out_s / measured_s - 1; }
};

struct Calibration {
  std::vector<ParameterFit> parameters;  // every candidate, fitted or not
  std::vector<RowFit> rows;              // one per measured row, in file order
  std::string cross_validation;          // "leave-one-out" or "5-fold"
  int folds = 0;
  double condition_number = 0;           // of the column-scaled Jacobian of the fitted parameters
  int min_rows = 0;                      // calibration rows the fitted set needs
  std::string bootstrap_method;          // "refit" or "linearized"
  int draws = 0;
  double level = 0.8;
  long long evaluations = 0;             // step-model evaluations spent
  // Mean |relative error| of iteration time over calibration rows (preset, fit, held out) and judged rows.
  double calibration_preset = 0, calibration_fitted = 0, calibration_held_out = 0;
  double judged_preset = 0, judged_fitted = 0;
  int calibration_count = 0, judged_count = 0;
  // Split-conformal half-width in log T of a prediction made with the fit (step_interval.hpp's
  // rule on the held-out residuals); < 0 when too few residuals for `level`.
  double interval_half_width = -1;
  [[nodiscard]] int fitted_count() const;
};

// Fits the rows' stack. Throws ConfigError (exit 2) naming `--fit` for an unknown parameter or
// MEASUREMENTS.csv when the calibration rows are fewer than the asked parameters need (naming the
// minimum) or span more than one GPU type.
[[nodiscard]] Calibration calibrate(const Measurements& m, const FitOptions& o);


}  // namespace fleetsim::calibrate
