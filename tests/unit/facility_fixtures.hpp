// Hand-built specs for the facility unit tests: round numbers, so expected values can be worked
// out by hand in each test. (Validation tests use the catalog presets instead.)
#pragma once

#include "sim/facility/facility_model.hpp"
#include "sim/facility/specs.hpp"
#include "sim/scenario.hpp"

namespace fleetsim::test {

inline ClusterSpec facility_test_cluster(int gpus = 16384) {
  ClusterSpec c;
  c.gpus = gpus;
  c.gpu.tdp = Watts(700);
  c.gpu.idle_power = Watts(100);
  c.gpu.thermal_resistance = KelvinPerWatt(0.05);
  c.gpu.throttle_temperature = Celsius{60};
  c.gpu.throttle_slope_per_kelvin = 0.002;
  c.node.gpus_per_node = 8;
  c.node.host_power_idle = Watts(1000);
  c.node.host_power_max = Watts(2000);
  c.node.fan_power_max = Watts(500);
  c.fabric.tiers = 2;
  c.fabric.switch_radix = 64;
  c.fabric.gpus_per_leaf = 32;
  c.fabric.switch_power = Watts(1000);
  return c;
}

inline CoolingSpec facility_test_cooling() {
  CoolingSpec c;
  c.fixed_loss = 0.02;
  c.proportional_loss = 0.03;
  c.square_loss = 0.01;
  c.fan_pump_fraction = 0.05;
  c.chiller_cop_at_25c = 5.0;
  c.chiller_cop_per_kelvin = 0.05;
  c.economizer_threshold = Celsius{15};
  c.economizer_partial_band = Kelvin(4);
  c.economizer_cop = 25.0;
  c.gpu_inlet_temperature = Celsius{25};
  c.inlet_tracks_outdoor = 0.0;
  c.server_fan_fraction = 0.0;
  return c;
}

inline FacilitySpec facility_test_spec() {
  FacilitySpec f;
  f.cooling = facility_test_cooling();
  f.site.mean_temperature = Celsius{10};
  f.site.seasonal_amplitude = Kelvin(0);
  f.site.diurnal_amplitude = Kelvin(0);
  f.site.energy_price = DollarsPerJoule(0.10 / 3.6e6);      // 0.10 USD/kWh
  f.site.carbon_intensity = KilogramsPerJoule(0.4 / 3.6e6);  // 0.4 kg/kWh
  f.gpu_activity_compute = 1.0;
  f.gpu_activity_communication = 0.5;
  return f;
}

// A 54-day run at MFU 0.40 with round figures: the facility tests' and bench_facility's input.
inline FacilityInputs facility_test_inputs(int gpus = 16384) {
  FacilityInputs in;
  in.cluster = facility_test_cluster(gpus);
  in.facility = facility_test_spec();
  in.mfu = 0.40;
  in.single_gpu_mfu = 0.50;
  in.compute_busy_fraction = 0.8;
  in.wall_clock = units::days(54);
  in.productive_time = units::days(54) * 0.9;
  in.tokens = Tokens(1e12);
  return in;
}

}  // namespace fleetsim::test
