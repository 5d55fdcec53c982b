#include "sim/pool/fit.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fleetsim::pool {

double lognormal_sigma(double mean, double median) {
  if (!(mean >= median && median > 0)) throw std::invalid_argument("lognormal_sigma: need mean >= median > 0");
  return std::sqrt(2.0 * std::log(mean / median));
}

double power_of_two_size_mean(double median, double sigma, int max_gpus) {
  // E over Z ~ N(0,1) by the midpoint rule on [-8, 8].
  constexpr int kPoints = 2001;
  const double lo = -8.0, hi = 8.0, dz = (hi - lo) / kPoints;
  double sum = 0, wsum = 0;
  for (int i = 0; i < kPoints; ++i) {
    const double z = lo + (i + 0.5) * dz;
    const double w = std::exp(-0.5 * z * z);
    const double x = std::max(0.0, std::log2(median) + sigma * z);
    const double g = std::clamp(std::exp2(std::round(x)), 1.0, static_cast<double>(max_gpus));
    sum += w * g;
    wsum += w;
  }
  return sum / wsum;
}

double power_of_two_size_sigma(double mean, double median, int max_gpus) {
  double lo = 0.0, hi = 10.0;
  if (power_of_two_size_mean(median, hi, max_gpus) < mean)
    throw std::invalid_argument("power_of_two_size_sigma: mean not reachable below the size cap");
  for (int it = 0; it < 60; ++it) {
    const double mid = 0.5 * (lo + hi);
    (power_of_two_size_mean(median, mid, max_gpus) < mean ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double lognormal_median_for_capped_mean(double mean, double sigma, double cap) {
  if (!(mean > 0 && mean < cap && sigma > 0)) throw std::invalid_argument("lognormal_median_for_capped_mean: need 0 < mean < cap");
  auto phi = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  auto capped_mean = [&](double m) {
    const double z = std::log(cap / m) / sigma;
    return m * std::exp(0.5 * sigma * sigma) * phi(z - sigma) + cap * (1.0 - phi(z));
  };
  double lo = std::log(mean) - 50.0, hi = std::log(cap);
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    (capped_mean(std::exp(mid)) < mean ? lo : hi) = mid;
  }
  return std::exp(0.5 * (lo + hi));
}

DiurnalFit fit_diurnal(const std::vector<double>& hourly) {
  if (hourly.size() != 24) throw std::invalid_argument("fit_diurnal: need 24 hourly values");
  const auto mx = std::max_element(hourly.begin(), hourly.end());
  const auto mn = std::min_element(hourly.begin(), hourly.end());
  DiurnalFit f;
  f.peak_to_trough = *mn > 0 ? *mx / *mn : 1e3;
  f.peak_hour = static_cast<double>(mx - hourly.begin());
  return f;
}

}  // namespace fleetsim::pool
