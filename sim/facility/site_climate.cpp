#include "sim/facility/site_climate.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <numbers>
#include <string>

#include "sim/core/error.hpp"
#include "sim/core/files.hpp"

namespace fleetsim::facility {
namespace {

constexpr double kDaysPerYear = 365.0;
constexpr double kHottestHour = 15.0;  // local time of the daily maximum (typical, [U])

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r\"");
  size_t b = s.find_last_not_of(" \t\r\"");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

bool parse_double(const std::string& s, double& v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size() && std::isfinite(v);
}

}  // namespace

std::vector<double> read_hourly_temperature_csv(const std::string& path) {
  // 64 MiB holds decades of hourly rows; a FIFO or a device is never opened.
  if (const std::string problem = file_problem(path, 64u << 20, "a CSV file"); !problem.empty())
    throw ConfigError(path, "facility.site.hourly_csv", problem);
  std::ifstream in(path);
  if (!in) throw ConfigError(path, "facility.site.hourly_csv", "cannot open the file");
  std::vector<double> values;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    std::string last = trim(line.substr(line.find_last_of(',') == std::string::npos
                                            ? 0 : line.find_last_of(',') + 1));
    double v = 0.0;
    if (parse_double(last, v)) {
      values.push_back(v);
      continue;
    }
    if (values.empty() && lineno == 1) {  // the header: its last column must say the unit
      if (last.size() < 4 || last.substr(last.size() - 4) != "degC")
        throw ConfigError(path, "facility.site.hourly_csv",
                          "the last column's name must end in 'degC' (e.g. 'wet_bulb_degC'), got '" +
                              last + "'", lineno);
      continue;
    }
    throw ConfigError(path, "facility.site.hourly_csv",
                      "'" + last + "' is not a temperature in degC", lineno);
  }
  if (values.size() < 24)
    throw ConfigError(path, "facility.site.hourly_csv",
                      "needs at least 24 hourly values, found " + std::to_string(values.size()));
  return values;
}

SiteClimate::SiteClimate(const SiteSpec& site) : site_(site) {
  if (!site.hourly_csv.empty()) hourly_ = read_hourly_temperature_csv(site.hourly_csv);
}

Celsius SiteClimate::at(Seconds t) const {
  const double hours = t.si() / 3600.0 + 24.0 * (site_.start_day_of_year - 1);
  if (!hourly_.empty()) {
    const double n = static_cast<double>(hourly_.size());
    double h = std::fmod(hours, n);
    if (h < 0) h += n;
    const size_t i = static_cast<size_t>(h);
    const double w = h - static_cast<double>(i);
    return {hourly_[i] * (1.0 - w) + hourly_[(i + 1) % hourly_.size()] * w};
  }
  constexpr double two_pi = 2.0 * std::numbers::pi;
  const double day = hours / 24.0 + 1.0;  // 1-based fractional day of year
  const double hour_of_day = std::fmod(hours, 24.0);
  return {site_.mean_temperature.value +
          site_.seasonal_amplitude.si() *
              std::cos(two_pi * (day - site_.warmest_day_of_year) / kDaysPerYear) +
          site_.diurnal_amplitude.si() * std::cos(two_pi * (hour_of_day - kHottestHour) / 24.0)};
}

}  // namespace fleetsim::facility
