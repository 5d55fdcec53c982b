#include "sim/facility/energy.hpp"

namespace fleetsim::facility {

Joules tdp_basis_energy(double gpu_hours, Watts tdp) {
  return tdp * units::hours(gpu_hours);
}

Kilograms carbon(Joules facility_energy, const SiteSpec& site) {
  return site.carbon_intensity * facility_energy;
}

Dollars energy_cost(Joules facility_energy, const SiteSpec& site) {
  return site.energy_price * facility_energy;
}

}  // namespace fleetsim::facility
