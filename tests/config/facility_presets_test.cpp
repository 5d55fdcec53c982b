// Every facility preset in the catalog loads through the scenario resolver with its units, and
// the labelled claim knobs ship neutral (reliability_energy.md §4.3: claims only in scenarios
// that say whose claim they apply).
#include <catch2/catch.hpp>

#include <algorithm>

#include "sim/config/catalog.hpp"
#include "sim/facility/presets.hpp"

using namespace fleetsim;

TEST_CASE("every cooling preset loads and ships its claim knobs neutral", "[config]") {
  const auto names = config::list_presets("cooling");
  for (const char* expected : {"air-chiller", "air-economizer", "liquid-dlc", "immersion"})
    CHECK(std::find(names.begin(), names.end(), expected) != names.end());
  for (const auto& name : names) {
    INFO("models/cooling/" << name << ".yaml");
    const CoolingSpec c = facility::load_cooling_preset(name);
    CHECK(c.failure_rate_multiplier == 1.0);
    CHECK(c.throughput_multiplier == 1.0);
    CHECK(c.economizer_cop >= c.chiller_cop_at_25c);
  }
  CHECK(facility::load_cooling_preset("liquid-dlc").kind == CoolingKind::LiquidDirect);
  CHECK(facility::load_cooling_preset("liquid-dlc").thermal_resistance_scale < 1.0);
  CHECK(facility::load_cooling_preset("immersion").server_fan_fraction == 0.0);
}

TEST_CASE("every site preset loads with a climate, a price and a grid intensity", "[config]") {
  const auto names = config::list_presets("sites");
  REQUIRE_FALSE(names.empty());
  for (const auto& name : names) {
    INFO("models/sites/" << name << ".yaml");
    const SiteSpec s = facility::load_site_preset(name);
    CHECK(s.mean_temperature.value > -30.0);
    CHECK(s.mean_temperature.value < 35.0);
    CHECK(s.energy_price.si() > 0.0);
    CHECK(s.carbon_intensity.si() > 0.0);
  }
}
