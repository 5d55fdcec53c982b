// Fitting the pool's job-stream parameters to published summary statistics (the Helios
// calibration of tests/validation/pool_helios_test.cpp; sim/pool/README.md states the split).
#pragma once

#include <vector>

namespace fleetsim::pool {

// Sigma of ln(x) of a log-normal with the given mean and median: mean = median exp(sigma^2 / 2).
double lognormal_sigma(double mean, double median);

// Sigma of log2(GPUs) such that sizes 2^round(log2(median) + sigma Z), clamped to [1, max_gpus],
// have the given mean (bisection on a 2,001-point quadrature of Z).
double power_of_two_size_sigma(double mean, double median, int max_gpus);

// Median of a log-normal with shape `sigma`, capped at `cap`, whose capped mean is `mean`
// (E[min(X, c)] = m e^{s^2/2} Phi(z - s) + c (1 - Phi(z)), z = ln(c/m)/s; bisection on ln m).
double lognormal_median_for_capped_mean(double mean, double sigma, double cap);

// Mean GPUs per job of that size distribution (for reporting the fit).
double power_of_two_size_mean(double median, double sigma, int max_gpus);

// Run times conditional on size: ln r | g ~ N(ln m1 + beta ln g, sigma^2), capped at `cap`
// (the median run time grows as g^beta). For sizes g with weights p (the size distribution),
// fitted so that the marginal run-time median and (capped) mean are the given ones and the mean
// GPU-time per job E[g min(r, cap)] is `gpu_s_per_job`: with sizes fixed, the ratio
// E[g r] / E[r] (a size mean tilted by g^beta) sets beta, then the median and mean set m1 and
// sigma. Nested bisections; throws std::invalid_argument when the statistics are out of reach.
struct ConditionalRunTimes {
  double beta = 0.0;
  double median_1gpu_s = 0.0;   // m1: median run time of a 1-GPU job
  double sigma = 1.0;
  [[nodiscard]] double median_s(double gpus) const;
};
ConditionalRunTimes fit_conditional_run_times(const std::vector<double>& gpus, const std::vector<double>& weights,
                                              double run_mean, double run_median, double gpu_s_per_job, double cap);

// The three statistics of such a model (for the fit's round-trip check and for reporting).
struct RunTimeStats {
  double mean = 0.0, median = 0.0, gpu_s_per_job = 0.0;
};
RunTimeStats conditional_run_time_stats(const ConditionalRunTimes& m, const std::vector<double>& gpus,
                                        const std::vector<double>& weights, double cap);

struct DiurnalFit {
  double peak_to_trough = 1.0;
  double peak_hour = 12.0;
};
// From 24 hour-of-day means: the ratio of the largest to the smallest and the hour of the largest.
DiurnalFit fit_diurnal(const std::vector<double>& hourly);

}  // namespace fleetsim::pool
