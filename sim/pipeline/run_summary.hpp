// What `fleetsim run` computes around the pipeline and prints with --json: adaptive replications
// (run.replications: auto), the headline intervals and provenance (sim/uncertainty), and the JSON
// summary. One implementation for the run command and the browser studio (sim/serve), so the page
// shows exactly the numbers `fleetsim run --set ... --json` prints.
#pragma once

#include <functional>

#include "sim/pipeline/run_pipeline.hpp"
#include "sim/results/json.hpp"
#include "sim/uncertainty/step_interval.hpp"
#include "sim/uncertainty/waterfall_interval.hpp"

namespace fleetsim {

// Intervals of the run's headline numbers (sim/uncertainty/README.md, "Run intervals"): the step
// model's model-form interval, the Monte-Carlo spread of one run's outcome over the replications,
// and, for the quantity that scales with the iteration time (wall-clock of a token budget, or
// tokens in a fixed duration), the two combined.
struct RunUncertainty {
  uncertainty::StepUncertainty step;
  uncertainty::Interval iteration_time, mfu, ettr, wall_clock_days, tokens_trained;
  uncertainty::Interval effective_utilization;  // the waterfall's product
  uncertainty::WaterfallIntervals waterfall;     // its five factors and the product (waterfall_interval.hpp)
  uncertainty::Interval pue;                     // facility.pue_mean: the replications' range
};

RunUncertainty run_uncertainty(const Scenario& s, const PipelineResult& r, double level);

// The run section's provenance: the step grade, the replications, the failure model's status.
uncertainty::Provenance run_provenance(const RunUncertainty& u, const PipelineResult& r);

// replications: auto's outcome (sim/uncertainty/README.md, "Adaptive replications").
struct AutoReplications {
  bool on = false;
  int used = 0;
  double ettr_half_width = 0, precision = 0;
  int batches = 1;
  [[nodiscard]] bool reached() const { return ettr_half_width <= precision; }
};

struct RunOutcome {
  Scenario scenario;  // with run.replications as used (auto: the final count)
  PipelineResult result;
  AutoReplications autorep;
};

// The pipeline as `fleetsim run` runs it: once, or with run.replications: auto doubling the count
// until the ETTR half-width at `level` is below run.precision. `before_batch(replications)` is
// called before each batch (the caller's progress bar). Throws what run_pipeline throws.
RunOutcome run_with_replications(Scenario s, const PipelineOptions& options, double level,
                                 const std::function<void(int replications)>& before_batch = {});

// `fleetsim run --json`'s document, without host.wall_time_s (the caller adds it).
Json run_summary_json(const RunOutcome& o, const RunUncertainty& u, double level);

}  // namespace fleetsim
