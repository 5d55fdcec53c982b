#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>

#include "sim/core/error.hpp"
#include "sim/facility/site_climate.hpp"

using namespace fleetsim;
using namespace fleetsim::facility;

namespace {
SiteSpec profile_site() {
  SiteSpec s;
  s.mean_temperature = Celsius{12};
  s.seasonal_amplitude = Kelvin(8);
  s.diurnal_amplitude = Kelvin(3);
  s.warmest_day_of_year = 200;
  s.start_day_of_year = 200;
  return s;
}
}  // namespace

TEST_CASE("the site profile peaks at 15:00 on the warmest day and is coolest at 03:00", "[unit]") {
  const SiteClimate climate(profile_site());  // the run starts at midnight on day 200
  CHECK(climate.at(units::hours(15)).value == Approx(12 + 8 + 3).margin(0.01));
  CHECK(climate.at(units::hours(3)).value == Approx(12 + 8 - 3).margin(0.01));
}

TEST_CASE("the site profile averages to the annual mean over a year", "[unit]") {
  const SiteClimate climate(profile_site());
  double sum = 0.0;
  for (int h = 0; h < 8760; ++h) sum += climate.at(units::hours(h + 0.5)).value;
  CHECK(sum / 8760 == Approx(12).margin(0.05));
  // Half a year from the warmest day is the coldest.
  CHECK(climate.at(units::days(182) + units::hours(15)).value == Approx(12 - 8 + 3).margin(0.01));
}

TEST_CASE("an hourly CSV replaces the profile, interpolates and wraps around", "[unit]") {
  const std::string path = "/tmp/fleetsim_facility_climate_test.csv";
  {
    std::ofstream out(path);
    out << "hour,wet_bulb_degC\n";
    for (int h = 0; h < 48; ++h) out << h << "," << h << "\n";
  }
  SiteSpec s = profile_site();
  s.hourly_csv = path;
  s.start_day_of_year = 2;  // hour 24 of the file
  const SiteClimate climate(s);
  CHECK(climate.from_file());
  CHECK(climate.at(units::hours(0)).value == Approx(24));
  CHECK(climate.at(units::hours(1.5)).value == Approx(25.5));
  CHECK(climate.at(units::hours(24)).value == Approx(0));  // wrapped to hour 0
  std::remove(path.c_str());
}

TEST_CASE("an hourly CSV whose header does not say degC is refused, naming the file", "[unit]") {
  const std::string path = "/tmp/fleetsim_facility_climate_bad.csv";
  {
    std::ofstream out(path);
    out << "hour,temperature\n";
    for (int h = 0; h < 48; ++h) out << h << ",20\n";
  }
  SiteSpec s = profile_site();
  s.hourly_csv = path;
  CHECK_THROWS_AS(SiteClimate(s), ConfigError);
  CHECK_THROWS_WITH(SiteClimate(s), Catch::Contains(path) && Catch::Contains("degC"));
  std::remove(path.c_str());
}
