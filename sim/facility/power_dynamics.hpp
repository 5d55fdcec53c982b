// The sub-second power of a synchronous training job as the grid sees it, its swings and their
// mitigations (issue #29; sim/facility/README.md, "Power dynamics").
//
// Built from plain inputs so it can be evaluated and tested alone: the activity of each pipeline
// stage class over one iteration (from the step model's schedule, sim/pipeline/power_inputs.hpp)
// and the job's states over the run (replication 0 of the run model). Symmetry: one
// representative GPU per stage class times its count, never one per GPU, so the cost grows with
// the pipeline depth and the samples, not with the GPUs.
//
//   PowerDynamicsInputs in{.cluster = s.cluster, .facility = s.facility, .iteration_period = T,
//                          .stages = ..., .run = ..., .run_length = ...};
//   PowerDynamicsResult r = evaluate_power_dynamics(in);
#pragma once

#include <array>
#include <string>
#include <vector>

#include "sim/facility/facility_model.hpp"
#include "sim/facility/power_spectrum.hpp"
#include "sim/results/report.hpp"

namespace fleetsim::facility {

enum class JobState { Training, CheckpointStall, Stopped };

struct JobStateSpan {
  Seconds start, end;
  JobState state = JobState::Training;
};

// One class of pipeline stage: `gpus` GPUs that run the same schedule. `activity` holds the
// GPU's activity (P = idle + (tdp - idle)·a^alpha, §4.4) in equal cells covering one iteration.
struct StageActivity {
  std::string name;
  double gpus = 0;
  std::vector<double> activity;
};

struct PowerDynamicsInputs {
  ClusterSpec cluster;
  FacilitySpec facility;               // facility.power holds the timeline's settings
  Seconds iteration_period;
  std::vector<StageActivity> stages;
  std::vector<JobStateSpan> run;       // replication 0, in time order; empty = training throughout
  Seconds run_length;
  Joules run_facility_energy;          // the hourly model's, to scale a mitigation's cost to the run
};

// A figure at the four levels: one GPU (W), one rack (kW), the hall's IT (MW), the meter (MW).
struct PowerLevels {
  double gpu_w = 0, rack_kw = 0, hall_mw = 0, meter_mw = 0;
};

// The grid's bands (F11, F12): 0.1-1, 1-3, 3-20 Hz.
inline constexpr std::array<Band, 3> kPowerBands = {Band{0.1, 1.0}, Band{1.0, 3.0}, Band{3.0, 20.0}};
inline constexpr std::array<const char*, 3> kPowerBandNames = {"0p1_1hz", "1_3hz", "3_20hz"};

struct BandFigures {
  std::array<double, 3> share{};       // of the meter power's oscillation energy (variance)
  std::array<double, 3> rms_mw{};      // the band's amplitude at the meter (sqrt of its variance)
};

struct PowerDynamicsResult {
  double iteration_period_s = 0;
  PowerLevels iteration_swing;         // steady training, peak - trough of the samples
  double iteration_swing_telemetry_mw = 0;  // the meter after a telemetry_average moving average (NVML)
  PowerLevels job_stop_swing;          // training mean - job stopped
  PowerLevels ramp_up, ramp_down;      // W/s, kW/s, MW/s, MW/s; GPU and rack per sample, hall and meter over ramp_window
  PowerLevels training_mean;           // steady training
  PowerLevels stopped;                 // the job's GPUs idle
  PowerSpectrum spectrum;              // of the meter power in steady training, MW^2 per bin
  BandFigures bands;
  double window_energy_mwh = 0;        // meter energy over the sampled window
  // Mitigations, against the same job without them (zero when none is set):
  PowerLevels unmitigated_iteration_swing;
  BandFigures unmitigated_bands;
  double extra_energy_share = 0;       // of the window's meter energy
  double extra_energy_run_mwh = 0;     // that share of the run's facility energy
  double extra_cost_usd = 0;           // at the site's energy price
  double throughput_loss = 0;          // share of training throughput (filler cost + power not delivered)
  double storage_loss_mwh = 0;         // over the window
  // Run-level steps at the meter (whole run, replication 0): training <-> stopped or stalled.
  int run_steps = 0;
  int run_steps_over_10mw = 0;
  double run_largest_step_mw = 0;
  // Series for the results file and the figures.
  std::vector<TimeSeries> steady;      // first minute of steady training at full resolution
  std::vector<TimeSeries> window;      // the sampled window, 1 s averages
  std::vector<TimeSeries> run_levels;  // meter power at each change of the job's state, whole run
};

// Throws std::invalid_argument on inputs no model can use (no stages, a non-positive period).
[[nodiscard]] PowerDynamicsResult evaluate_power_dynamics(const PowerDynamicsInputs& in);

}  // namespace fleetsim::facility

namespace fleetsim {
// Metric names: power_dynamics_metric_defs() in sim/facility/power_metrics.cpp (under
// facility.power_dynamics.*).
// (The catalog itself, power_dynamics_metric_defs(), is declared with the others in report.hpp.)
void add_power_dynamics_metrics(const facility::PowerDynamicsResult& r, Report& report);
}  // namespace fleetsim
