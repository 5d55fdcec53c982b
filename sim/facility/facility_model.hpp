// The facility model's public API: power, cooling and PUE over a run, thermal throttling and
// failure acceleration (hooks for the run model), energy, cost, carbon and the five-factor
// utilization waterfall (DESIGN.md §1, §2; reliability_energy.md §4.7).
//
// It takes plain numbers from the step and run models, so it can be evaluated and tested alone:
//
//   FacilityInputs in{.cluster = s.cluster, .facility = s.facility, .mfu = step.mfu, ...};
//   FacilityResult r = evaluate_facility(in);   // hourly steps: milliseconds for a 54-day run
//   add_facility_metrics(r, report);
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/facility/specs.hpp"
#include "sim/facility/waterfall.hpp"
#include "sim/scenario.hpp"
#include "sim/units/quantity.hpp"

namespace fleetsim {

class Report;

using JoulesPerToken = decltype(Joules() / Tokens());

// The outdoor temperature at the midpoint of each whole facility step from a run's start,
// computed once for a site and read by every run on it (sim/plan shares one per fabric and
// cooling): the facility model reads it where a step is whole and inside the table, and
// evaluates the climate elsewhere (the values are the climate's own either way).
struct OutdoorSeries {
  Seconds step;
  std::vector<Celsius> midpoint;
};
[[nodiscard]] std::shared_ptr<const OutdoorSeries> outdoor_series(const FacilitySpec& f, Seconds horizon);

struct FacilityInputs {
  ClusterSpec cluster;                 // the job's GPUs (the pool is gpus / resource_utilization)
  FacilitySpec facility;
  // From the step model.
  double mfu = 0.0;                    // at scale, unthrottled
  double single_gpu_mfu = 0.0;         // one GPU's share with communication free; 0 = same as mfu
  double compute_busy_fraction = 1.0;  // share of an iteration the GPUs are compute-bound
  // Issue 27: healthy iteration / iteration with stragglers and fail-slow hosts (from the step's
  // slowdown processes and the run model); a sub-factor of parallel scaling (waterfall.hpp).
  double straggler_efficiency = 1.0;
  // From the run model (one replication).
  Seconds wall_clock;
  Seconds productive_time;             // useful training (ETTR numerator)
  Seconds busy_time;                   // GPUs computing, including work redone after failures;
                                       // 0 = productive_time. The rest of wall-clock is idle.
  Tokens tokens;                       // trained; 0 = no per-token figures
  // Optional: per facility step, the share of the step the job computes (a timeline from the
  // run model); empty = busy_time / wall_clock throughout.
  std::vector<double> busy_share_by_step;
  // Optional: outdoor_series(facility, ...) of this very facility (same site and time step).
  std::shared_ptr<const OutdoorSeries> outdoor;
};

// One named time series at the facility resolution (the HDF5 writer stores it with its unit).
struct TimeSeries {
  std::string name;
  std::string unit;
  std::string description;
  std::vector<double> values;
};

struct FacilityResult {
  double pue_mean = 1.0;               // energy-weighted: facility energy / IT energy
  double pue_min = 1.0, pue_max = 1.0; // over the facility steps
  double economizer_share = 0.0;       // share of wall-clock on full free cooling
  Joules gpu_energy, it_energy, facility_energy;
  Kilograms co2;                       // location-based, facility energy × site carbon intensity
  Dollars cost;                        // facility energy × site energy price
  JoulesPerToken energy_per_token;     // facility energy per trained token (0 without tokens)
  Watts it_power_mean;
  Watts it_power_peak;                 // every GPU of the job in its compute phase at once
  Watts power_swing;                   // IT power, compute phase − communication phase (per iteration)
  Watts power_swing_start_stop;        // facility power, training − whole job idle (restart)
  Watts gpu_power_training;            // per GPU, iteration average
  Watts node_power_training_peak;      // one node, GPUs in their compute phase
  Celsius gpu_temperature_mean, gpu_temperature_max;  // junction, while training
  double throughput_factor_mean = 1.0; // over productive time; 1 = no throttling
  double throughput_factor_min = 1.0;
  double failure_rate_multiplier = 1.0;  // what the run model's hook returns for this run
  facility::Waterfall waterfall;
  Seconds series_step;
  std::vector<TimeSeries> series;      // time_h, outdoor temperature, inlet, GPU temperature,
                                       // IT power, facility power, PUE, throughput factor
  [[nodiscard]] double effective_utilization() const { return waterfall.effective_utilization; }
  [[nodiscard]] const TimeSeries& find_series(const std::string& name) const;
};

// Throws std::invalid_argument on inputs no model can use (negative times, MFU outside (0, 1]).
[[nodiscard]] FacilityResult evaluate_facility(const FacilityInputs& in);

// Hook for the run model: multiplies every failure hazard. = cooling.failure_rate_multiplier
// (a labelled claim, default 1) × [(1 − s) + s · mean AF(T_j(t), T_j,ref)] over `horizon`, where s
// is facility.thermally_activated_failure_share, AF the Arrhenius factor with
// facility.arrhenius_activation_ev, T_j the training junction temperature and T_j,ref the same
// GPU at the same power on facility.failure_reference_inlet_temperature with its own (unscaled)
// thermal resistance: the conditions the failure profile was measured in.
[[nodiscard]] double failure_rate_multiplier(const ClusterSpec& cluster, const FacilitySpec& f,
                                             double compute_busy_fraction, Seconds horizon);

// Hook for the run model: relative iteration throughput at time t after the start (1 = none
// lost), from the site climate → inlet → junction temperature → clock → iteration, times the
// cooling's labelled throughput_multiplier claim. Cheap to call; the site's file is read once.
[[nodiscard]] std::function<double(Seconds)> throughput_factor(const ClusterSpec& cluster,
                                                               const FacilitySpec& f,
                                                               double compute_busy_fraction);

// Metric names: facility_metric_defs() in sim/facility/metrics.cpp.
void add_facility_metrics(const FacilityResult& r, Report& report);
// Over replications: each metric as mean / p05 / p95.
void add_facility_metrics(const std::vector<FacilityResult>& replications, Report& report);

}  // namespace fleetsim
