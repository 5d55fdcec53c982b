// Energy accounting: GPU-hours on a TDP basis, cost and location-based carbon
// (reliability_energy.md §4.6).
#pragma once

#include "sim/facility/specs.hpp"

namespace fleetsim::facility {

// The model-card convention: energy = GPU-hours × TDP (Llama 3.1: 30.84M H100-h × 700 W).
[[nodiscard]] Joules tdp_basis_energy(double gpu_hours, Watts tdp);

// CO2(t) = E_fac · CI_grid (location-based; a market-based figure needs contracts, not modelled).
[[nodiscard]] Kilograms carbon(Joules facility_energy, const SiteSpec& site);
[[nodiscard]] Dollars energy_cost(Joules facility_energy, const SiteSpec& site);

}  // namespace fleetsim::facility
