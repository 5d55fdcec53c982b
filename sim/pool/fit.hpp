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

struct DiurnalFit {
  double peak_to_trough = 1.0;
  double peak_hour = 12.0;
};
// From 24 hour-of-day means: the ratio of the largest to the smallest and the hour of the largest.
DiurnalFit fit_diurnal(const std::vector<double>& hourly);

}  // namespace fleetsim::pool
