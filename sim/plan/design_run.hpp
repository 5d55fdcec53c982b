// One design through the models once its scenario is built (evaluate.cpp builds it): the run and
// facility models (run_pipeline, with the stages shared between designs or computed for this one
// alone), the cost model, the constraints' excess, and how sure the days and cost are.
//
// Sharing (sim/plan/README.md, "At scale"): designs of one system x count x precision that agree
// on fabric and cooling read the same step, slowdowns, failure multiplier and throttling hook
// (PipelineStages); spares, checkpointing and failures are read only by the run model, which
// integrates the throttling hook once per stage (HookIntegralCache). The results are the same
// numbers as an unshared run (tests/plan/plan_scale_test.cpp).
#pragma once

#include <memory>
#include <string>

#include "sim/pipeline/run_pipeline.hpp"
#include "sim/plan/design.hpp"
#include "sim/plan/plan_spec.hpp"
#include "sim/uncertainty/step_interval.hpp"

namespace fleetsim::plan {

inline constexpr double kIntervalLevel = 0.8;   // as `fleetsim run`'s default --level

// What designs sharing a stage key share: the pipeline's stages and the step's model-form
// uncertainty, or why they do not run.
struct SharedStages {
  std::shared_ptr<const PipelineStages> stages;  // null when the step does not fit
  uncertainty::StepUncertainty step_uncertainty;
  std::string infeasible;                        // InfeasibleError's text
};

// The stages of scenario `s` (their throttling hook's integral is then computed once for all the
// designs that share them) and the step's model-form uncertainty.
[[nodiscard]] SharedStages shared_stages(const Scenario& s);

// Evaluates design `x` on scenario `s`: with `shared` (computed on a scenario that agrees with `s`
// on fabric, cooling and layout) or, when null, every stage for this design alone. Throws what
// the models throw except InfeasibleError (the design's status says it does not run).
void run_design(const PlanSpec& p, const Scenario& s, const SharedStages* shared, Design& x);

}  // namespace fleetsim::plan
