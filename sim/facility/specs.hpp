// Resolved inputs of the facility model: cooling plant, site climate, prices and carbon.
//
// Model and defaults: docs/research/reliability_energy.md §4 and
// data/validation/cooling_pue.csv. What each field does in the model: sim/facility/README.md;
// keys, units and defaults of the scenario files: sim/config/scenario_schema.cpp.
#pragma once

#include <string>

#include "sim/units/quantity.hpp"

namespace fleetsim {

using WattsPerSecond = decltype(Watts() / Seconds());  // a power ramp rate

enum class CoolingKind { AirChiller, AirEconomizer, LiquidDirect, Immersion };

// The scenario's spelling of a kind (facility.cooling.kind; scenario_builder.cpp parses it).
inline const char* cooling_kind_name(CoolingKind k) {
  switch (k) {
    case CoolingKind::AirChiller: return "air_chiller";
    case CoolingKind::AirEconomizer: return "air_economizer";
    case CoolingKind::LiquidDirect: return "liquid_direct";
    case CoolingKind::Immersion: return "immersion";
  }
  return "air_chiller";
}

struct CoolingSpec {
  std::string name;
  CoolingKind kind = CoolingKind::AirChiller;
  double fixed_loss = 0.02;            // L0: distribution losses at zero load, share of design IT power
  double proportional_loss = 0.03;     // l1: UPS/PDU loss per W of IT
  double square_loss = 0.01;           // l2: I^2R losses (at design load, share of design IT power)
  double fan_pump_fraction = 0.06;     // CRAH/CDU fans and pumps per W of IT
  double chiller_cop_at_25c = 6.0;     // mechanical cooling COP at 25 degC outdoor wet-bulb
  double chiller_cop_per_kelvin = 0.05;  // relative COP gain per kelvin of outdoor temperature below 25 degC
  Celsius economizer_threshold{10.0};  // full free cooling at or below this outdoor wet-bulb temperature
  Kelvin economizer_partial_band{4.0}; // added: partial free cooling over this band above the threshold
  double economizer_cop = 25.0;        // heat removed per W of pumps and tower fans in free cooling
  Celsius gpu_inlet_temperature{25.0}; // air inlet or coolant supply at the (hottest) GPU
  double inlet_tracks_outdoor = 0.0;   // inlet rise per kelvin of outdoor temperature above threshold
  double server_fan_fraction = 0.1;    // server fan power per W of the rest of the node (air); ~0 for liquid
  double thermal_resistance_scale = 1.0;  // multiplies the GPU's junction thermal resistance
  // Labelled claims (default neutral; a scenario that sets them says whose claim it is):
  double failure_rate_multiplier = 1.0;   // e.g. 0.35 for Baidu's "60-70% fewer failures" [U]
  double throughput_multiplier = 1.0;     // added: e.g. 1.10 for Baidu's "+10% performance" [U]
};

struct SiteSpec {
  std::string name;                    // added: preset name ("" when given inline)
  Celsius mean_temperature{12.0};      // annual mean outdoor wet-bulb
  Kelvin seasonal_amplitude{8.0};      // half the difference between warmest and coldest day means
  Kelvin diurnal_amplitude{3.0};       // half the day's max-min swing
  int warmest_day_of_year = 200;       // added: day of the seasonal maximum (200 = 19 July, north)
  int start_day_of_year = 1;           // added: calendar day the run starts (1 = 1 January)
  std::string hourly_csv;              // optional: hourly outdoor temperature file (replaces the profile)
  DollarsPerJoule energy_price;        // 0 = cost not reported
  KilogramsPerJoule carbon_intensity;  // location-based grid intensity; 0 = carbon not reported
};

// Added (issue #29): the sub-second power of the training job as the grid sees it, and its
// mitigations. Model and sources: sim/facility/README.md ("Power dynamics"),
// data/validation/power_dynamics.csv.
struct GpuPowerSmoothingSpec {       // GB200/GB300-style power smoothing (F16, F20)
  double floor = 0.0;                // minimum power floor, share of TDP while the job runs (0 = none)
  WattsPerSecond ramp_up_rate;       // per GPU; 0 = unlimited
  WattsPerSecond ramp_down_rate;     // per GPU; 0 = unlimited
  Seconds hold_time;                 // ramp-down hysteresis: power holds this long before it falls
  [[nodiscard]] bool enabled() const {
    return floor > 0.0 || ramp_up_rate.si() > 0.0 || ramp_down_rate.si() > 0.0 || hold_time.si() > 0.0;
  }
};

enum class StorageLocation { Rack, Site };

struct EnergyStorageSpec {           // rack (GB300 PSU, F22) or site batteries (F52)
  Joules capacity;                   // usable energy, whole facility; 0 = none
  Watts power;                       // charge / discharge limit, whole facility
  double efficiency = 0.9;           // round trip
  Seconds time_constant;             // the grid follows the load's moving average over this time;
                                     // 0 = capacity / power (how long the store gives full power)
  [[nodiscard]] Seconds averaging_time() const {
    return time_constant.si() > 0 || power.si() <= 0 ? time_constant : capacity / power;
  }
  StorageLocation location = StorageLocation::Site;
  [[nodiscard]] bool enabled() const { return capacity.si() > 0.0 && power.si() > 0.0; }
};

struct FillerWorkSpec {              // a power-hungry secondary workload in the troughs (F19)
  double power_level = 0.0;          // GPU power it holds in non-compute phases, share of TDP (0 = none)
  double throughput_cost = 0.0;      // training throughput it takes (F19: 5% with MPS)
  [[nodiscard]] bool enabled() const { return power_level > 0.0; }
};

struct PowerDynamicsSpec {
  bool timeline = false;             // facility.power_timeline
  Seconds resolution{0.01};          // sample period of the timeline
  Seconds window{86400.0};           // the represented stretch of replication 0 (one day)
  Seconds window_start{0.0};         // where that stretch begins in the run
  Seconds gpu_time_constant{0.01};   // first-order ramp of a GPU's power to a new phase's level
  Seconds cooling_time_constant{60.0};  // cooling plant power follows the heat load this slowly
  int rack_gpus = 32;                // GPUs per rack (4 HGX nodes) for the rack level
  Seconds ramp_window{1.0};          // ramp rate = largest change over this window / window
  Seconds telemetry_average{1.0};    // NVML's 1 s average on Ampere and newer (F31)
  Seconds spectrum_window{655.36};   // steady training analysed for the spectrum (2^16 samples)
  GpuPowerSmoothingSpec smoothing;
  EnergyStorageSpec storage;
  FillerWorkSpec filler;
};

struct FacilitySpec {
  CoolingSpec cooling;
  SiteSpec site;
  double resource_utilization = 1.0;   // pool allocation factor until a pool model exists
  double arrhenius_activation_ev = 0.3;  // failure acceleration with temperature (§1.5)
  Seconds time_step{3600.0};           // facility time-series resolution
  // Added: GPU power by phase, P = idle + (tdp - idle) * activity^exponent (§4.4).
  double gpu_activity_compute = 0.95;       // dense GEMM phases [U: 0.9-1.0]
  double gpu_activity_communication = 0.4;  // exposed communication, pipeline bubbles [U: 0.3-0.5]
  double gpu_power_exponent = 1.0;          // alpha [U]
  Watts design_it_power;               // added: facility design IT load; 0 = the pool's nameplate
  // Added: failure-rate coupling. Failure profiles are calibrated on air-cooled halls (Llama 3);
  // the Arrhenius factor is 1 at this inlet with the GPU's own (unscaled) thermal resistance.
  Celsius failure_reference_inlet_temperature{25.0};
  double thermally_activated_failure_share = 0.78;  // Llama 3: 78% of unexpected interruptions hardware
  PowerDynamicsSpec power;             // added (issue #29): sub-second power, off by default
};

}  // namespace fleetsim
