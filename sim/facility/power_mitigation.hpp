// The mitigations of a training job's power swings, as sample-by-sample controllers (issue #29):
// GPU power smoothing (GB200/GB300 and the NVML power-smoothing profile: a minimum power floor,
// ramp-up and ramp-down rates, a ramp-down hysteresis; data/validation/power_dynamics.csv F16,
// F20) and energy storage between the load and the grid (GB300 PSU storage F22, site batteries
// F52). Filler work is a change of the GPU's power in its troughs (power_dynamics.cpp).
#pragma once

#include "sim/facility/specs.hpp"

namespace fleetsim::facility {

// One GPU's power smoother. Each sample, the demanded power x (what the workload would draw) is
// raised to the floor while the job runs; the delivered power y follows it no faster than the
// ramp rates, and holds `hold_time` before it starts to fall. y > x is power burned to keep the
// load steady (energy cost); y < x is power the workload wanted and did not get (throughput cost).
class GpuSmoother {
 public:
  GpuSmoother(const GpuPowerSmoothingSpec& spec, double tdp_w)
      : floor_w_(spec.floor * tdp_w), up_(spec.ramp_up_rate.si()), down_(spec.ramp_down_rate.si()),
        hold_(spec.hold_time.si()) {}
  void reset(double power_w) { y_ = power_w, held_ = 0; }
  // Returns the delivered power for one sample of `dt` seconds. Inline: it runs once per stage
  // class and sample, millions of times for a day at 10 ms.
  double step(double demanded_w, bool job_running, double dt) {
    const double x = job_running && demanded_w < floor_w_ ? floor_w_ : demanded_w;
    if (x >= y_) {
      y_ = up_ > 0 && x > y_ + up_ * dt ? y_ + up_ * dt : x;
      held_ = 0;
    } else if (held_ < hold_) {
      held_ += dt;  // hysteresis: hold before ramping down (NVML RAMP_DOWN_HYSTERESIS, F20)
    } else {
      y_ = down_ > 0 && x < y_ - down_ * dt ? y_ - down_ * dt : x;
    }
    return y_;
  }

 private:
  double floor_w_ = 0, up_ = 0, down_ = 0, hold_ = 0;
  double y_ = 0, held_ = 0;
};

// Storage between a load and the grid: the grid is asked for the load's moving average over
// `averaging_time()` (an exponential one), nudged back toward a half-full store over ten time
// constants; the store gives or takes the difference within its power and capacity. Charging
// loses (1 - efficiency) of what it takes (round trip charged on the way in).
class EnergyStore {
 public:
  EnergyStore(const EnergyStorageSpec& spec, double dt);
  void reset(double load_w) { average_w_ = load_w, energy_j_ = 0.5 * spec_.capacity.si(), lost_j_ = 0; }
  // Returns the grid's power for one sample (of the dt given at construction) at `load_w`.
  double step(double load_w);
  [[nodiscard]] double lost_j() const { return lost_j_; }
  [[nodiscard]] double stored_j() const { return energy_j_; }

 private:
  EnergyStorageSpec spec_;
  double dt_ = 0, alpha_ = 1, restore_per_j_ = 0, eta_ = 1;
  double average_w_ = 0, energy_j_ = 0, lost_j_ = 0;
};

}  // namespace fleetsim::facility
