// The facility model's metric catalog (names, units, one-line descriptions) and how a
// FacilityResult fills a Report. One table serves the JSON summary, HDF5 and the console.
#include <functional>

#include "sim/facility/facility_model.hpp"
#include "sim/results/report.hpp"

namespace fleetsim {
namespace {

using facility::Factor;

struct FacilityMetric {
  MetricDef def;
  std::function<double(const FacilityResult&)> value;
};

double loss_gpu_hours(const FacilityResult& r, Factor f) { return r.waterfall.loss(f).gpu_hours; }
double loss_mwh(const FacilityResult& r, Factor f) { return r.waterfall.loss(f).mwh; }

const std::vector<FacilityMetric>& facility_metrics() {
  using R = const FacilityResult&;
  static const std::vector<FacilityMetric> table = {
      {{"pue_mean", "1", "PUE, energy-weighted over the run (facility / IT energy)"},
       [](R r) { return r.pue_mean; }},
      {{"pue_min", "1", "lowest PUE of a facility step"}, [](R r) { return r.pue_min; }},
      {{"pue_max", "1", "highest PUE of a facility step"}, [](R r) { return r.pue_max; }},
      {{"economizer_share", "1", "share of wall-clock on full free cooling"},
       [](R r) { return r.economizer_share; }},
      {{"gpu_energy_mwh", "MWh", "GPU energy over the run"},
       [](R r) { return units::to_mwh(r.gpu_energy); }},
      {{"it_energy_mwh", "MWh", "IT energy (servers, fans, switches) over the run"},
       [](R r) { return units::to_mwh(r.it_energy); }},
      {{"facility_energy_mwh", "MWh", "facility energy (IT, distribution, cooling) over the run"},
       [](R r) { return units::to_mwh(r.facility_energy); }},
      {{"co2_tonnes", "t", "location-based CO2e of the facility energy"},
       [](R r) { return r.co2.si() / 1000.0; }},
      {{"cost_usd", "USD", "cost of the facility energy"}, [](R r) { return r.cost.si(); }},
      {{"energy_per_token_j", "J", "facility energy per trained token"},
       [](R r) { return r.energy_per_token.si(); }},
      {{"it_power_mean_mw", "MW", "IT power, mean over the run"},
       [](R r) { return r.it_power_mean.si() / 1e6; }},
      {{"it_power_peak_mw", "MW", "IT power with every GPU in its compute phase"},
       [](R r) { return r.it_power_peak.si() / 1e6; }},
      {{"power_swing_mw", "MW", "IT power swing within an iteration (compute vs communication)"},
       [](R r) { return r.power_swing.si() / 1e6; }},
      {{"power_swing_start_stop_mw", "MW", "facility power swing when the whole job stops or resumes"},
       [](R r) { return r.power_swing_start_stop.si() / 1e6; }},
      {{"gpu_power_training_w", "W", "GPU power while training, iteration average"},
       [](R r) { return r.gpu_power_training.si(); }},
      {{"node_power_training_peak_kw", "kW", "node power with its GPUs in the compute phase"},
       [](R r) { return r.node_power_training_peak.si() / 1e3; }},
      {{"gpu_temperature_mean_c", "degC", "GPU junction temperature while training, mean"},
       [](R r) { return r.gpu_temperature_mean.value; }},
      {{"gpu_temperature_max_c", "degC", "GPU junction temperature while training, hottest step"},
       [](R r) { return r.gpu_temperature_max.value; }},
      {{"throughput_factor_mean", "1", "iteration throughput vs unthrottled, mean over training"},
       [](R r) { return r.throughput_factor_mean; }},
      {{"throughput_factor_min", "1", "iteration throughput vs unthrottled, worst step"},
       [](R r) { return r.throughput_factor_min; }},
      {{"cooling_failure_rate_multiplier", "1", "failure hazard multiplier from cooling and GPU temperature"},
       [](R r) { return r.failure_rate_multiplier; }},
      {{"effective_utilization.value", "1", "share of facility energy that became model FLOPs"},
       [](R r) { return r.effective_utilization(); }},
      {{"effective_utilization.factors.energy_efficiency", "1", "1 / PUE"},
       [](R r) { return r.waterfall.factors.energy_efficiency; }},
      {{"effective_utilization.factors.single_gpu_efficiency", "1",
        "single-GPU MFU (communication free) x thermal throughput"},
       [](R r) { return r.waterfall.factors.single_gpu_efficiency; }},
      {{"effective_utilization.factors.parallel_scaling_efficiency", "1",
        "MFU at scale / single-GPU MFU"},
       [](R r) { return r.waterfall.factors.parallel_scaling_efficiency; }},
      {{"effective_utilization.factors.ettr", "1", "productive time / wall-clock"},
       [](R r) { return r.waterfall.factors.ettr; }},
      {{"effective_utilization.factors.resource_utilization", "1",
        "GPU-hours allocated / GPU-hours in the pool"},
       [](R r) { return r.waterfall.factors.resource_utilization; }},
      {{"effective_utilization.pool_gpu_hours", "GPU-h", "GPU-hours of the pool over the run"},
       [](R r) { return r.waterfall.pool_gpu_hours; }},
      {{"effective_utilization.useful_gpu_hours", "GPU-h", "pool GPU-hours x the four GPU factors"},
       [](R r) { return r.waterfall.useful_gpu_hours; }},
      {{"effective_utilization.useful_mwh", "MWh", "facility energy x effective utilization"},
       [](R r) { return r.waterfall.useful_mwh; }},
      {{"effective_utilization.loss_gpu_hours.resource_utilization", "GPU-h",
        "pool GPU-hours not allocated"},
       [](R r) { return loss_gpu_hours(r, Factor::ResourceUtilization); }},
      {{"effective_utilization.loss_gpu_hours.ettr", "GPU-h",
        "GPU-hours lost to failures, restarts and checkpoints"},
       [](R r) { return loss_gpu_hours(r, Factor::Ettr); }},
      {{"effective_utilization.loss_gpu_hours.parallel_scaling_efficiency", "GPU-h",
        "GPU-hours lost to communication, bubbles and stragglers"},
       [](R r) { return loss_gpu_hours(r, Factor::ParallelScaling); }},
      {{"effective_utilization.loss_gpu_hours.single_gpu_efficiency", "GPU-h",
        "GPU-hours lost inside one GPU (kernels below peak, thermal throttling)"},
       [](R r) { return loss_gpu_hours(r, Factor::SingleGpu); }},
      {{"effective_utilization.loss_gpu_hours.stragglers", "GPU-h",
        "of the parallel-scaling loss: stragglers and fail-slow hosts (causes: stragglers_causes)"},
       [](R r) { return r.waterfall.stragglers.gpu_hours; }},
      {{"effective_utilization.loss_mwh.stragglers", "MWh",
        "of the parallel-scaling loss: energy share lost to stragglers and fail-slow hosts"},
       [](R r) { return r.waterfall.stragglers.mwh; }},
      {{"effective_utilization.factors.straggler_efficiency", "1",
        "of parallel scaling: healthy iteration / iteration with stragglers and fail-slow hosts"},
       [](R r) { return r.waterfall.factors.straggler_efficiency; }},
      {{"effective_utilization.loss_mwh.energy_efficiency", "MWh",
        "facility energy not reaching IT (cooling, distribution)"},
       [](R r) { return loss_mwh(r, Factor::EnergyEfficiency); }},
      {{"effective_utilization.loss_mwh.resource_utilization", "MWh",
        "energy share lost to unallocated GPUs"},
       [](R r) { return loss_mwh(r, Factor::ResourceUtilization); }},
      {{"effective_utilization.loss_mwh.ettr", "MWh",
        "energy share lost to failures, restarts and checkpoints"},
       [](R r) { return loss_mwh(r, Factor::Ettr); }},
      {{"effective_utilization.loss_mwh.parallel_scaling_efficiency", "MWh",
        "energy share lost to communication, bubbles and stragglers"},
       [](R r) { return loss_mwh(r, Factor::ParallelScaling); }},
      {{"effective_utilization.loss_mwh.single_gpu_efficiency", "MWh",
        "energy share lost inside one GPU (kernels below peak, thermal throttling)"},
       [](R r) { return loss_mwh(r, Factor::SingleGpu); }},
  };
  return table;
}

}  // namespace

const std::vector<MetricDef>& facility_metric_defs() {
  static const std::vector<MetricDef> defs = [] {
    std::vector<MetricDef> d;
    for (const auto& m : facility_metrics()) d.push_back(m.def);
    return d;
  }();
  return defs;
}

void add_facility_metrics(const FacilityResult& r, Report& report) {
  for (const auto& m : facility_metrics()) report.add(m.def.name, m.value(r));
}

void add_facility_metrics(const std::vector<FacilityResult>& replications, Report& report) {
  if (replications.empty()) return;
  for (const auto& m : facility_metrics()) {
    std::vector<double> samples;
    samples.reserve(replications.size());
    for (const auto& r : replications) samples.push_back(m.value(r));
    report.add(m.def.name, summarize(std::move(samples)));
  }
}

}  // namespace fleetsim
