// The power timeline (sim/facility/power_dynamics.hpp) on a hand-built job: one stage class of
// 16,384 GPUs whose 4 s iteration is 2 s of compute (700 W) then 2 s of communication (400 W),
// GPU and cooling ramps off, so every swing, ramp, band share and mitigation cost below is worked
// out by hand from the fixture's round numbers (facility_fixtures.hpp).
#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>

#include "facility_fixtures.hpp"
#include "sim/facility/cooling_model.hpp"
#include "sim/facility/power_dynamics.hpp"
#include "sim/facility/power_model.hpp"

using namespace fleetsim;
using namespace fleetsim::facility;

namespace {

constexpr double kGpus = 16384;
constexpr double kPeriod = 4.0;

PowerDynamicsInputs square_wave_job() {
  PowerDynamicsInputs in;
  in.cluster = test::facility_test_cluster(static_cast<int>(kGpus));
  in.facility = test::facility_test_spec();  // compute activity 1 (700 W), communication 0.5 (400 W)
  in.facility.power.timeline = true;
  in.facility.power.window = Seconds(600);
  in.facility.power.spectrum_window = Seconds(163.84);  // 2^14 samples
  in.facility.power.gpu_time_constant = Seconds(0);
  in.facility.power.cooling_time_constant = Seconds(0);
  in.iteration_period = Seconds(kPeriod);
  StageActivity s{"stage_0", kGpus, std::vector<double>(400, 0.5)};
  std::fill(s.activity.begin(), s.activity.begin() + 200, 1.0);
  in.stages = {s};
  in.run_length = Seconds(600);
  in.run_facility_energy = Joules(1e12);
  return in;
}

// The meter's power at a hall IT power, as the facility model puts it (tested in
// facility_cooling_test.cpp): the distribution and cooling on top of IT at the site's mean.
double meter_w(const PowerDynamicsInputs& in, double hall_w) {
  const ClusterPower cp = cluster_power(in.cluster, in.facility, {1.0});
  return facility_power(in.facility.cooling, Watts(hall_w), cp.nameplate, in.facility.site.mean_temperature).total.si();
}

// Hall IT with every GPU at `gpu_w` and the host at activity `a` (125 W + 125 W x a per GPU:
// the fixture's 1-2 kW host over 8 GPUs; no server fans), plus the always-on switches.
double hall_w(const PowerDynamicsInputs& in, double gpu_w, double a) {
  const ClusterPower cp = cluster_power(in.cluster, in.facility, {1.0});
  return kGpus * (gpu_w + 125.0 + 125.0 * a) + (cp.idle_pool + cp.network).si();
}

// Extra meter energy of holding the troughs at `trough_w` instead of 400 W (half the time each).
double extra_share(const PowerDynamicsInputs& in, double trough_w, double peak_w = 700) {
  const double base = 0.5 * (meter_w(in, hall_w(in, 700, 1.0)) + meter_w(in, hall_w(in, 400, 0.5)));
  const double held = 0.5 * (meter_w(in, hall_w(in, peak_w, 1.0)) + meter_w(in, hall_w(in, trough_w, 0.5)));
  return (held - base) / base;
}

}  // namespace

TEST_CASE("power timeline: a square-wave iteration swings by its phase powers at GPU, rack, hall and meter", "[unit][power]") {
  const PowerDynamicsInputs in = square_wave_job();
  const PowerDynamicsResult r = evaluate_power_dynamics(in);
  CHECK(r.iteration_swing.gpu_w == Approx(300.0));                           // 700 - 400 W
  CHECK(r.iteration_swing.rack_kw == Approx(32 * (950.0 - 587.5) / 1e3));     // GPU + host, 32 GPUs a rack
  CHECK(r.iteration_swing.hall_mw == Approx(kGpus * 362.5 / 1e6));
  CHECK(r.iteration_swing.meter_mw ==
        Approx((meter_w(in, hall_w(in, 700, 1.0)) - meter_w(in, hall_w(in, 400, 0.5))) / 1e6));
  // Job stop: the training mean (550 W a GPU, host at activity 0.75) down to idle (100 W, host 125 W).
  CHECK(r.job_stop_swing.gpu_w == Approx(450.0));
  CHECK(r.job_stop_swing.hall_mw == Approx(kGpus * (550.0 + 218.75 - 225.0) / 1e6));
  // NVML's 1 s average of a 4 s square wave keeps its full swing (each phase lasts 2 s)...
  CHECK(r.iteration_swing_telemetry_mw == Approx(r.iteration_swing.meter_mw));
  // ...but not a 1 s one: averaging over one whole period flattens it.
  PowerDynamicsInputs fast = in;
  fast.iteration_period = Seconds(1.0);
  fast.facility.power.telemetry_average = Seconds(1.0);
  CHECK(evaluate_power_dynamics(fast).iteration_swing_telemetry_mw < 0.02 * r.iteration_swing.meter_mw);
}

TEST_CASE("power timeline: the spectrum peaks at 1 / iteration period and a square wave's bands hold its odd harmonics", "[unit][power]") {
  const PowerDynamicsResult r = evaluate_power_dynamics(square_wave_job());
  CHECK(r.spectrum.peak_hz == Approx(1.0 / kPeriod).margin(r.spectrum.resolution_hz));
  // Harmonic n of a square wave carries 1/n^2 of the fundamental's power, odd n only; all of them
  // sum to pi^2/8. 0.1-1 Hz holds n = 1, 3; 1-3 Hz holds n = 5, 7, 9, 11.
  const double total = std::numbers::pi * std::numbers::pi / 8.0;
  CHECK(r.bands.share[0] == Approx((1.0 + 1.0 / 9) / total).margin(0.01));
  CHECK(r.bands.share[1] == Approx((1.0 / 25 + 1.0 / 49 + 1.0 / 81 + 1.0 / 121) / total).margin(0.01));
  // Parseval: the band variances of a two-level wave add up to (swing / 2)^2.
  CHECK(r.spectrum.total_variance == Approx(std::pow(r.iteration_swing.meter_mw / 2, 2)).epsilon(0.01));
}

TEST_CASE("power timeline: a 90% power floor shrinks the iteration swing in proportion and costs the trough's energy", "[unit][power]") {
  PowerDynamicsInputs in = square_wave_job();
  const PowerDynamicsResult base = evaluate_power_dynamics(in);
  in.facility.power.smoothing.floor = 0.9;  // 630 W
  const PowerDynamicsResult r = evaluate_power_dynamics(in);
  // The swing shrinks to (700 - 630) / (700 - 400) of itself at the GPU and in the hall's GPU share.
  CHECK(r.iteration_swing.gpu_w == Approx(70.0));
  CHECK(r.iteration_swing.gpu_w / base.iteration_swing.gpu_w == Approx(70.0 / 300.0));
  CHECK(r.iteration_swing.hall_mw == Approx(kGpus * (70.0 + 62.5) / 1e6));  // the host still swings
  CHECK(r.unmitigated_iteration_swing.meter_mw == Approx(base.iteration_swing.meter_mw));
  // Energy: 230 W more for half of each iteration on every GPU, through the facility.
  CHECK(r.extra_energy_share == Approx(extra_share(in, 630)).epsilon(1e-3));
  CHECK(r.extra_energy_run_mwh == Approx(r.extra_energy_share * 1e12 / 3.6e9));
  CHECK(r.extra_cost_usd == Approx(r.extra_energy_share * 1e12 / 3.6e6 * 0.10));
  CHECK(r.throughput_loss == Approx(0.0).margin(1e-12));  // nothing asked for was refused
  for (size_t b = 0; b < 3; ++b) CHECK(r.bands.rms_mw[b] < base.bands.rms_mw[b]);
}

TEST_CASE("power timeline: a ramp-down hold keeps the peak for the hold time and costs that energy", "[unit][power]") {
  PowerDynamicsInputs in = square_wave_job();
  in.facility.power.smoothing.hold_time = Seconds(0.5);
  const PowerDynamicsResult r = evaluate_power_dynamics(in);
  // 300 W more for 0.5 s of every 4 s: the trough's average rises by 300 x 0.5 / 2 = 75 W.
  CHECK(r.extra_energy_share == Approx(extra_share(in, 475)).epsilon(0.03));
  CHECK(r.iteration_swing.gpu_w == Approx(300.0));  // the trough is still reached
}

TEST_CASE("power timeline: ramp-rate limits bound the GPU's ramps and a stop's fall, and refuse power on the way up", "[unit][power]") {
  PowerDynamicsInputs in = square_wave_job();
  // Train 0-201 s, stop 201-400 s, train 400-600 s: the stop comes 1 s into a compute phase.
  in.run = {{Seconds(0), Seconds(201), JobState::Training},
            {Seconds(201), Seconds(400), JobState::Stopped},
            {Seconds(400), Seconds(600), JobState::Training}};
  const PowerDynamicsResult base = evaluate_power_dynamics(in);
  // Unlimited: a stop falls within one sample, so over a 1 s window the meter falls from the
  // compute level to the stopped one, more than the step from the training mean.
  CHECK(base.ramp_down.meter_mw > base.job_stop_swing.meter_mw);
  CHECK(base.ramp_down.gpu_w == Approx(600.0 / 0.01));  // 700 W to 100 W idle in one 10 ms sample
  CHECK(base.run_steps == 2);
  in.facility.power.smoothing.ramp_down_rate = WattsPerSecond(100);
  in.facility.power.smoothing.ramp_up_rate = WattsPerSecond(100);
  const PowerDynamicsResult r = evaluate_power_dynamics(in);
  CHECK(r.ramp_down.gpu_w == Approx(100.0));
  CHECK(r.ramp_up.gpu_w == Approx(100.0));
  // The hall's fall over 1 s: 100 W/s on every GPU, plus the hosts, which drop at once.
  CHECK(r.ramp_down.hall_mw < base.ramp_down.hall_mw);
  CHECK(r.ramp_down.hall_mw >= kGpus * 100.0 / 1e6);
  // 300 W up at 100 W/s takes 3 s, longer than a 2 s compute phase: power is refused, throughput lost.
  CHECK(r.throughput_loss > 0.0);
  CHECK(r.iteration_swing.gpu_w == Approx(200.0).margin(1.0));  // 2 s x 100 W/s each way
}

TEST_CASE("power timeline: filler work holds the troughs at its power level and costs its throughput", "[unit][power]") {
  PowerDynamicsInputs in = square_wave_job();
  const PowerDynamicsResult base = evaluate_power_dynamics(in);
  in.facility.power.filler.power_level = 0.8;  // 560 W
  in.facility.power.filler.throughput_cost = 0.05;
  const PowerDynamicsResult r = evaluate_power_dynamics(in);
  CHECK(r.iteration_swing.gpu_w == Approx(140.0));  // 700 - 560 W
  CHECK(r.extra_energy_share == Approx(extra_share(in, 560)).epsilon(1e-3));
  CHECK(r.throughput_loss == Approx(0.05));
  CHECK(r.bands.rms_mw[0] < base.bands.rms_mw[0]);
}

TEST_CASE("power timeline: storage at the meter flattens the iteration and loses (1 - efficiency) of what it charges", "[unit][power]") {
  PowerDynamicsInputs in = square_wave_job();
  in.facility.power.window = Seconds(3600);
  in.run_length = Seconds(3600);
  const PowerDynamicsResult base = evaluate_power_dynamics(in);
  in.facility.power.storage.capacity = Joules(1e9);
  in.facility.power.storage.power = Watts(20e6);
  in.facility.power.storage.efficiency = 0.9;
  in.facility.power.storage.time_constant = Seconds(100);
  const PowerDynamicsResult r = evaluate_power_dynamics(in);
  // The grid follows a 100 s moving average of a 4 s square wave of swing A: a ripple of
  // A tanh(h / 2 tau) with h = 2 s, about 1% of A; the pull back to half full (the stored energy
  // swings by A/2 x h each half period, over 10 tau) adds A (h / 2) / (10 tau) = 0.1% of A.
  const double a = base.iteration_swing.meter_mw;
  CHECK(r.iteration_swing.meter_mw == Approx(a * (std::tanh(2.0 / 200.0) + 1.0 / 1000.0)).epsilon(0.06));
  CHECK(r.iteration_swing.hall_mw == Approx(base.iteration_swing.hall_mw));  // behind the meter
  // Each iteration the store takes A/2 for 2 s and loses 10% of it: 0.1 x A/2 x 2 s per 4 s.
  CHECK(r.storage_loss_mwh == Approx(0.1 * a / 2 * 2.0 / kPeriod * 3600 / 3600).epsilon(0.05));
  CHECK(r.extra_energy_share > 0.0);
  for (size_t b = 0; b < 3; ++b) CHECK(r.bands.rms_mw[b] < 0.05 * base.bands.rms_mw[b]);
}

TEST_CASE("power timeline: the FFT and the spectrum obey Parseval on a sine", "[unit][power]") {
  std::vector<double> x(4096);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 5.0 + 2.0 * std::sin(2 * std::numbers::pi * 1.5 * static_cast<double>(i) * 0.01);
  const PowerSpectrum s = power_spectrum(x, 0.01);
  CHECK(s.peak_hz == Approx(1.5).margin(s.resolution_hz));
  CHECK(s.total_variance == Approx(2.0).epsilon(0.01));  // amplitude 2: variance 2^2 / 2
  CHECK(s.band_share({1.0, 3.0}) == Approx(1.0).margin(0.01));
  std::vector<std::complex<double>> bad(12);
  CHECK_THROWS_AS(fft_radix2(bad), std::invalid_argument);
}
