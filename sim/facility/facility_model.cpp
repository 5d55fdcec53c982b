#include "sim/facility/facility_model.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "sim/core/checked.hpp"
#include "sim/facility/cooling_model.hpp"
#include "sim/facility/energy.hpp"
#include "sim/facility/power_model.hpp"
#include "sim/facility/site_climate.hpp"
#include "sim/facility/thermal.hpp"

namespace fleetsim {
namespace {

using namespace facility;

Seconds step_of(const FacilitySpec& f) {
  return f.time_step.si() > 0.0 ? f.time_step : units::hours(1.0);
}

// The thermal chain at one outdoor temperature for a GPU dissipating `power`.
struct ThermalState {
  Celsius inlet, junction;
  double clock = 1.0;
};
ThermalState thermal_state(const GpuSpec& gpu, const CoolingSpec& cool, Celsius outdoor,
                           Watts power) {
  ThermalState s;
  s.inlet = gpu_inlet_temperature(cool, outdoor);
  s.junction = junction_temperature(gpu, cool, s.inlet, power);
  s.clock = clock_factor(gpu, s.junction);
  return s;
}

void check_inputs(const FacilityInputs& in) {
  auto bad = [](const std::string& what) { throw std::invalid_argument("facility model: " + what); };
  if (in.cluster.gpus <= 0) bad("cluster.gpus must be positive");
  if (in.wall_clock.si() <= 0.0) bad("wall_clock must be positive");
  if (in.productive_time.si() < 0.0 || in.productive_time > in.wall_clock * (1.0 + 1e-9))
    bad("productive_time must lie in [0, wall_clock]");
  if (in.busy_time.si() < 0.0 || in.busy_time > in.wall_clock * (1.0 + 1e-9))
    bad("busy_time must lie in [0, wall_clock]");
  if (!(in.mfu > 0.0 && in.mfu <= 1.0)) bad("mfu must lie in (0, 1]");
  if (in.single_gpu_mfu < 0.0 || in.single_gpu_mfu > 1.0) bad("single_gpu_mfu must lie in [0, 1]");
  if (in.compute_busy_fraction < 0.0 || in.compute_busy_fraction > 1.0)
    bad("compute_busy_fraction must lie in [0, 1]");
  if (!(in.facility.resource_utilization > 0.0 && in.facility.resource_utilization <= 1.0))
    bad("facility.resource_utilization must lie in (0, 1]");
}

TimeSeries make_series(std::string name, std::string unit, std::string description, size_t n) {
  TimeSeries s{std::move(name), std::move(unit), std::move(description), {}};
  s.values.reserve(n);
  return s;
}

// Outdoor temperature at [t0, t0 + len) of step k: from the shared series where the step is whole.
Celsius outdoor_at(const OutdoorSeries* o, const SiteClimate& climate, size_t k, double t0, double len, double dt) {
  if (o && len == dt && o->step.si() == dt && k < o->midpoint.size()) return o->midpoint[k];
  return climate.at(Seconds(t0 + 0.5 * len));
}

double mean_arrhenius(const ClusterSpec& c, const FacilitySpec& f, Watts power, Seconds horizon,
                      const SiteClimate& climate, const OutdoorSeries* series = nullptr) {
  const Celsius ref_junction =
      f.failure_reference_inlet_temperature + power * c.gpu.thermal_resistance;
  const Seconds dt = step_of(f);
  const int n = std::max(1, checked_cast<int>(std::ceil(horizon.si() / dt.si()), "facility time steps"));
  double sum = 0.0, weight = 0.0;
  for (int k = 0; k < n; ++k) {
    const double len = std::min(dt.si(), std::max(horizon.si() - k * dt.si(), 0.0));
    const double w = horizon.si() > 0.0 ? len : 1.0;
    const Celsius outdoor = outdoor_at(series, climate, static_cast<size_t>(k), k * dt.si(), len, dt.si());
    const ThermalState s = thermal_state(c.gpu, f.cooling, outdoor, power);
    sum += w * arrhenius_factor(f.arrhenius_activation_ev, s.junction, ref_junction);
    weight += w;
  }
  return sum / weight;
}

double failure_multiplier_with(const ClusterSpec& c, const FacilitySpec& f, Watts power,
                               Seconds horizon, const SiteClimate& climate, const OutdoorSeries* series = nullptr) {
  const double share = std::clamp(f.thermally_activated_failure_share, 0.0, 1.0);
  const double af = mean_arrhenius(c, f, power, horizon, climate, series);
  return f.cooling.failure_rate_multiplier * ((1.0 - share) + share * af);
}

}  // namespace

std::shared_ptr<const OutdoorSeries> outdoor_series(const FacilitySpec& f, Seconds horizon) {
  auto o = std::make_shared<OutdoorSeries>();
  o->step = step_of(f);
  const SiteClimate climate(f.site);
  const double dt = o->step.si();
  const auto n = checked_cast<size_t>(std::ceil(horizon.si() / dt), "facility time steps");
  o->midpoint.reserve(n);
  for (size_t k = 0; k < n; ++k) o->midpoint.push_back(climate.at(Seconds(static_cast<double>(k) * dt + 0.5 * dt)));
  return o;
}

const TimeSeries& FacilityResult::find_series(const std::string& name) const {
  for (const auto& s : series)
    if (s.name == name) return s;
  throw std::out_of_range("no facility time series named '" + name + "'");
}

double failure_rate_multiplier(const ClusterSpec& cluster, const FacilitySpec& f,
                               double compute_busy_fraction, Seconds horizon) {
  const SiteClimate climate(f.site);
  const Watts p = gpu_training_power(cluster.gpu, f, {compute_busy_fraction}).average;
  return failure_multiplier_with(cluster, f, p, horizon, climate);
}

std::function<double(Seconds)> throughput_factor(const ClusterSpec& cluster,
                                                 const FacilitySpec& f,
                                                 double compute_busy_fraction) {
  auto climate = std::make_shared<const SiteClimate>(f.site);
  const Watts p = gpu_training_power(cluster.gpu, f, {compute_busy_fraction}).average;
  return [climate, gpu = cluster.gpu, cool = f.cooling, p, compute_busy_fraction](Seconds t) {
    const ThermalState s = thermal_state(gpu, cool, climate->at(t), p);
    return iteration_throughput(s.clock, compute_busy_fraction) * cool.throughput_multiplier;
  };
}

FacilityResult evaluate_facility(const FacilityInputs& in) {
  check_inputs(in);
  const ClusterSpec& c = in.cluster;
  const FacilitySpec& f = in.facility;
  const SiteClimate climate(f.site);
  const ClusterPower power = cluster_power(c, f, {in.compute_busy_fraction});
  const Watts design = f.design_it_power.si() > 0.0 ? f.design_it_power : power.nameplate;
  const Watts always_on = power.idle_pool + power.network;
  const Seconds busy = in.busy_time.si() > 0.0 ? in.busy_time : in.productive_time;
  const double busy_share_default = busy / in.wall_clock;

  const Seconds dt = step_of(f);
  const auto n = checked_cast<size_t>(std::ceil(in.wall_clock.si() / dt.si() - 1e-9), "facility time steps");
  if (!in.busy_share_by_step.empty() && in.busy_share_by_step.size() != n)
    throw std::invalid_argument("facility model: busy_share_by_step has " +
                                std::to_string(in.busy_share_by_step.size()) +
                                " values, the run has " + std::to_string(n) + " facility steps");

  FacilityResult r;
  r.series_step = dt;
  std::vector<TimeSeries> series = {
      make_series("time", "h", "start of the facility step since the run began", n),
      make_series("outdoor_temperature", "degC", "outdoor wet-bulb temperature", n),
      make_series("gpu_inlet_temperature", "degC", "GPU air inlet or coolant supply", n),
      make_series("gpu_temperature", "degC", "GPU junction temperature while training", n),
      make_series("it_power", "MW", "IT power (servers, fans, switches), step average", n),
      make_series("facility_power", "MW", "facility power, step average", n),
      make_series("pue", "1", "facility power / IT power", n),
      make_series("throughput_factor", "1", "iteration throughput relative to no throttling", n)};

  double e_gpu = 0.0, e_it = 0.0, e_fac = 0.0, econ_time = 0.0;
  double thr_weighted = 0.0, thr_weight = 0.0, tj_weighted = 0.0;
  r.pue_min = 1e300;
  r.pue_max = 0.0;
  r.throughput_factor_min = 1e300;
  r.gpu_temperature_max = Celsius{-1e300};
  const double job_gpus = c.gpus;
  const double idle_gpus = power.pool_gpus - job_gpus;
  for (size_t k = 0; k < n; ++k) {
    const double t0 = static_cast<double>(k) * dt.si();
    const double len = std::min(dt.si(), in.wall_clock.si() - t0);
    const Celsius outdoor = outdoor_at(in.outdoor.get(), climate, k, t0, len, dt.si());
    const double b = std::clamp(
        in.busy_share_by_step.empty() ? busy_share_default : in.busy_share_by_step[k], 0.0, 1.0);
    const Watts it = power.training * b + power.stalled * (1.0 - b) + always_on;
    const FacilityPower fac = facility_power(f.cooling, it, design, outdoor);
    const ThermalState th = thermal_state(c.gpu, f.cooling, outdoor, power.gpu.average);
    const double thr =
        iteration_throughput(th.clock, in.compute_busy_fraction) * f.cooling.throughput_multiplier;

    e_gpu += len * (job_gpus * (b * power.gpu.average.si() + (1.0 - b) * c.gpu.idle_power.si()) +
                    idle_gpus * c.gpu.idle_power.si());
    e_it += len * it.si();
    e_fac += len * fac.total.si();
    if (plant_mode(f.cooling, outdoor).free_cooling_share >= 1.0) econ_time += len;
    thr_weighted += thr * b * len;
    tj_weighted += th.junction.value * b * len;
    thr_weight += b * len;
    r.pue_min = std::min(r.pue_min, fac.pue());
    r.pue_max = std::max(r.pue_max, fac.pue());
    r.throughput_factor_min = std::min(r.throughput_factor_min, thr);
    r.gpu_temperature_max = std::max(r.gpu_temperature_max, th.junction);

    series[0].values.push_back(units::to_hours(Seconds(t0)));
    series[1].values.push_back(outdoor.value);
    series[2].values.push_back(th.inlet.value);
    series[3].values.push_back(th.junction.value);
    series[4].values.push_back(it.si() / 1e6);
    series[5].values.push_back(fac.total.si() / 1e6);
    series[6].values.push_back(fac.pue());
    series[7].values.push_back(thr);
  }
  r.series = std::move(series);

  const double wall = in.wall_clock.si();
  r.gpu_energy = Joules(e_gpu);
  r.it_energy = Joules(e_it);
  r.facility_energy = Joules(e_fac);
  r.pue_mean = e_fac / e_it;
  r.economizer_share = econ_time / wall;
  r.co2 = carbon(r.facility_energy, f.site);
  r.cost = energy_cost(r.facility_energy, f.site);
  if (in.tokens.si() > 0.0) r.energy_per_token = r.facility_energy / in.tokens;
  r.it_power_mean = Joules(e_it) / in.wall_clock;
  r.it_power_peak = power.training_peak + always_on;
  r.power_swing = power.training_peak - power.training_trough;
  {
    const Celsius mean_outdoor = f.site.mean_temperature;
    r.power_swing_start_stop =
        facility_power(f.cooling, power.training + always_on, design, mean_outdoor).total -
        facility_power(f.cooling, power.stalled + always_on, design, mean_outdoor).total;
  }
  r.gpu_power_training = power.gpu.average;
  r.node_power_training_peak =
      node_power(c, f.cooling, power.gpu.compute, f.gpu_activity_compute).total();
  r.throughput_factor_mean = thr_weight > 0.0 ? thr_weighted / thr_weight : 1.0;
  r.gpu_temperature_mean = Celsius{thr_weight > 0.0 ? tj_weighted / thr_weight
                                                    : r.gpu_temperature_max.value};
  r.failure_rate_multiplier =
      failure_multiplier_with(c, f, power.gpu.average, in.wall_clock, climate, in.outdoor.get());

  WaterfallFactors w;
  w.energy_efficiency = e_it / e_fac;
  const double single = in.single_gpu_mfu > 0.0 ? in.single_gpu_mfu : in.mfu;
  w.single_gpu_efficiency = single * r.throughput_factor_mean;
  w.straggler_efficiency = std::clamp(in.straggler_efficiency, 1e-9, 1.0);
  w.parallel_scaling_efficiency = in.mfu / single * w.straggler_efficiency;
  w.ettr = in.productive_time / in.wall_clock;
  w.resource_utilization = f.resource_utilization;
  r.waterfall = make_waterfall(w, power.pool_gpus * units::to_hours(in.wall_clock),
                               units::to_mwh(r.facility_energy));
  return r;
}

}  // namespace fleetsim
