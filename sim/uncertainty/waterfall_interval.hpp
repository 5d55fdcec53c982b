// Intervals of the five-factor effective-utilization waterfall (issue 25, "everywhere a number is
// shown"; sim/uncertainty/README.md, "Waterfall intervals"): each factor and their product.
//
// Where each factor's uncertainty comes from:
//   1/PUE, ETTR, resource utilization - the Monte-Carlo spread over the replications (the central
//       `level` range, sample_interval); the facility model's own model-form error is not judged
//       into an interval yet, and a resource utilization that is an input (not simulated) has none;
//   single-GPU efficiency, parallel scaling - the Monte-Carlo spread combined with the step model's
//       model-form interval. The published cases judge the iteration time, i.e. their product
//       (MFU), not its split, so each of the two carries the whole step interval (the error could
//       sit in either), capped at 1 (both are efficiencies);
//   the product - the spread of the per-replication product (which keeps how PUE, ETTR and
//       utilization move together within a replication) combined once with the step interval, log
//       half-widths in quadrature (combine_with_step: the model-form error taken as independent of
//       the Monte-Carlo draw, first-order propagation). Multiplying the five factor intervals
//       would count the step error twice and treat correlated factors as independent.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/facility/waterfall.hpp"
#include "sim/uncertainty/annotate.hpp"

namespace fleetsim::uncertainty {

struct WaterfallIntervals {
  Interval energy_efficiency, single_gpu_efficiency, parallel_scaling_efficiency, ettr, resource_utilization;
  Interval product;  // facility.effective_utilization.value
  // (factor key under facility.effective_utilization.factors, its interval), in the waterfall's order.
  [[nodiscard]] std::vector<std::pair<std::string, Interval>> factors() const;
};

// `waterfalls`: one per replication; `step`: the step prediction's model-form interval.
[[nodiscard]] WaterfallIntervals waterfall_intervals(const std::vector<facility::Waterfall>& waterfalls,
                                                     const StepUncertainty& step, double level);

}  // namespace fleetsim::uncertainty
