// Intervals and provenance beside the headline numbers of a command's output (DESIGN.md §5:
// `<key>_interval: {lo, hi, level}` next to the key, one `provenance: {grade, why, sources}` per
// section). The commands (sim/app) call these; the models never do.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/results/json.hpp"
#include "sim/scenario.hpp"
#include "sim/uncertainty/step_interval.hpp"

namespace fleetsim::uncertainty {

struct Interval {
  double lo = 0, hi = 0, level = 0.8;
};

// Throws ConfigError naming `key` unless 0 < level < 1.
void check_level(double level, const std::string& key);

// The step prediction's grade and interval: the model-form term from the shipped residual table,
// and the parameter term from the shipped bootstrap draws (parameter_bootstrap.hpp), added where
// adds_parameter_term(grade) says.
[[nodiscard]] StepUncertainty scenario_step_uncertainty(const Scenario& s, double level);
// Model-form intervals of the step headline numbers: time scales by [lo, hi], rates by [1/hi, 1/lo].
[[nodiscard]] Interval time_interval(double predicted, const StepUncertainty& u);
[[nodiscard]] Interval rate_interval(double predicted, const StepUncertainty& u);

// The central `level` range of Monte-Carlo samples (quantiles (1-level)/2 and (1+level)/2,
// linear interpolation between order statistics).
[[nodiscard]] Interval sample_interval(std::vector<double> samples, double level);
// A Monte-Carlo interval widened by the step model's error for a quantity proportional to the
// iteration time (wall-clock of a fixed token budget) or to its inverse (tokens in a fixed
// duration; the step interval is symmetric in log T, so both read the same): the two log
// half-widths add in quadrature about the interval's geometric middle (independent errors,
// first-order propagation; README, "Run intervals").
[[nodiscard]] Interval combine_with_step(const Interval& mc, const StepUncertainty& u);

[[nodiscard]] Json interval_json(const Interval& i);
[[nodiscard]] Json provenance_json(const Provenance& p);
// The interval's two terms and the fitted parameters behind the second: {level,
// model_form_half_width, parameter_half_width (both log T), parameter_term_added, fitted: [{family,
// parameter, value, lo, hi, rows, draws}]}.
[[nodiscard]] Json parameters_json(const StepUncertainty& u);
// A copy of the object `obj` with `<key>_interval` inserted right after each key of `intervals`
// that it holds (the other keys keep their order).
[[nodiscard]] Json with_intervals(const Json& obj, const std::map<std::string, Interval>& intervals);

}  // namespace fleetsim::uncertainty
