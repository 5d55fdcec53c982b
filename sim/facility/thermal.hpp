// GPU junction temperature, thermal throttling and the Arrhenius acceleration of failures
// (reliability_energy.md §1.5 and §3.3).
#pragma once

#include "sim/facility/specs.hpp"
#include "sim/hardware/specs.hpp"

namespace fleetsim::facility {

// Boltzmann constant in eV/K (CODATA).
inline constexpr double kBoltzmannEv = 8.617333262e-5;

// §3.3: T_j = T_inlet + P · R_th · cooling.thermal_resistance_scale (steady state: the heat sink's
// time constant, tens of seconds, is longer than an iteration, so P is the iteration average).
[[nodiscard]] Celsius junction_temperature(const GpuSpec& gpu, const CoolingSpec& cooling,
                                           Celsius inlet, Watts power);

// §3.3: relative clock f = 1 − κ·max(0, T_j − T_throttle), floored at 0.5 (hardware slowdown
// protects the GPU long before that).
[[nodiscard]] double clock_factor(const GpuSpec& gpu, Celsius junction);

// Iteration throughput at a relative clock: only the compute-bound share of an iteration
// stretches, 1 / (busy / f + 1 − busy).
[[nodiscard]] double iteration_throughput(double clock, double compute_busy_fraction);

// §1.5 (NIST e-Handbook 8.1.5.1): AF = exp[(E_a / k_B)(1/T_ref − 1/T)], T in kelvin.
// AF > 1 when T is hotter than T_ref; E_a = 0 gives 1.
[[nodiscard]] double arrhenius_factor(double activation_ev, Celsius temperature, Celsius reference);

}  // namespace fleetsim::facility
