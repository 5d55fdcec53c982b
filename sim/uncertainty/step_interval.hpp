// Provenance grade and model-form interval of a step prediction (sim/uncertainty/README.md).
//
// The grade says how the scenario relates to the judged published cases (residuals.hpp):
//   calibrated   - at least kMinGroup judged cases on the same GPU, precision and regime, and the
//                  scenario's GPU count and model size inside their range;
//   extrapolated - such a group exists but the GPU count or model size lies outside its range;
//   transferred  - judged cases on this GPU, but too few in this precision and regime;
//   uncalibrated - no judged case on this GPU at all.
// The interval is split conformal (Lei et al. 2018) on the log residuals of the group that grades
// it: half-width = the ceil((n+1) level)-th smallest |log(T_true / T_pred)|, widened (widening())
// for every grade but calibrated; symmetric in log(T) about the prediction.
#pragma once

#include <string>
#include <vector>

#include "sim/uncertainty/residuals.hpp"

namespace fleetsim::uncertainty {

enum class Grade { Calibrated, Transferred, Extrapolated, Uncalibrated };
[[nodiscard]] const char* grade_name(Grade g);

struct Provenance {
  Grade grade = Grade::Uncalibrated;
  std::string why;                   // one line
  std::vector<std::string> sources;  // the published tables whose residuals judge it
};

// Smallest group whose residuals grade a prediction calibrated (and below which a group is not
// used on its own): 4 is the least n at which the 80% conformal rank ceil((n+1) 0.8) is <= n.
inline constexpr int kMinGroup = 4;
// Widening of the half-width for a prediction outside its group's reach, by grade. A priori
// choices, not fitted: transferred and extrapolated x1.5, uncalibrated x2 (README, "Widening").
[[nodiscard]] double widening(Grade g);

// One fitted parameter's bootstrap spread as a scenario inherits it (parameter_bootstrap.hpp).
struct ParameterSpread {
  std::string family;     // "h100-fp8"
  std::string name;       // "gemm_efficiency_fp8"
  double value = 0;       // the scenario's value
  double lo = 0, hi = 0;  // central `level` range of its bootstrap draws
  int rows = 0, draws = 0;  // calibration rows resampled, refits
};

struct StepUncertainty {
  Provenance provenance;
  double level = 0.8;
  double half_width = 0;  // in log(T) space, after widening (and the parameter term, when added)
  double model_half_width = 0;      // the conformal term alone (log T)
  double parameter_half_width = 0;  // the bootstrap term alone (log T; 0 when no fitted parameter applies)
  bool parameter_term_added = false;  // whether half_width includes it (add_parameter_term)
  std::vector<ParameterSpread> parameters;
  int residuals = 0;      // how many residuals it was estimated from
  // Multiplicative bounds on the predicted iteration time: T_true in [T lo, T hi] at `level`.
  [[nodiscard]] double time_lo() const;
  [[nodiscard]] double time_hi() const;
  // The interval's half-width relative to the prediction: (hi - lo) / 2.
  [[nodiscard]] double relative_half_width() const { return (time_hi() - time_lo()) / 2; }
  // Whether a case's residual falls inside.
  [[nodiscard]] bool covers(double log_ratio) const;
};

// Grades and sizes the interval of a prediction with features `f` from `rows`, leaving out every
// row of `exclude_source` (leave-one-source-out: a source never vouches for itself). Throws
// std::invalid_argument when level is not in (0, 1).
[[nodiscard]] StepUncertainty step_uncertainty(const StepFeatures& f, const std::vector<StepResidual>& rows,
                                               double level, const std::string& exclude_source = "");

// How the parameter term enters the interval (README, "Parameter uncertainty"; chosen by the
// coverage measured there): the judged residuals of a `calibrated` group already hold the error
// of the fitted values on that group, so adding the bootstrap term there would count it twice;
// for the other grades the residuals come from other GPUs, precisions or ranges whose fit is not
// this one, and the term is added in quadrature (independent errors, first order).
[[nodiscard]] bool adds_parameter_term(Grade g);
// u with the parameter term recorded (h_param, the spreads) and, where adds_parameter_term,
// half_width = sqrt(half_width^2 + h_param^2).
[[nodiscard]] StepUncertainty add_parameter_term(StepUncertainty u, double h_param,
                                                 std::vector<ParameterSpread> parameters = {});

}  // namespace fleetsim::uncertainty
