// Propagating the inputs a scenario declares uncertain ({value, range} or a distribution; issue
// 25, sim/config/declared_inputs.hpp) by sampling (sim/uncertainty/README.md, "Declared inputs").
//
// Draw i of input k is the inverse CDF of its distribution (truncated to its range or the key's
// bounds) at a uniform from the stream (run.seed, i, DeclaredInputBase + k) (sim/run/rng.hpp): the
// same draw for `step`'s draw i and `run`'s replication i, independent of thread count.
//   step: N draws (default 1000) re-evaluate the iteration; the central `level` range of the drawn
//         times is the inputs' spread, combined with the model-form interval by adding the two log
//         half-widths in quadrature about the drawn range's geometric middle (combine_with_step);
//         each input's share from one-at-a-time draws.
//   run:  replication i runs on draw i (PipelineOptions::replication_scenario), so the ETTR and
//         run intervals over the replications include the inputs.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/config/declared_inputs.hpp"
#include "sim/scenario.hpp"
#include "sim/step/step_model.hpp"
#include "sim/uncertainty/annotate.hpp"

namespace fleetsim::uncertainty {

inline constexpr int kDefaultInputDraws = 1000;

// The value of a declared input at cumulative probability u in (0, 1): the inverse CDF of its
// distribution truncated to [spec.lo, spec.hi] (`value` is the mean, median or mode).
[[nodiscard]] double input_quantile(const config::UncertainSpec& spec, double value, double u);

// Draw `index` of every declared input; with only >= 0, input `only` drawn and the others at
// their values (one at a time).
[[nodiscard]] std::vector<double> draw_inputs(const config::DeclaredInputs& d, std::uint64_t seed, int index,
                                              int only = -1);
// The scenario of draw (or replication) `index`: `s` itself when it declares nothing.
[[nodiscard]] Scenario drawn_scenario(const Scenario& s, int index, int only = -1);

struct InputContribution {
  std::string key, shown;
  Interval iteration_time;  // this input drawn alone (the others at their values)
  double share = 0;         // of the combined log half-width squared (with the model-form part)
};

struct StepInputSpread {
  int draws = 0, infeasible = 0;  // draws that did not fit in memory are left out
  std::uint64_t seed = 0;
  Interval iteration_time, mfu;   // the inputs alone: central `level` range of the draws
  Interval combined_time, combined_mfu;  // with the model-form interval (quadrature of log half-widths)
  double model_form_share = 0;    // the model-form error's share of the combined half-width squared
  std::vector<InputContribution> inputs;
};

// Evaluates one scenario's iteration (the command's tier); throws InfeasibleError when it does not fit.
using StepEvaluator = std::function<StepResult(const Scenario&)>;

// N draws of the declared inputs through `eval` (on `threads` threads; results do not depend on
// them), with one-at-a-time shares when more than one input is declared. Throws InfeasibleError
// when no draw fits, ConfigError when a drawn scenario breaks a cross-field rule.
[[nodiscard]] StepInputSpread step_input_spread(const Scenario& s, const StepUncertainty& model_form,
                                                const StepEvaluator& eval, int draws = kDefaultInputDraws,
                                                int threads = 1);

// JSON: {draws, seed, infeasible_draws, iteration_time_s_interval, mfu_interval (inputs only),
// model_form_share, inputs: [{key, distribution, value, lo, hi, shown, iteration_time_s_interval,
// share_of_width}]}.
[[nodiscard]] Json input_spread_json(const Scenario& s, const StepInputSpread& spread);
// JSON list of the declared inputs alone (run): [{key, distribution, value, lo, hi, shown}].
[[nodiscard]] Json declared_inputs_json(const Scenario& s);

}  // namespace fleetsim::uncertainty
