// What evaluate_step placed on the time axis, kept when StepOptions::capture is set: the per-chunk
// costs, every pipeline op as the list scheduler timed it, and every data-parallel collective as
// compose_iteration placed it. The iteration trace (trace.hpp) is written from these numbers, so
// it shows the model's own schedule, not a re-derivation of it.
#pragma once

#include <vector>

#include "sim/step/compose.hpp"
#include "sim/step/pipeline_schedule.hpp"
#include "sim/step/stage_costs.hpp"

namespace fleetsim::step {

struct StepCapture {
  StageCosts costs;
  double p2p = 0;                 // blocking send after each forward / backward that feeds a stage
  std::vector<OpTiming> ops;      // every rank's ops (durations include the send)
  ScheduleTimes schedule;
  std::vector<DpSpan> dp;
  Composition composition;
};

}  // namespace fleetsim::step
