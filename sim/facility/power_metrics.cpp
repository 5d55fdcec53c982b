// The power dynamics' metric catalog (names, units, one-line descriptions) and how a
// PowerDynamicsResult fills a Report: facility.power_dynamics.* in the JSON summary, HDF5 and
// the console (issue #29; sim/facility/README.md, "Power dynamics").
#include <cmath>
#include <functional>

#include "sim/facility/power_dynamics.hpp"

namespace fleetsim {
namespace {

using facility::PowerDynamicsResult;

struct PowerMetric {
  MetricDef def;
  std::function<double(const PowerDynamicsResult&)> value;
};

const std::vector<PowerMetric>& power_metrics() {
  using R = const PowerDynamicsResult&;
  static const std::vector<PowerMetric> table = {
      {{"power_dynamics.iteration_period_s", "s", "power timeline: iteration period"}, [](R r) { return r.iteration_period_s; }},
      {{"power_dynamics.iteration_swing_gpu_w", "W", "iteration swing, one GPU (peak - trough)"},
       [](R r) { return r.iteration_swing.gpu_w; }},
      {{"power_dynamics.iteration_swing_rack_kw", "kW", "iteration swing, one rack"}, [](R r) { return r.iteration_swing.rack_kw; }},
      {{"power_dynamics.iteration_swing_hall_mw", "MW", "iteration swing, hall IT"}, [](R r) { return r.iteration_swing.hall_mw; }},
      {{"power_dynamics.iteration_swing_mw", "MW", "iteration swing at the meter"}, [](R r) { return r.iteration_swing.meter_mw; }},
      {{"power_dynamics.iteration_swing_telemetry_mw", "MW", "iteration swing at the meter, 1 s averaged (NVML-style)"},
       [](R r) { return r.iteration_swing_telemetry_mw; }},
      {{"power_dynamics.job_stop_swing_gpu_w", "W", "job stop swing, one GPU (training mean - idle)"},
       [](R r) { return r.job_stop_swing.gpu_w; }},
      {{"power_dynamics.job_stop_swing_rack_kw", "kW", "job stop swing, one rack"}, [](R r) { return r.job_stop_swing.rack_kw; }},
      {{"power_dynamics.job_stop_swing_hall_mw", "MW", "job stop swing, hall IT"}, [](R r) { return r.job_stop_swing.hall_mw; }},
      {{"power_dynamics.job_stop_swing_mw", "MW", "job stop swing at the meter"}, [](R r) { return r.job_stop_swing.meter_mw; }},
      {{"power_dynamics.training_power_mw", "MW", "meter power in steady training, mean"}, [](R r) { return r.training_mean.meter_mw; }},
      {{"power_dynamics.stopped_power_mw", "MW", "meter power with the job stopped"}, [](R r) { return r.stopped.meter_mw; }},
      {{"power_dynamics.ramp_up_gpu_w_per_s", "W/s", "fastest rise of one GPU's power (per sample)"},
       [](R r) { return r.ramp_up.gpu_w; }},
      {{"power_dynamics.ramp_down_gpu_w_per_s", "W/s", "fastest fall of one GPU's power (per sample)"},
       [](R r) { return r.ramp_down.gpu_w; }},
      {{"power_dynamics.ramp_up_rack_kw_per_s", "kW/s", "fastest rise of one rack's power (per sample)"},
       [](R r) { return r.ramp_up.rack_kw; }},
      {{"power_dynamics.ramp_down_rack_kw_per_s", "kW/s", "fastest fall of one rack's power (per sample)"},
       [](R r) { return r.ramp_down.rack_kw; }},
      {{"power_dynamics.ramp_up_hall_mw_per_s", "MW/s", "fastest rise of hall IT power over the ramp window"},
       [](R r) { return r.ramp_up.hall_mw; }},
      {{"power_dynamics.ramp_down_hall_mw_per_s", "MW/s", "fastest fall of hall IT power over the ramp window"},
       [](R r) { return r.ramp_down.hall_mw; }},
      {{"power_dynamics.ramp_up_mw_per_s", "MW/s", "fastest rise of meter power over the ramp window"},
       [](R r) { return r.ramp_up.meter_mw; }},
      {{"power_dynamics.ramp_down_mw_per_s", "MW/s", "fastest fall of meter power over the ramp window"},
       [](R r) { return r.ramp_down.meter_mw; }},
      {{"power_dynamics.spectrum_peak_hz", "Hz", "meter power spectrum in steady training: peak"},
       [](R r) { return r.spectrum.peak_hz; }},
      {{"power_dynamics.oscillation_rms_mw", "MW", "meter power oscillation in steady training, RMS"},
       [](R r) { return std::sqrt(r.spectrum.total_variance); }},
      {{"power_dynamics.band_share.0p1_1hz", "1", "share of the oscillation energy in 0.1-1 Hz"}, [](R r) { return r.bands.share[0]; }},
      {{"power_dynamics.band_share.1_3hz", "1", "share of the oscillation energy in 1-3 Hz"}, [](R r) { return r.bands.share[1]; }},
      {{"power_dynamics.band_share.3_20hz", "1", "share of the oscillation energy in 3-20 Hz"}, [](R r) { return r.bands.share[2]; }},
      {{"power_dynamics.band_rms_mw.0p1_1hz", "MW", "meter oscillation in 0.1-1 Hz, RMS"}, [](R r) { return r.bands.rms_mw[0]; }},
      {{"power_dynamics.band_rms_mw.1_3hz", "MW", "meter oscillation in 1-3 Hz, RMS"}, [](R r) { return r.bands.rms_mw[1]; }},
      {{"power_dynamics.band_rms_mw.3_20hz", "MW", "meter oscillation in 3-20 Hz, RMS"}, [](R r) { return r.bands.rms_mw[2]; }},
      {{"power_dynamics.window_energy_mwh", "MWh", "meter energy over the sampled window"}, [](R r) { return r.window_energy_mwh; }},
      {{"power_dynamics.run_steps_over_10mw", "count", "job state changes moving the meter by 10 MW or more (run)"},
       [](R r) { return r.run_steps_over_10mw; }},
      {{"power_dynamics.run_largest_step_mw", "MW", "largest step of the meter at a job state change (run)"},
       [](R r) { return r.run_largest_step_mw; }},
      {{"power_dynamics.mitigation.unmitigated_iteration_swing_mw", "MW", "iteration swing at the meter without mitigations"},
       [](R r) { return r.unmitigated_iteration_swing.meter_mw; }},
      {{"power_dynamics.mitigation.unmitigated_band_rms_mw.0p1_1hz", "MW", "0.1-1 Hz RMS without mitigations"},
       [](R r) { return r.unmitigated_bands.rms_mw[0]; }},
      {{"power_dynamics.mitigation.unmitigated_band_rms_mw.1_3hz", "MW", "1-3 Hz RMS without mitigations"},
       [](R r) { return r.unmitigated_bands.rms_mw[1]; }},
      {{"power_dynamics.mitigation.unmitigated_band_rms_mw.3_20hz", "MW", "3-20 Hz RMS without mitigations"},
       [](R r) { return r.unmitigated_bands.rms_mw[2]; }},
      {{"power_dynamics.mitigation.extra_energy_share", "1", "mitigations: extra meter energy, share"},
       [](R r) { return r.extra_energy_share; }},
      {{"power_dynamics.mitigation.extra_energy_mwh", "MWh", "mitigations: extra facility energy over the run"},
       [](R r) { return r.extra_energy_run_mwh; }},
      {{"power_dynamics.mitigation.extra_cost_usd", "USD", "mitigations: cost of that energy"}, [](R r) { return r.extra_cost_usd; }},
      {{"power_dynamics.mitigation.throughput_loss", "1", "mitigations: share of training throughput lost"},
       [](R r) { return r.throughput_loss; }},
      {{"power_dynamics.mitigation.storage_loss_mwh", "MWh", "mitigations: storage losses over the window"},
       [](R r) { return r.storage_loss_mwh; }},
  };
  return table;
}

}  // namespace

const std::vector<MetricDef>& power_dynamics_metric_defs() {
  static const std::vector<MetricDef> defs = [] {
    std::vector<MetricDef> d;
    for (const auto& m : power_metrics()) d.push_back(m.def);
    return d;
  }();
  return defs;
}

void add_power_dynamics_metrics(const PowerDynamicsResult& r, Report& report) {
  for (const auto& m : power_metrics()) report.add(m.def.name, m.value(r));
}

}  // namespace fleetsim
