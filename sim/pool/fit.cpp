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

namespace {

double phi(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// E[min(X, c)] of a log-normal with median m and shape s (Johnson, Kotz & Balakrishnan: the
// partial expectation of a log-normal).
double capped_lognormal_mean(double m, double s, double c) {
  const double z = std::log(c / m) / s;
  return m * std::exp(0.5 * s * s) * phi(z - s) + c * (1.0 - phi(z));
}

double total_weight(const std::vector<double>& w) {
  double t = 0;
  for (double x : w) t += x;
  return t;
}

// Marginal P(r < x) of the mixture.
double mixture_cdf(const ConditionalRunTimes& m, const std::vector<double>& g, const std::vector<double>& w, double x) {
  double p = 0;
  for (size_t i = 0; i < g.size(); ++i) p += w[i] * phi((std::log(x) - std::log(m.median_s(g[i]))) / m.sigma);
  return p / total_weight(w);
}

// m1 that puts the marginal median at `median` (the CDF at `median` falls as m1 grows).
double median_1gpu_for(ConditionalRunTimes m, const std::vector<double>& g, const std::vector<double>& w, double median) {
  double lo = std::log(median) - 60.0, hi = std::log(median) + 60.0;
  for (int it = 0; it < 100; ++it) {
    m.median_1gpu_s = std::exp(0.5 * (lo + hi));
    (mixture_cdf(m, g, w, median) > 0.5 ? lo : hi) = std::log(m.median_1gpu_s);
  }
  return std::exp(0.5 * (lo + hi));
}

}  // namespace

double ConditionalRunTimes::median_s(double gpus) const { return median_1gpu_s * std::pow(gpus, beta); }

RunTimeStats conditional_run_time_stats(const ConditionalRunTimes& m, const std::vector<double>& g,
                                        const std::vector<double>& w, double cap) {
  RunTimeStats s;
  const double tw = total_weight(w);
  for (size_t i = 0; i < g.size(); ++i) {
    const double e = capped_lognormal_mean(m.median_s(g[i]), m.sigma, cap);
    s.mean += w[i] * e / tw;
    s.gpu_s_per_job += w[i] * g[i] * e / tw;
  }
  double lo = -30, hi = 30;  // ln of the marginal median
  for (int it = 0; it < 100; ++it) {
    const double mid = 0.5 * (lo + hi);
    (mixture_cdf(m, g, w, std::exp(mid)) < 0.5 ? lo : hi) = mid;
  }
  s.median = std::exp(0.5 * (lo + hi));
  return s;
}

ConditionalRunTimes fit_conditional_run_times(const std::vector<double>& g, const std::vector<double>& w,
                                              double run_mean, double run_median, double gpu_s_per_job, double cap) {
  if (g.empty() || g.size() != w.size() || !(total_weight(w) > 0))
    throw std::invalid_argument("fit_conditional_run_times: need sizes with positive weights");
  if (!(run_mean > run_median && run_median > 0 && run_mean < cap && gpu_s_per_job > 0))
    throw std::invalid_argument("fit_conditional_run_times: need cap > mean > median > 0");
  // For a given beta: m1 from the median and sigma from the mean (the capped mean rises with
  // sigma at a fixed median while the median is far below the cap).
  auto solve = [&](double beta) {
    ConditionalRunTimes m;
    m.beta = beta;
    double lo = 1e-3, hi = 8.0;
    for (int it = 0; it < 60; ++it) {
      m.sigma = 0.5 * (lo + hi);
      m.median_1gpu_s = median_1gpu_for(m, g, w, run_median);
      double mean = 0;
      for (size_t i = 0; i < g.size(); ++i) mean += w[i] * capped_lognormal_mean(m.median_s(g[i]), m.sigma, cap);
      (mean / total_weight(w) < run_mean ? lo : hi) = m.sigma;
    }
    m.sigma = 0.5 * (lo + hi);
    m.median_1gpu_s = median_1gpu_for(m, g, w, run_median);
    return m;
  };
  const double target = gpu_s_per_job / run_mean;  // E[g r] / E[r]
  double lo = -2.0, hi = 3.0;
  auto ratio = [&](double beta) {
    const ConditionalRunTimes m = solve(beta);
    double e = 0, ge = 0;
    for (size_t i = 0; i < g.size(); ++i) {
      const double x = w[i] * capped_lognormal_mean(m.median_s(g[i]), m.sigma, cap);
      e += x;
      ge += g[i] * x;
    }
    return ge / e;
  };
  if (!(ratio(lo) < target && ratio(hi) > target))
    throw std::invalid_argument("fit_conditional_run_times: GPU-time per job out of reach for -2 <= beta <= 3");
  for (int it = 0; it < 50; ++it) {
    const double mid = 0.5 * (lo + hi);
    (ratio(mid) < target ? lo : hi) = mid;
  }
  return solve(0.5 * (lo + hi));
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
