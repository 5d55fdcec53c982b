#include "sim/run/stragglers.hpp"

#include <algorithm>
#include <cmath>

namespace fleetsim::run {
namespace {

constexpr double kPi = 3.14159265358979323846;

// E[g(Z_(n))] = integral of g(x) n phi(x) Phi(x)^(n-1) dx, trapezoid on [-9, 10] (the density
// of the maximum is negligible outside for any n up to 1e7).
template <class G>
double expect_max(int n, G g) {
  if (n <= 1) return g(0.0);  // E[Z] = 0 and g is smooth near 0 for the callers' purposes
  const double lo = -9.0, hi = 10.0, h = 1e-3;
  double sum = 0.0;
  for (double x = lo; x <= hi; x += h) {
    const double log_phi = -0.5 * x * x - 0.5 * std::log(2.0 * kPi);
    const double upper = 0.5 * std::erfc(x / std::sqrt(2.0));  // 1 - Phi(x)
    const double log_cdf = x > 0 ? std::log1p(-upper) : std::log(0.5 * std::erfc(-x / std::sqrt(2.0)));
    const double density = std::exp(std::log(static_cast<double>(n)) + log_phi + (n - 1) * log_cdf);
    sum += g(x) * density * h;
  }
  return sum;
}

}  // namespace

double expected_max_normal(int n) { return n <= 1 ? 0.0 : expect_max(n, [](double x) { return x; }); }

double gumbel_max_normal(int n) {
  const double a = std::sqrt(2.0 * std::log(static_cast<double>(n)));
  const double b = a - (std::log(std::log(static_cast<double>(n))) + std::log(4.0 * kPi)) / (2.0 * a);
  return b + 0.5772156649015329 / a;
}

double expected_slowest_lognormal(int n, double sigma, double cap) {
  if (sigma <= 0) return 1.0;
  if (n <= 1) return std::min(std::exp(0.5 * sigma * sigma), cap);
  return expect_max(n, [&](double x) { return std::min(std::exp(sigma * x), cap); });
}

double straggler_slowdown(const StragglerSpec& spec, int gpus) {
  const double sigma = std::hypot(spec.device_speed_sigma, spec.step_jitter_cv);
  return expected_slowest_lognormal(gpus, sigma, std::max(1.0, spec.device_speed_max_slowdown));
}

}  // namespace fleetsim::run
