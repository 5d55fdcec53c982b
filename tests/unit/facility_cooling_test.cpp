#include <catch2/catch.hpp>

#include "facility_fixtures.hpp"
#include "sim/facility/cooling_model.hpp"

using namespace fleetsim;
using namespace fleetsim::facility;

TEST_CASE("chiller COP falls as the outdoor temperature rises", "[unit]") {
  const CoolingSpec c = test::facility_test_cooling();  // COP 5 at 25 degC, 5% per kelvin
  CHECK(chiller_cop(c, Celsius{25}) == Approx(5.0));
  CHECK(chiller_cop(c, Celsius{15}) == Approx(7.5));
  CHECK(chiller_cop(c, Celsius{35}) == Approx(2.5));
  CHECK(chiller_cop(c, Celsius{60}) == Approx(1.0));     // never below 1
  CHECK(chiller_cop(c, Celsius{-60}) == Approx(25.0));   // never above free cooling
}

TEST_CASE("the plant free-cools below the threshold, blends over the band, runs chillers above", "[unit]") {
  const CoolingSpec c = test::facility_test_cooling();  // threshold 15 degC, band 4 K
  CHECK(plant_mode(c, Celsius{10}).free_cooling_share == 1.0);
  CHECK(plant_mode(c, Celsius{10}).cop == Approx(25.0));
  const PlantMode half = plant_mode(c, Celsius{17});
  CHECK(half.free_cooling_share == Approx(0.5));
  CHECK(1.0 / half.cop == Approx(0.5 / 25.0 + 0.5 / chiller_cop(c, Celsius{17})));
  CHECK(plant_mode(c, Celsius{25}).free_cooling_share == 0.0);
  CHECK(plant_mode(c, Celsius{25}).cop == Approx(5.0));
}

TEST_CASE("facility power adds distribution losses and cooling to the IT power", "[unit]") {
  const CoolingSpec c = test::facility_test_cooling();
  const Watts design(10e6), it(8e6);
  const FacilityPower p = facility_power(c, it, design, Celsius{25});
  CHECK(p.distribution.si() == Approx(0.02 * 10e6 + 0.03 * 8e6 + 0.01 * 8e6 * 0.8));
  CHECK(p.cooling.si() == Approx(8e6 * (0.05 + 1.0 / 5.0)));
  CHECK(p.pue() == Approx((8e6 + p.distribution.si() + p.cooling.si()) / 8e6));
}

TEST_CASE("PUE rises at low IT load because part of the distribution loss is fixed", "[unit]") {
  const CoolingSpec c = test::facility_test_cooling();
  const Watts design(10e6);
  const double full = facility_power(c, Watts(9e6), design, Celsius{10}).pue();
  const double low = facility_power(c, Watts(2e6), design, Celsius{10}).pue();
  CHECK(low > full + 0.05);
}

TEST_CASE("PUE rises on a hot afternoon when the plant leaves free cooling", "[unit]") {
  const CoolingSpec c = test::facility_test_cooling();
  const Watts design(10e6), it(8e6);
  const double night = facility_power(c, it, design, Celsius{12}).pue();
  const double noon = facility_power(c, it, design, Celsius{28}).pue();
  CHECK(noon - night > 0.1);
}

TEST_CASE("the GPU inlet follows the outdoor temperature above the threshold when the hall tracks it", "[unit]") {
  CoolingSpec c = test::facility_test_cooling();
  CHECK(gpu_inlet_temperature(c, Celsius{30}).value == Approx(25));  // chilled: held
  c.inlet_tracks_outdoor = 1.0;
  CHECK(gpu_inlet_temperature(c, Celsius{10}).value == Approx(25));
  CHECK(gpu_inlet_temperature(c, Celsius{21}).value == Approx(31));
}
