#include "sim/facility/power_dynamics.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "sim/core/checked.hpp"
#include "sim/facility/cooling_model.hpp"
#include "sim/facility/power_mitigation.hpp"
#include "sim/facility/power_model.hpp"

namespace fleetsim::facility {
namespace {

// One stage class's power over an iteration as a running integral (J per GPU) over its cells,
// so a sample's average power over any [t, t + dt) is two lookups (wrapping at the period).
struct StageTable {
  double gpus = 0;
  double cell = 0, period = 0;
  std::vector<double> power_integral, activity_integral;  // size cells + 1
  [[nodiscard]] double integral(const std::vector<double>& c, double t) const {
    const double turns = std::floor(t / period);
    const double x = (t - turns * period) / cell;
    const auto n = c.size() - 1;
    const size_t i = std::min(static_cast<size_t>(x), n - 1);
    const double frac = x - static_cast<double>(i);
    return turns * c[n] + c[i] + (c[i + 1] - c[i]) * frac;
  }
  [[nodiscard]] double mean(const std::vector<double>& c, double t, double dt) const {
    return (integral(c, t + dt) - integral(c, t)) / dt;
  }
  // The sample means tabulated at every cell boundary: a sample at phase p reads the entry
  // nearest p (half a cell, at most 0.5 ms, off), so the day's millions of samples cost one load.
  std::vector<double> sample_power, sample_activity;
  void tabulate(double dt) {
    const size_t n = power_integral.size() - 1;
    sample_power.resize(n), sample_activity.resize(n);
    for (size_t i = 0; i < n; ++i) {
      sample_power[i] = mean(power_integral, static_cast<double>(i) * cell, dt);
      sample_activity[i] = mean(activity_integral, static_cast<double>(i) * cell, dt);
    }
  }
  [[nodiscard]] size_t index(double phase) const {
    const auto i = static_cast<size_t>(phase / cell + 0.5);
    return i >= sample_power.size() ? i % sample_power.size() : i;
  }
};

// Everything fixed over a timeline: the tables, the node's other power, the facility's terms.
struct Model {
  const PowerDynamicsInputs* in = nullptr;
  std::vector<StageTable> stages;
  double dt = 0.01;
  double idle_w = 0, tdp_w = 0;
  double host_idle_per_gpu = 0, host_span_per_gpu = 0, fan_fraction = 0, fan_cap_per_gpu = 0;
  double always_on_w = 0;    // the pool's other nodes and the switches
  double design_w = 0;
  double cooling_per_w = 0;  // facility fans, pumps, chillers per W of IT at the site's mean temperature
  int rack_gpus = 32;
};

double ramp_alpha(double dt, double tau) { return tau > 0 ? 1.0 - std::exp(-dt / tau) : 1.0; }

Model make_model(const PowerDynamicsInputs& in, bool with_filler) {
  const ClusterSpec& c = in.cluster;
  const FacilitySpec& f = in.facility;
  const PowerDynamicsSpec& pd = f.power;
  Model m;
  m.in = &in;
  m.dt = pd.resolution.si();
  m.idle_w = c.gpu.idle_power.si();
  m.tdp_w = c.gpu.tdp.si();
  const double gpn = std::max(1, c.node.gpus_per_node);
  const double host_max = std::max(c.node.host_power_max.si(), c.node.host_power_idle.si());
  m.host_idle_per_gpu = c.node.host_power_idle.si() / gpn;
  m.host_span_per_gpu = (host_max - c.node.host_power_idle.si()) / gpn;
  m.fan_fraction = f.cooling.server_fan_fraction;
  m.fan_cap_per_gpu = c.node.fan_power_max.si() > 0 ? c.node.fan_power_max.si() / gpn : 1e300;
  const ClusterPower cp = cluster_power(c, f, {1.0});
  m.always_on_w = (cp.idle_pool + cp.network).si();
  m.design_w = f.design_it_power.si() > 0 ? f.design_it_power.si() : cp.nameplate.si();
  m.cooling_per_w = facility_power(f.cooling, Watts(1e6), Watts(m.design_w), f.site.mean_temperature).cooling.si() / 1e6;
  m.rack_gpus = pd.rack_gpus;
  const double filler_w = with_filler ? pd.filler.power_level * m.tdp_w : 0.0;
  for (const StageActivity& s : in.stages) {
    StageTable t;
    t.gpus = s.gpus;
    t.period = in.iteration_period.si();
    t.cell = t.period / static_cast<double>(s.activity.size());
    t.power_integral.assign(s.activity.size() + 1, 0.0);
    t.activity_integral.assign(s.activity.size() + 1, 0.0);
    for (size_t i = 0; i < s.activity.size(); ++i) {
      const double p = std::max(gpu_power(c.gpu, s.activity[i], f.gpu_power_exponent).si(), filler_w);
      t.power_integral[i + 1] = t.power_integral[i] + p * t.cell;
      t.activity_integral[i + 1] = t.activity_integral[i] + s.activity[i] * t.cell;
    }
    t.tabulate(m.dt);
    m.stages.push_back(std::move(t));
  }
  return m;
}

// The state carried from sample to sample: GPU ramps, smoothers, the cooling lag, storage.
class Simulator {
 public:
  Simulator(const Model& m, bool mitigated) : m_(m) {
    const PowerDynamicsSpec& pd = m.in->facility.power;
    gpu_alpha_ = ramp_alpha(m.dt, pd.gpu_time_constant.si());
    cool_alpha_ = ramp_alpha(m.dt, pd.cooling_time_constant.si());
    filler_w_ = mitigated && pd.filler.enabled() ? pd.filler.power_level * m.tdp_w : 0.0;
    smooth_ = mitigated && pd.smoothing.enabled();
    if (mitigated && pd.storage.enabled()) {
      store_.emplace(pd.storage, m.dt);
      at_rack_ = pd.storage.location == StorageLocation::Rack;
    }
    natural_.assign(m.stages.size(), m.idle_w);
    gpu_.assign(m.stages.size(), m.idle_w);
    it_.assign(m.stages.size(), 0.0);
    for (size_t r = 0; r < m.stages.size(); ++r) smoothers_.emplace_back(pd.smoothing, m.tdp_w);
    for (auto& s : smoothers_) s.reset(m.idle_w);
  }

  // Starts every filter at the level of `state` (no transient at the beginning of a timeline).
  void settle(JobState state) {
    for (int i = 0; i < 2; ++i) {
      step(state, 0.0);
      for (size_t r = 0; r < gpu_.size(); ++r) natural_[r] = last_demand_[r], smoothers_[r].reset(gpu_[r]);
      heat_w_ = hall_grid_w_;
      if (store_) store_->reset(at_rack_ ? hall_w_ : meter_load_w_);
    }
  }

  // What the store sees (the hall behind the PDUs, or the meter), and a restart of the store
  // at a known average of it: half full, asking the grid for that average.
  [[nodiscard]] double storage_load_w() const { return at_rack_ ? hall_w_ : meter_load_w_; }
  void reset_storage(double average_load_w) {
    if (store_) store_->reset(average_load_w);
  }

  // One sample: the job in `state`, `phase` seconds into its iteration when training.
  void step(JobState state, double phase) {
    const bool running = state != JobState::Stopped;
    last_demand_.resize(m_.stages.size());
    double hall = m_.always_on_w;
    for (size_t r = 0; r < m_.stages.size(); ++r) {
      const StageTable& t = m_.stages[r];
      double demand = m_.idle_w, activity = 0;
      if (state == JobState::Training) {
        const size_t i = t.index(phase);
        demand = t.sample_power[i];
        activity = t.sample_activity[i];
      } else if (state == JobState::CheckpointStall) {
        demand = std::max(m_.idle_w, filler_w_);
      }
      last_demand_[r] = demand;
      natural_[r] += (demand - natural_[r]) * gpu_alpha_;  // the GPU's own ramp
      double y = natural_[r];
      if (smooth_) {
        y = smoothers_[r].step(natural_[r], running, m_.dt);
        if (state == JobState::Training) {
          shortfall_j_ += std::max(0.0, natural_[r] - y) * m_.dt * t.gpus;
          demanded_j_ += std::max(0.0, natural_[r] - m_.idle_w) * m_.dt * t.gpus;
        }
      }
      gpu_[r] = y;
      const double host = m_.host_idle_per_gpu + m_.host_span_per_gpu * activity;
      it_[r] = y + host + std::min(m_.fan_fraction * (y + host), m_.fan_cap_per_gpu);
      hall += it_[r] * t.gpus;
    }
    hall_w_ = hall;
    hall_grid_w_ = store_ && at_rack_ ? store_->step(hall) : hall;
    heat_w_ += (hall_grid_w_ - heat_w_) * cool_alpha_;  // the plant answers the heat with a lag
    const double load = hall_grid_w_ / m_.design_w;
    const FacilitySpec& f = m_.in->facility;
    const double distribution = f.cooling.fixed_loss * m_.design_w + f.cooling.proportional_loss * hall_grid_w_ +
                                f.cooling.square_loss * hall_grid_w_ * load;
    meter_load_w_ = hall_grid_w_ + distribution + heat_w_ * m_.cooling_per_w;
    meter_w_ = store_ && !at_rack_ ? store_->step(meter_load_w_) : meter_load_w_;
  }

  [[nodiscard]] const std::vector<double>& gpu() const { return gpu_; }
  [[nodiscard]] const std::vector<double>& it_per_gpu() const { return it_; }
  [[nodiscard]] double hall_w() const { return hall_grid_w_; }
  [[nodiscard]] double meter_w() const { return meter_w_; }
  [[nodiscard]] double shortfall_j() const { return shortfall_j_; }
  [[nodiscard]] double demanded_j() const { return demanded_j_; }
  [[nodiscard]] double storage_loss_j() const { return store_ ? store_->lost_j() : 0.0; }

 private:
  const Model& m_;
  bool smooth_ = false, at_rack_ = false;
  double gpu_alpha_ = 1, cool_alpha_ = 1, filler_w_ = 0;
  std::vector<double> natural_, gpu_, it_, last_demand_;
  std::vector<GpuSmoother> smoothers_;
  std::optional<EnergyStore> store_;
  double hall_w_ = 0, hall_grid_w_ = 0, heat_w_ = 0, meter_load_w_ = 0, meter_w_ = 0;
  double shortfall_j_ = 0, demanded_j_ = 0;
};

// The largest rise and fall of a signal over a sliding window of `n` samples, per second.
class RampTracker {
 public:
  RampTracker(size_t n, double dt)
      : n_(std::max<size_t>(1, n)), seconds_(static_cast<double>(n_) * dt), history_(n_, 0.0) {}
  void add(double v) {
    if (seen_ >= n_) {
      const double change = (v - history_[next_]) / seconds_;
      up_ = std::max(up_, change);
      down_ = std::max(down_, -change);
    }
    history_[next_] = v;  // a ring of the last n samples
    next_ = next_ + 1 == n_ ? 0 : next_ + 1;
    ++seen_;
  }
  [[nodiscard]] double up() const { return up_; }
  [[nodiscard]] double down() const { return down_; }

 private:
  size_t n_;
  double seconds_;
  std::vector<double> history_;
  size_t next_ = 0, seen_ = 0;
  double up_ = 0, down_ = 0;
};

struct Steady {
  PowerLevels swing, mean;
  double telemetry_swing_mw = 0;
  PowerSpectrum spectrum;
  BandFigures bands;
  std::vector<TimeSeries> first_minute;
};

BandFigures bands_of(const PowerSpectrum& s) {
  BandFigures b;
  for (size_t i = 0; i < kPowerBands.size(); ++i) {
    b.share[i] = s.band_share(kPowerBands[i]);
    b.rms_mw[i] = std::sqrt(s.band_variance(kPowerBands[i]));
  }
  return b;
}

// Steady training: filters settled, then spectrum_window of samples from the start of an iteration.
Steady steady_training(const Model& m, bool mitigated) {
  const PowerDynamicsSpec& pd = m.in->facility.power;
  Simulator sim(m, mitigated);
  sim.settle(JobState::Training);
  const double period = m.in->iteration_period.si();
  const double warmup = std::min(3600.0, std::max({2 * period, 10 * pd.gpu_time_constant.si(),
                                                   10 * pd.cooling_time_constant.si(),
                                                   mitigated ? 20 * pd.storage.averaging_time().si() : 0.0,
                                                   mitigated ? 2 * pd.smoothing.hold_time.si() : 0.0}));
  const auto n_warm = checked_cast<size_t>(std::ceil(warmup / m.dt), "power warm-up samples");
  // The first iteration tells the store the load's average, so its slow loop starts settled.
  const auto n_period = std::max<size_t>(1, checked_cast<size_t>(std::llround(period / m.dt), "samples per iteration"));
  double first_iteration = 0;
  for (size_t k = 0; k < n_warm; ++k) {
    sim.step(JobState::Training, std::fmod(static_cast<double>(k) * m.dt, period));
    if (k < n_period) first_iteration += sim.storage_load_w();
    if (k + 1 == n_period) sim.reset_storage(first_iteration / static_cast<double>(n_period));
  }
  size_t n = 16;
  while (static_cast<double>(n * 2) * m.dt <= pd.spectrum_window.si() * (1 + 1e-9)) n *= 2;
  const size_t minute = std::min(n, checked_cast<size_t>(std::ceil(60.0 / m.dt), "samples in a minute"));
  const auto n_tel = std::max<size_t>(1, checked_cast<size_t>(std::llround(pd.telemetry_average.si() / m.dt), "telemetry samples"));
  const size_t stages = m.stages.size();
  std::vector<double> gmin(stages, 1e300), gmax(stages, -1e300), imin(stages, 1e300), imax(stages, -1e300), gsum(stages, 0), isum(stages, 0);
  std::vector<double> meter(n);
  double hall_min = 1e300, hall_max = -1e300, hall_sum = 0, meter_sum = 0;
  const double whole = std::floor(static_cast<double>(n) * m.dt / period);
  const size_t n_mean = whole >= 1 ? std::min(n, checked_cast<size_t>(std::llround(whole * period / m.dt), "samples")) : n;
  Steady out;
  out.first_minute = {{"time", "s", "since the start of an iteration in steady training", {}},
                      {"hall", "MW", "IT power of the hall (the job, the idle pool, switches)", {}},
                      {"meter", "MW", "power at the utility meter", {}}};
  for (size_t r = 0; r < stages; ++r)
    out.first_minute.push_back({"gpu_" + m.in->stages[r].name, "W", "one GPU of " + m.in->stages[r].name, {}});
  for (size_t k = 0; k < n; ++k) {
    sim.step(JobState::Training, std::fmod(static_cast<double>(k) * m.dt, period));
    meter[k] = sim.meter_w() / 1e6;
    hall_min = std::min(hall_min, sim.hall_w()), hall_max = std::max(hall_max, sim.hall_w());
    const bool in_mean = k < n_mean;  // means over whole iterations only
    if (in_mean) hall_sum += sim.hall_w(), meter_sum += meter[k];
    for (size_t r = 0; r < stages; ++r) {
      const double g = sim.gpu()[r], i = sim.it_per_gpu()[r];
      gmin[r] = std::min(gmin[r], g), gmax[r] = std::max(gmax[r], g);
      imin[r] = std::min(imin[r], i), imax[r] = std::max(imax[r], i);
      if (in_mean) gsum[r] += g, isum[r] += i;
    }
    if (k < minute) {
      out.first_minute[0].values.push_back(static_cast<double>(k) * m.dt);
      out.first_minute[1].values.push_back(sim.hall_w() / 1e6);
      out.first_minute[2].values.push_back(meter[k]);
      for (size_t r = 0; r < stages; ++r) out.first_minute[3 + r].values.push_back(sim.gpu()[r]);
    }
  }
  const double nn = static_cast<double>(n_mean);
  for (size_t r = 0; r < stages; ++r) {
    out.swing.gpu_w = std::max(out.swing.gpu_w, gmax[r] - gmin[r]);
    out.swing.rack_kw = std::max(out.swing.rack_kw, (imax[r] - imin[r]) * m.rack_gpus / 1e3);
    out.mean.gpu_w = std::max(out.mean.gpu_w, gsum[r] / nn);
    out.mean.rack_kw = std::max(out.mean.rack_kw, isum[r] / nn * m.rack_gpus / 1e3);
  }
  out.swing.hall_mw = (hall_max - hall_min) / 1e6;
  out.mean.hall_mw = hall_sum / nn / 1e6;
  const auto [lo, hi] = std::minmax_element(meter.begin(), meter.end());
  out.swing.meter_mw = *hi - *lo;
  out.mean.meter_mw = meter_sum / nn;
  // Published telemetry averages over 1 s (NVML on Ampere and newer, F31): a moving average.
  double tel_min = 1e300, tel_max = -1e300, run_sum = 0;
  for (size_t k = 0; k < n; ++k) {
    run_sum += meter[k];
    if (k >= n_tel) run_sum -= meter[k - n_tel];
    if (k + 1 >= n_tel) tel_min = std::min(tel_min, run_sum / static_cast<double>(n_tel)),
                        tel_max = std::max(tel_max, run_sum / static_cast<double>(n_tel));
  }
  out.telemetry_swing_mw = tel_max > tel_min ? tel_max - tel_min : 0.0;
  out.spectrum = power_spectrum(meter, m.dt);
  out.bands = bands_of(out.spectrum);
  return out;
}

// The job's states over [from, to), training where the run says nothing.
std::vector<JobStateSpan> states_in(const std::vector<JobStateSpan>& run, double from, double to) {
  std::vector<JobStateSpan> out;
  if (run.empty()) return {{Seconds(from), Seconds(to), JobState::Training}};
  for (const auto& s : run) {
    const double a = std::max(from, s.start.si()), b = std::min(to, s.end.si());
    if (b > a) out.push_back({Seconds(a), Seconds(b), s.state});
  }
  if (out.empty()) out.push_back({Seconds(from), Seconds(to), JobState::Stopped});  // past the run's end
  return out;
}

// The sampled window ends at window_start + window or at the run's end, whichever is first.
double window_end(const PowerDynamicsInputs& in) {
  const PowerDynamicsSpec& pd = in.facility.power;
  return std::min(pd.window_start.si() + pd.window.si(),
                  std::max(in.run_length.si(), pd.window_start.si() + pd.resolution.si()));
}

struct WindowFigures {
  PowerLevels ramp_up, ramp_down;
  double energy_j = 0, shortfall_j = 0, demanded_j = 0, storage_loss_j = 0;
  std::vector<TimeSeries> series;
};

// The sampled window of replication 0: each state span in turn, iterations from each training
// span's start (a restart begins a fresh iteration).
WindowFigures sample_window(const Model& m, bool mitigated, bool keep_series) {
  const PowerDynamicsSpec& pd = m.in->facility.power;
  const double from = pd.window_start.si();
  const std::vector<JobStateSpan> spans = states_in(m.in->run, from, window_end(*m.in));
  Simulator sim(m, mitigated);
  sim.settle(spans.front().state);
  const double period = m.in->iteration_period.si();
  const auto n_ramp = checked_cast<size_t>(std::llround(pd.ramp_window.si() / m.dt), "ramp window samples");
  RampTracker hall_ramp(n_ramp, m.dt), meter_ramp(n_ramp, m.dt);
  const size_t stages = m.stages.size();
  std::vector<double> prev_gpu(sim.gpu()), prev_it(sim.it_per_gpu());
  WindowFigures w;
  const auto per_second = std::max<size_t>(1, checked_cast<size_t>(std::llround(1.0 / m.dt), "samples per second"));
  if (keep_series)
    w.series = {{"time", "h", "since the run began (start of each 1 s average)", {}},
                {"hall", "MW", "IT power of the hall, 1 s average", {}},
                {"meter", "MW", "power at the utility meter, 1 s average", {}},
                {"job_state", "", "0 training, 1 checkpoint stall, 2 stopped (at the second's start)", {}}};
  double hall_acc = 0, meter_acc = 0;
  size_t in_second = 0, k = 0;
  for (const JobStateSpan& s : spans) {
    const double start = s.start.si();
    double phase = -1;  // seconds into the iteration, carried from sample to sample
    for (double t = from + static_cast<double>(k) * m.dt; t < s.end.si(); t = from + static_cast<double>(++k) * m.dt) {
      if (phase < 0) phase = std::fmod(std::max(0.0, t - start), period);
      else if ((phase += m.dt) >= period) phase -= period;
      if (keep_series && in_second == 0) {
        w.series[0].values.push_back(t / 3600.0);
        w.series[3].values.push_back(static_cast<double>(static_cast<int>(s.state)));
      }
      sim.step(s.state, phase);
      for (size_t r = 0; r < stages; ++r) {
        const double dg = (sim.gpu()[r] - prev_gpu[r]) / m.dt;
        const double di = (sim.it_per_gpu()[r] - prev_it[r]) / m.dt * m.rack_gpus / 1e3;
        w.ramp_up.gpu_w = std::max(w.ramp_up.gpu_w, dg), w.ramp_down.gpu_w = std::max(w.ramp_down.gpu_w, -dg);
        w.ramp_up.rack_kw = std::max(w.ramp_up.rack_kw, di), w.ramp_down.rack_kw = std::max(w.ramp_down.rack_kw, -di);
        prev_gpu[r] = sim.gpu()[r], prev_it[r] = sim.it_per_gpu()[r];
      }
      hall_ramp.add(sim.hall_w() / 1e6);
      meter_ramp.add(sim.meter_w() / 1e6);
      w.energy_j += sim.meter_w() * m.dt;
      if (keep_series) {
        hall_acc += sim.hall_w(), meter_acc += sim.meter_w();
        if (++in_second == per_second) {
          w.series[1].values.push_back(hall_acc / static_cast<double>(per_second) / 1e6);
          w.series[2].values.push_back(meter_acc / static_cast<double>(per_second) / 1e6);
          hall_acc = meter_acc = 0, in_second = 0;
        }
      }
    }
  }
  if (keep_series && in_second > 0) {
    w.series[1].values.push_back(hall_acc / static_cast<double>(in_second) / 1e6);
    w.series[2].values.push_back(meter_acc / static_cast<double>(in_second) / 1e6);
  }
  w.ramp_up.hall_mw = hall_ramp.up(), w.ramp_down.hall_mw = hall_ramp.down();
  w.ramp_up.meter_mw = meter_ramp.up(), w.ramp_down.meter_mw = meter_ramp.down();
  w.shortfall_j = sim.shortfall_j();
  w.demanded_j = sim.demanded_j();
  w.storage_loss_j = sim.storage_loss_j();
  return w;
}

// The job's GPUs idle, everything settled: the level a stop falls to.
PowerLevels stopped_levels(const Model& m) {
  Simulator sim(m, false);
  sim.settle(JobState::Stopped);
  PowerLevels p;
  p.gpu_w = m.idle_w;
  p.rack_kw = sim.it_per_gpu().empty() ? 0.0 : sim.it_per_gpu()[0] * m.rack_gpus / 1e3;
  p.hall_mw = sim.hall_w() / 1e6;
  p.meter_mw = sim.meter_w() / 1e6;
  return p;
}

void check(const PowerDynamicsInputs& in) {
  auto bad = [](const std::string& what) { throw std::invalid_argument("power dynamics: " + what); };
  if (in.stages.empty()) bad("no pipeline stages");
  if (!(in.iteration_period.si() > 0)) bad("the iteration period must be positive");
  if (!(in.facility.power.resolution.si() > 0)) bad("facility.power_dynamics.resolution must be positive");
  for (const auto& s : in.stages)
    if (s.activity.empty() || !(s.gpus >= 0)) bad("stage '" + s.name + "' has no activity cells");
}

bool any_mitigation(const PowerDynamicsSpec& pd) {
  return pd.smoothing.enabled() || pd.storage.enabled() || pd.filler.enabled();
}

}  // namespace

PowerDynamicsResult evaluate_power_dynamics(const PowerDynamicsInputs& in) {
  check(in);
  const PowerDynamicsSpec& pd = in.facility.power;
  const bool mitigated = any_mitigation(pd);
  const Model plain = make_model(in, false);
  const Model model = mitigated ? make_model(in, true) : plain;

  PowerDynamicsResult r;
  r.iteration_period_s = in.iteration_period.si();
  const Steady steady = steady_training(model, mitigated);
  r.iteration_swing = steady.swing;
  r.iteration_swing_telemetry_mw = steady.telemetry_swing_mw;
  r.training_mean = steady.mean;
  r.spectrum = steady.spectrum;
  r.bands = steady.bands;
  r.steady = steady.first_minute;
  r.stopped = stopped_levels(plain);
  r.job_stop_swing = {r.training_mean.gpu_w - r.stopped.gpu_w, r.training_mean.rack_kw - r.stopped.rack_kw,
                      r.training_mean.hall_mw - r.stopped.hall_mw, r.training_mean.meter_mw - r.stopped.meter_mw};

  WindowFigures w = sample_window(model, mitigated, true);
  r.ramp_up = w.ramp_up;
  r.ramp_down = w.ramp_down;
  r.window_energy_mwh = w.energy_j / 3.6e9;
  r.window = std::move(w.series);

  if (mitigated) {
    const Steady base = steady_training(plain, false);
    r.unmitigated_iteration_swing = base.swing;
    r.unmitigated_bands = base.bands;
    // Without mitigations the window's energy is its states' steady levels times their time (the
    // GPU ramps and the cooling lag move energy by milliseconds, not across the window).
    double base_j = 0;
    const double from = pd.window_start.si();
    for (const auto& sp : states_in(in.run, from, window_end(in))) {
      const double level = sp.state == JobState::Training ? base.mean.meter_mw : r.stopped.meter_mw;
      base_j += level * 1e6 * (sp.end - sp.start).si();
    }
    r.extra_energy_share = base_j > 0 ? (w.energy_j - base_j) / base_j : 0.0;
    r.extra_energy_run_mwh = r.extra_energy_share * in.run_facility_energy.si() / 3.6e9;
    r.extra_cost_usd = r.extra_energy_share * (in.run_facility_energy * in.facility.site.energy_price).si();
    r.storage_loss_mwh = w.storage_loss_j / 3.6e9;
    // First order: the work a GPU could not do is the share of its dynamic power it was refused.
    const double refused = w.demanded_j > 0 ? w.shortfall_j / w.demanded_j : 0.0;
    r.throughput_loss = 1.0 - (1.0 - (pd.filler.enabled() ? pd.filler.throughput_cost : 0.0)) * (1.0 - refused);
  } else {
    r.unmitigated_iteration_swing = r.iteration_swing;
    r.unmitigated_bands = r.bands;
  }

  // Whole run: the meter's level per state, a step at each change.
  r.run_levels = {{"time", "h", "since the run began: the job's state changes", {}},
                  {"meter", "MW", "power at the meter from then on (steady level of the state)", {}}};
  const std::vector<JobStateSpan> all = states_in(in.run, 0.0, std::max(in.run_length.si(), pd.resolution.si()));
  double level = -1;
  for (const auto& s : all) {
    const double v = s.state == JobState::Training ? r.training_mean.meter_mw : r.stopped.meter_mw;
    if (level >= 0 && v != level) {
      const double step = std::fabs(v - level);
      ++r.run_steps;
      if (step >= 10.0) ++r.run_steps_over_10mw;
      r.run_largest_step_mw = std::max(r.run_largest_step_mw, step);
    }
    if (v != level) {
      r.run_levels[0].values.push_back(s.start.si() / 3600.0);
      r.run_levels[1].values.push_back(v);
    }
    level = v;
  }
  return r;
}

}  // namespace fleetsim::facility
