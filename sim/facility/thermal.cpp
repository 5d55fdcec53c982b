#include "sim/facility/thermal.hpp"

#include <algorithm>
#include <cmath>

namespace fleetsim::facility {

Celsius junction_temperature(const GpuSpec& gpu, const CoolingSpec& cooling, Celsius inlet,
                             Watts power) {
  return inlet + power * gpu.thermal_resistance * cooling.thermal_resistance_scale;
}

double clock_factor(const GpuSpec& gpu, Celsius junction) {
  const double over = std::max(0.0, junction.value - gpu.throttle_temperature.value);
  return std::max(0.5, 1.0 - gpu.throttle_slope_per_kelvin * over);
}

double iteration_throughput(double clock, double compute_busy_fraction) {
  const double busy = std::clamp(compute_busy_fraction, 0.0, 1.0);
  return 1.0 / (busy / std::max(clock, 1e-9) + (1.0 - busy));
}

double arrhenius_factor(double activation_ev, Celsius temperature, Celsius reference) {
  constexpr double kZeroCelsius = 273.15;
  const double t = temperature.value + kZeroCelsius, t_ref = reference.value + kZeroCelsius;
  return std::exp(activation_ev / kBoltzmannEv * (1.0 / t_ref - 1.0 / t));
}

}  // namespace fleetsim::facility
