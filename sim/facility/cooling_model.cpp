#include "sim/facility/cooling_model.hpp"

#include <algorithm>

namespace fleetsim::facility {

double chiller_cop(const CoolingSpec& c, Celsius outdoor) {
  const double cop = c.chiller_cop_at_25c * (1.0 + c.chiller_cop_per_kelvin * (25.0 - outdoor.value));
  return std::clamp(cop, 1.0, std::max(1.0, c.economizer_cop));
}

PlantMode plant_mode(const CoolingSpec& c, Celsius outdoor) {
  const double above = outdoor.value - c.economizer_threshold.value;
  const double band = c.economizer_partial_band.si();
  double share = 0.0;
  if (above <= 0.0) share = 1.0;
  else if (band > 0.0 && above < band) share = 1.0 - above / band;
  const double per_watt = share / c.economizer_cop + (1.0 - share) / chiller_cop(c, outdoor);
  return {share, 1.0 / per_watt};
}

FacilityPower facility_power(const CoolingSpec& c, Watts it, Watts design_it, Celsius outdoor) {
  FacilityPower p;
  p.it = it;
  const double des = design_it.si() > 0.0 ? design_it.si() : it.si();
  const double load = des > 0.0 ? it.si() / des : 0.0;
  p.distribution = Watts(c.fixed_loss * des + c.proportional_loss * it.si() +
                         c.square_loss * it.si() * load);
  p.cooling = it * (c.fan_pump_fraction + 1.0 / plant_mode(c, outdoor).cop);
  p.total = p.it + p.distribution + p.cooling;
  return p;
}

Celsius gpu_inlet_temperature(const CoolingSpec& c, Celsius outdoor) {
  const double above = std::max(0.0, outdoor.value - c.economizer_threshold.value);
  return {c.gpu_inlet_temperature.value + c.inlet_tracks_outdoor * above};
}

}  // namespace fleetsim::facility
