// Intervals of the effective-utilization waterfall (waterfall_interval.hpp).
#include "sim/uncertainty/waterfall_interval.hpp"

#include <algorithm>

namespace fleetsim::uncertainty {
namespace {

Interval over(const std::vector<facility::Waterfall>& w, double level, double (*get)(const facility::Waterfall&)) {
  std::vector<double> v;
  v.reserve(w.size());
  for (const auto& x : w) v.push_back(get(x));
  return sample_interval(std::move(v), level);
}

// An efficiency's interval: never above 1 (the factor is a share by definition).
Interval capped(Interval i) {
  i.hi = std::min(i.hi, 1.0);
  i.lo = std::min(i.lo, i.hi);
  return i;
}

}  // namespace

std::vector<std::pair<std::string, Interval>> WaterfallIntervals::factors() const {
  return {{"energy_efficiency", energy_efficiency},
          {"single_gpu_efficiency", single_gpu_efficiency},
          {"parallel_scaling_efficiency", parallel_scaling_efficiency},
          {"ettr", ettr},
          {"resource_utilization", resource_utilization}};
}

WaterfallIntervals waterfall_intervals(const std::vector<facility::Waterfall>& w, const StepUncertainty& step,
                                       double level) {
  WaterfallIntervals out;
  out.energy_efficiency = over(w, level, [](const facility::Waterfall& x) { return x.factors.energy_efficiency; });
  out.ettr = over(w, level, [](const facility::Waterfall& x) { return x.factors.ettr; });
  out.resource_utilization =
      over(w, level, [](const facility::Waterfall& x) { return x.factors.resource_utilization; });
  out.single_gpu_efficiency = capped(combine_with_step(
      over(w, level, [](const facility::Waterfall& x) { return x.factors.single_gpu_efficiency; }), step));
  out.parallel_scaling_efficiency = capped(combine_with_step(
      over(w, level, [](const facility::Waterfall& x) { return x.factors.parallel_scaling_efficiency; }), step));
  out.product = combine_with_step(over(w, level, [](const facility::Waterfall& x) { return x.effective_utilization; }), step);
  return out;
}

}  // namespace fleetsim::uncertainty
