// The cooling plant and power distribution: facility power and PUE from IT power and the outdoor
// temperature (reliability_energy.md §4.2), and the temperature at the GPU inlet.
#pragma once

#include "sim/facility/specs.hpp"

namespace fleetsim::facility {

// Cooling mode at one outdoor temperature: free cooling, a blend, or mechanical (chillers).
struct PlantMode {
  double free_cooling_share = 0.0;  // 1 = full economizer, 0 = full mechanical
  double cop = 0.0;                 // heat removed per W of plant power (chillers, towers, pumps)
};

// Mechanical COP, linearized Carnot: COP(T) = COP_25 · (1 + k·(25 °C − T)), clamped to
// [1, economizer_cop]. A Carnot plant with ~18 K lift at 25 °C has k ≈ 1/18 K ≈ 0.055 (§4.2).
[[nodiscard]] double chiller_cop(const CoolingSpec& c, Celsius outdoor);

// Economizer at or below the threshold; over the partial band the plant power per W of heat
// moves linearly from 1/COP_econ to 1/COP_mech; mechanical above.
[[nodiscard]] PlantMode plant_mode(const CoolingSpec& c, Celsius outdoor);

struct FacilityPower {
  Watts it;            // IT equipment (servers, switches; server fans included)
  Watts distribution;  // UPS, PDU, transformers
  Watts cooling;       // CRAH/CDU fans, pumps, chillers or towers
  Watts total;
  [[nodiscard]] double pue() const { return it.si() > 0.0 ? total / it : 1.0; }
};

// §4.2: P_elec = L0·P_des + l1·P + l2·P²/P_des;  P_cool = P·(f_air + 1/COP_plant(T)).
[[nodiscard]] FacilityPower facility_power(const CoolingSpec& c, Watts it, Watts design_it,
                                           Celsius outdoor);

// GPU inlet (air) or coolant supply temperature: the set point, plus a rise that tracks the
// outdoor temperature above the economizer threshold (direct evaporative air halls, §3.3).
[[nodiscard]] Celsius gpu_inlet_temperature(const CoolingSpec& c, Celsius outdoor);

}  // namespace fleetsim::facility
