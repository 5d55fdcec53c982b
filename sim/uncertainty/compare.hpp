// Comparing two step predictions under their model-form errors (fleetsim search): the chance that
// one layout is truly faster than another, and a pessimistic quantile of a predicted time.
//
// The conformal interval (step_interval.hpp) gives a half-width h at level L, not a distribution.
// For these two questions the log error is taken as normal with the same central L range:
// sigma = h / z, z = the standard normal's (1 + L) / 2 quantile (a documented approximation;
// sim/uncertainty/README.md, "Search").
#pragma once

#include "sim/uncertainty/step_interval.hpp"

namespace fleetsim::uncertainty {

// The standard normal's quantile (bisection on std::erfc; |error| < 1e-12 for p in (1e-12, 1 - 1e-12)).
[[nodiscard]] double normal_quantile(double p);
// sigma of log(T_true / T_pred) that gives the interval's central range.
[[nodiscard]] double log_sigma(const StepUncertainty& u);
// P(T_true(a) < T_true(b)) for predictions ta, tb with independent log errors. With positively
// correlated errors (the same GPU and regime share much of them) the true probability is further
// from one half: for ta < tb this is a lower bound.
[[nodiscard]] double probability_faster(double ta, const StepUncertainty& ua, double tb, const StepUncertainty& ub);
// The q-quantile of the true time of a prediction t (q = 0.9: the time it beats 90% of the time).
[[nodiscard]] double time_quantile(double t, const StepUncertainty& u, double q);

}  // namespace fleetsim::uncertainty
