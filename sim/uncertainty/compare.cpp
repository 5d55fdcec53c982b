// Comparing two step predictions under their model-form errors (compare.hpp).
#include "sim/uncertainty/compare.hpp"

#include <cmath>

namespace fleetsim::uncertainty {
namespace {
double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }
}  // namespace

double normal_quantile(double p) {
  double lo = -40, hi = 40;
  for (int i = 0; i < 200 && hi - lo > 1e-13; ++i) {
    const double mid = 0.5 * (lo + hi);
    (normal_cdf(mid) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double log_sigma(const StepUncertainty& u) { return u.half_width / normal_quantile((1 + u.level) / 2); }

double probability_faster(double ta, const StepUncertainty& ua, double tb, const StepUncertainty& ub) {
  const double sa = log_sigma(ua), sb = log_sigma(ub);
  const double s = std::sqrt(sa * sa + sb * sb);
  const double d = std::log(tb / ta);
  if (s <= 0) return d > 0 ? 1.0 : d < 0 ? 0.0 : 0.5;
  return normal_cdf(d / s);
}

double time_quantile(double t, const StepUncertainty& u, double q) {
  return t * std::exp(normal_quantile(q) * log_sigma(u));
}

}  // namespace fleetsim::uncertainty
