// The step model's fitted GPU parameters as refittable objects (sim/uncertainty/README.md,
// "Parameter uncertainty"): for each parameter that a calibrator (scripts/calibrate,
// bench/calibrate_*.cpp) fits on calibration rows, the rows, the physical bounds and the fit
// itself with a weight per row, so that a bootstrap (parameter_bootstrap.hpp) can refit it on
// resampled rows. The objective and bounds are the calibrators' (mean absolute relative error of
// the published metric, inside the bounds printed by the calibrator with their sources).
//
// Families (one refit each; the parameters of a family are fitted jointly):
//   a100-vtrain  gemm_half_efficiency_work, hbm_efficiency, kernel_launch_overhead on the 1,440
//                vTrain single-node A100 iterations (`scripts/calibrate --physical --fixed-gemm 0.795`;
//                gemm_efficiency held at its measured 0.795, not fitted)
//   h100-fp8     gemm_efficiency_fp8 on the NeMo DGX-H100 rows <= 16 GPUs and the DGX Cloud FP8 calibration rows (`--gpu h100`)
//   b200-fp8     gemm_efficiency_fp8 on the NeMo DGX-B200 rows <= 16 GPUs (`--gpu b200`)
//   gb300-fp8    gemm_efficiency_fp8 on the NeMo DGX-GB300 rows <= 16 GPUs (`--gpu gb300`)
// Not refittable by resampling (README): unfused_attention_hbm_efficiency (two difference pairs of
// one Korthikanti table) and fp8_blockwise_gemm_ratio (one pair): a resample of one or two rows
// says nothing about their spread.
#pragma once

#include <string>
#include <vector>

#include "sim/hardware/specs.hpp"
#include "sim/reproduce/step_case.hpp"

namespace fleetsim::uncertainty {

struct FittedParameter {
  std::string name;  // the GPU preset key, e.g. "gemm_efficiency_fp8"
  double lo = 0, hi = 0;  // physical bounds (the calibrator's, with its sources)
  bool log_scale = false;  // searched in log10 (a size or a time spanning decades)
  std::string bound_source;  // where the bounds come from (printed by the calibrator)
  [[nodiscard]] double get(const GpuSpec& g) const;
  void set(GpuSpec& g, double v) const;
};

struct CalibrationFamily {
  std::string id;          // "h100-fp8"
  std::string calibrator;  // the command that fits it
  std::string rows_what;   // which calibration rows, in words
  std::vector<FittedParameter> params;
  std::vector<reproduce::StepCase> rows;  // the calibration rows (never judged rows)
  // The values the catalog preset carries (the first row's GPU): the fit a scenario inherits.
  [[nodiscard]] std::vector<double> preset() const;
};

// Every family above, its rows loaded from data/validation (about 1 s: 1,448 scenarios).
[[nodiscard]] std::vector<CalibrationFamily> calibration_families();
// One family by id (std::invalid_argument for an unknown id).
[[nodiscard]] CalibrationFamily calibration_family(const std::string& id);

// Mean absolute relative error of the rows' published metric at parameter values x, each row
// counted `weight[i]` times (weight empty = 1 each; a bootstrap resample's multiplicities).
[[nodiscard]] double calibration_error(const CalibrationFamily& f, const std::vector<double>& x,
                                       const std::vector<double>& weight = {});
// The values minimizing calibration_error inside the bounds, started from `start` (the preset).
// One parameter: a 41-point grid over the bounds, then golden-section search around the best
// point (the objective is piecewise smooth in one variable; deterministic). Several: bounded
// Nelder-Mead as the calibrator runs it (bench/calibrate_a100.cpp), from the start and restarted
// once; `near_minimum` (a bootstrap resample started at the all-rows fit): a smaller first simplex,
// not moved off a bound. Deterministic: no random starts.
[[nodiscard]] std::vector<double> fit_family(const CalibrationFamily& f, const std::vector<double>& start,
                                             const std::vector<double>& weight = {}, bool near_minimum = false);

}  // namespace fleetsim::uncertainty
