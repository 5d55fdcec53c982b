// Every design of a plan through the models that exist (DESIGN.md §2):
//   1. Layout: one time-to-train layout search (sim/search) per system x GPU count x precision
//      (a group), on the first fabric and cooling of the plan (fabric, cooling, spares and
//      checkpointing do not change which layouts fit); its best `search_top` layouts are re-timed
//      on each fabric with the step model and the fastest is kept.
//   2. The one limit known exactly before the run model prunes: a design that buys more GPUs than
//      gpus_max (its excess is exact). NVL72-style racks on an air plant are skipped.
//   3. The run model (Monte-Carlo, evaluation.replications, default 1: the discrete-event run,
//      not a closed-form estimator, so `fleetsim run` with the design's --set list gives the same
//      days) and the facility model (PUE, peak and mean power, energy, carbon) via run_pipeline,
//      with the stages before the run model shared per fabric and cooling (design_run.hpp).
//   4. The cost model (cost.hpp) with the plan's prices; intervals and the deadline probability.
// Designs are enumerated in a fixed order and each is evaluated on its own (same seed), so the
// result does not depend on the thread or rank count.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/plan/design.hpp"
#include "sim/plan/plan_spec.hpp"

namespace fleetsim::plan {

// Where a plan stands: groups (system x count x precision, one layout search each) and designs
// done (evaluated, or settled without the run model), out of all.
struct Progress {
  int groups_done = 0, groups = 0, designs_done = 0, designs = 0;
};

struct EvaluateOptions {
  int threads = 0;                                 // 0 = every core
  std::function<void(const Progress&)> progress;   // serialized; after each design and group
  // Share the step, slowdowns and facility hooks between the designs of one fabric and cooling
  // (design_run.hpp); false evaluates every design on its own (same numbers, slower: the
  // reference the sharing is tested against).
  bool share_stages = true;
  // MPI (sim/mpi/plan.hpp): this process evaluates only the system x count groups g with
  // g % parts == part; the others come back with status "elsewhere".
  int part = 0;
  int parts = 1;
};

struct Evaluation {
  std::vector<Design> designs;                     // every combination, in enumeration order
  int layout_searches = 0;
  int runs = 0;                                    // designs through the run model
  int pruned = 0;
};

// Throws ConfigError when the base scenario or a preset cannot be loaded.
[[nodiscard]] Evaluation evaluate_plan(const PlanSpec& plan, const EvaluateOptions& options = {});

// The enumeration alone (choices and sets, nothing evaluated): the number of designs and their
// order, for the MPI merge and for tests.
[[nodiscard]] std::vector<Design> enumerate_designs(const PlanSpec& plan);
// Which system x count x precision group a design belongs to (its index in the search memo).
[[nodiscard]] int design_group(const PlanSpec& plan, size_t design_index);

// Exit 2 for a plan none of whose designs can be evaluated (no layout, does not fit, unknown
// preset, liquid-only racks on air plants only): a ConfigError naming `candidates` and the first
// reasons. Valid designs that miss the constraints are an answer, not an error (summary.hpp).
void require_some_valid_design(const PlanSpec& plan, const Evaluation& ev);

}  // namespace fleetsim::plan
