#include <catch2/catch.hpp>

#include <cmath>

#include "facility_fixtures.hpp"
#include "sim/facility/facility_model.hpp"
#include "sim/facility/thermal.hpp"

using namespace fleetsim;
using namespace fleetsim::facility;

TEST_CASE("junction temperature is inlet plus power times the scaled thermal resistance", "[unit]") {
  const auto c = test::facility_test_cluster();  // 0.05 K/W
  CoolingSpec cool = test::facility_test_cooling();
  CHECK(junction_temperature(c.gpu, cool, Celsius{25}, Watts(600)).value == Approx(55));
  cool.thermal_resistance_scale = 0.4;            // cold plate
  CHECK(junction_temperature(c.gpu, cool, Celsius{32}, Watts(600)).value == Approx(44));
}

TEST_CASE("clocks hold below the throttle temperature and drop linearly above it", "[unit]") {
  const GpuSpec gpu = test::facility_test_cluster().gpu;  // 60 degC, 0.2% per kelvin
  CHECK(clock_factor(gpu, Celsius{55}) == 1.0);
  CHECK(clock_factor(gpu, Celsius{70}) == Approx(0.98));
  CHECK(clock_factor(gpu, Celsius{1000}) == Approx(0.5));  // floor
}

TEST_CASE("only the compute-bound share of an iteration stretches when clocks drop", "[unit]") {
  CHECK(iteration_throughput(0.9, 1.0) == Approx(0.9));
  CHECK(iteration_throughput(0.9, 0.0) == Approx(1.0));
  CHECK(iteration_throughput(0.9, 0.5) == Approx(1.0 / (0.5 / 0.9 + 0.5)));
}

TEST_CASE("Arrhenius at 0.7 eV roughly doubles the failure rate per 10 K near 60 degC", "[unit]") {
  CHECK(arrhenius_factor(0.7, Celsius{60}, Celsius{60}) == Approx(1.0));
  const double af = arrhenius_factor(0.7, Celsius{65}, Celsius{55});
  CHECK(af > 1.8);
  CHECK(af < 2.2);
  CHECK(arrhenius_factor(0.7, Celsius{55}, Celsius{65}) == Approx(1.0 / af));
  CHECK(arrhenius_factor(0.0, Celsius{90}, Celsius{40}) == 1.0);
}

TEST_CASE("the failure hook is neutral in the air hall the failure rates were measured in", "[unit]") {
  const auto c = test::facility_test_cluster();
  FacilitySpec f = test::facility_test_spec();  // inlet 25 degC, unscaled resistance
  CHECK(failure_rate_multiplier(c, f, 0.8, units::days(54)) == Approx(1.0));
}

TEST_CASE("liquid cooling lowers the failure hook through temperature, the claim multiplies on top", "[unit]") {
  const auto c = test::facility_test_cluster();
  FacilitySpec f = test::facility_test_spec();
  f.cooling.gpu_inlet_temperature = Celsius{32};
  f.cooling.thermal_resistance_scale = 0.35;
  const double physics = failure_rate_multiplier(c, f, 0.8, units::days(54));
  CHECK(physics < 1.0);
  CHECK(physics > 1.0 - f.thermally_activated_failure_share);
  f.arrhenius_activation_ev = 0.0;
  CHECK(failure_rate_multiplier(c, f, 0.8, units::days(54)) == Approx(1.0));
  f.cooling.failure_rate_multiplier = 0.35;  // "Baidu: 60-70% fewer failures" [U]
  CHECK(failure_rate_multiplier(c, f, 0.8, units::days(54)) == Approx(0.35));
}

TEST_CASE("the throughput hook dips on hot afternoons in an air hall that tracks the weather", "[unit]") {
  const auto c = test::facility_test_cluster();
  FacilitySpec f = test::facility_test_spec();
  f.cooling.inlet_tracks_outdoor = 1.0;
  f.site.mean_temperature = Celsius{22};
  f.site.diurnal_amplitude = Kelvin(4);  // 18..26 degC, threshold 15: inlet 28..36 degC
  const auto factor = throughput_factor(c, f, 0.8);
  const double night = factor(units::hours(3)), noon = factor(units::hours(15));
  CHECK(noon < night);
  // Junction = inlet + 640 W x 0.05 K/W = 60..68 degC: 8 K over the throttle point at 15:00.
  CHECK(night / noon - 1.0 == Approx(0.8 * 8 * 0.002).epsilon(0.1));
  f.cooling.throughput_multiplier = 1.1;  // a labelled claim
  CHECK(throughput_factor(c, f, 0.8)(units::hours(3)) == Approx(1.1 * night));
}
