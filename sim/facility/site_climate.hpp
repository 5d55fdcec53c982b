// Outdoor temperature at a site over a run: a seasonal + diurnal profile, or an hourly file.
//
// The cooling plant is driven by the outdoor wet-bulb temperature (reliability_energy.md §4.2:
// economizer hours and chiller COP depend on T_wb), so "outdoor temperature" means wet-bulb here.
#pragma once

#include <vector>

#include "sim/facility/specs.hpp"

namespace fleetsim::facility {

class SiteClimate {
 public:
  // Reads site.hourly_csv when it is set (throws ConfigError naming the file on a bad file).
  explicit SiteClimate(const SiteSpec& site);

  // Outdoor wet-bulb temperature `t` after the run starts (midnight, local time, on
  // site.start_day_of_year).
  //   profile: T = mean + A_s cos(2π (day - warmest_day)/365) + A_d cos(2π (hour - 15)/24)
  //   file:    linear interpolation between hourly values; hour 0 of the file is 1 January 00:00,
  //            and the series wraps around at its end (a typical-year file has 8760 rows).
  [[nodiscard]] Celsius at(Seconds t) const;

  [[nodiscard]] bool from_file() const { return !hourly_.empty(); }

 private:
  SiteSpec site_;
  std::vector<double> hourly_;  // degC
};

// Hourly values from a CSV file: an optional header whose last column names the unit
// (`..._degC`), then one row per hour; the temperature is the last column of each row.
std::vector<double> read_hourly_temperature_csv(const std::string& path);

}  // namespace fleetsim::facility
