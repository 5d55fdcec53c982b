#include "sim/run/failure_process.hpp"

#include <algorithm>
#include <cmath>

#include <boost/math/special_functions/gamma.hpp>

#include "sim/core/error.hpp"

namespace fleetsim::run {

double component_count(ComponentScope scope, const RunInputs& in) {
  const double nodes = static_cast<double>(in.gpus) / in.gpus_per_node;
  const double leaves = std::ceil(static_cast<double>(in.gpus) / std::max(1, in.gpus_per_leaf));
  switch (scope) {
    case ComponentScope::Gpu: return in.gpus;
    case ComponentScope::Node: return nodes;
    case ComponentScope::Nic: return in.nics_per_node > 0 ? nodes * in.nics_per_node : in.gpus;
    case ComponentScope::LeafSwitch: return leaves;
    case ComponentScope::SpineSwitch:
      return in.spine_switches > 0 ? in.spine_switches : std::max(1.0, std::ceil(leaves / 2.0));
    case ComponentScope::Link: return in.links > 0 ? in.links : in.gpus;
    case ComponentScope::Job: return 1.0;
    case ComponentScope::Domain: return 0.0;  // counted per component: domain_count
  }
  return 0.0;
}

namespace {

// Nodes a failure takes out of the job until repaired.
int nodes_lost(const FailureComponent& c, const RunInputs& in) {
  if (!c.needs_repair) return 0;
  switch (c.scope) {
    case ComponentScope::Gpu:
    case ComponentScope::Node:
    case ComponentScope::Nic:
    case ComponentScope::Link: return 1;
    case ComponentScope::LeafSwitch:
      return c.correlated_node_loss ? std::max(1, in.gpus_per_leaf / in.gpus_per_node) : 1;
    case ComponentScope::Domain: return std::max(1, c.domain_gpus / std::max(1, in.gpus_per_node));
    case ComponentScope::SpineSwitch:  // ECMP routes around it after the restart; repaired aside
    case ComponentScope::Job: return 0;
  }
  return 0;
}

bool lemon_eligible(ComponentScope s) {
  return s == ComponentScope::Gpu || s == ComponentScope::Node || s == ComponentScope::Nic;
}

}  // namespace

FailureModel build_failure_model(const RunInputs& in) {
  const FailureProfile& p = in.failures;
  if (in.gpus <= 0 || in.gpus_per_node <= 0 || in.gpus % in.gpus_per_node != 0)
    throw ConfigError("", "cluster.gpus", "must be a positive multiple of the GPUs per node");
  if (p.lemon_fraction < 0 || p.lemon_fraction >= 1)
    throw ConfigError("", "failures.lemon_fraction", "must be in [0, 1)");
  if (p.lemon_multiplier < 1) throw ConfigError("", "failures.lemon_multiplier", "must be >= 1");
  const double f = p.lemon_fraction, m = p.lemon_multiplier;
  const double lemon_norm = 1.0 - f + f * m;  // keeps the fleet-average rate
  FailureModel model;
  for (const auto& c : p.components) {
    if (c.rate.si() < 0)
      throw ConfigError("", "failures.components." + c.name + ".rate", "must not be negative");
    if (c.weibull_shape <= 0)
      throw ConfigError("", "failures.components." + c.name + ".weibull_shape", "must be positive");
    FailureClass base;
    base.name = c.name;
    base.category = c.category;
    base.mode = c.mode;
    base.scope = c.scope;
    base.weibull_shape = c.weibull_shape;
    base.nodes_lost = nodes_lost(c, in);
    base.count = c.scope == ComponentScope::Domain
                     ? static_cast<double>(in.gpus) / std::max(1, c.domain_gpus)  // whole and partial domains
                     : component_count(c.scope, in);
    base.rate = c.rate.si() * p.rate_scale * in.failure_rate_multiplier;
    if (base.rate <= 0 || base.count <= 0) continue;
    if (f > 0 && m > 1 && lemon_eligible(c.scope)) {
      FailureClass lemon = base;
      lemon.lemon = true;
      lemon.count = base.count * f;
      lemon.rate = base.rate * m / lemon_norm;
      base.count *= 1.0 - f;
      base.rate /= lemon_norm;
      model.classes.push_back(base);
      model.classes.push_back(lemon);
    } else {
      model.classes.push_back(base);
    }
  }
  for (auto& c : model.classes) c.theta = 1.0 / (c.rate * std::tgamma(1.0 + 1.0 / c.weibull_shape));
  for (int i = 0; i < static_cast<int>(model.classes.size()); ++i) {
    const auto& c = model.classes[i];
    model.total_rate += c.total_rate();
    if (c.weibull_shape == 1.0) {
      model.exponential.push_back(i);
      model.exp_rate += c.total_rate();
      model.exp_cumulative.push_back(model.exp_rate);
    } else {
      model.weibull.push_back(i);
    }
  }
  return model;
}

int pick_exponential(const FailureModel& m, double u) {
  const double x = u * m.exp_rate;
  auto it = std::upper_bound(m.exp_cumulative.begin(), m.exp_cumulative.end(), x);
  const auto k = std::min<std::ptrdiff_t>(it - m.exp_cumulative.begin(),
                                          static_cast<std::ptrdiff_t>(m.exponential.size()) - 1);
  return m.exponential[static_cast<size_t>(k)];
}

double weibull_cumulative(const FailureClass& c, double t) {
  const double k = c.weibull_shape;
  const double z = std::pow(t / c.theta, k);
  return c.count * (-std::expm1(-z) + t * c.rate - boost::math::gamma_p(1.0 / k, z));
}

double weibull_intensity(const FailureClass& c, double t) {
  const double k = c.weibull_shape;
  if (t <= 0) return k < 1 ? 1e300 : (k == 1 ? c.count * c.rate : 0.0);
  const double x = t / c.theta;
  const double z = std::pow(x, k);
  const double survival = std::exp(-z);
  const double density = k / c.theta * z / x * survival;
  return c.count * (density + (1.0 - survival) * c.rate);
}

double weibull_next(const FailureClass& c, double t, double e, double* cumulative) {
  const double start = cumulative ? *cumulative : weibull_cumulative(c, t);
  const double target = start + e;
  const double mu = 1.0 / c.rate;
  // Lambda(s) >= count (s/mu - 1), so s = mu (target/count + 1) is an upper bound.
  double lo = t, hi = std::max(t, mu * (target / c.count + 1.0));
  // Newton from the local rate, kept inside the bracket (bisection when it would leave it).
  // Between two arrivals of a large class the intensity barely changes: 1-3 steps.
  double s = t + e / std::max(weibull_intensity(c, t), c.count / mu);
  if (!(s > lo && s < hi)) s = 0.5 * (lo + hi);
  double value = 0;
  for (int i = 0; i < 100; ++i) {
    value = weibull_cumulative(c, s) - target;
    if (std::abs(value) < 1e-9 * std::max(1.0, target)) break;
    (value < 0 ? lo : hi) = s;
    const double step = value / weibull_intensity(c, s);
    double next = s - step;
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (hi - lo < 1e-6) break;
    s = next;
  }
  if (cumulative) *cumulative = value + target;
  return s;
}

WeibullTable::WeibullTable(const FailureClass& c, double t0, double t1, int points) : c_(c) {
  const double lo = std::max(t0, 1.0), hi = std::max(t1, lo * 2);
  t_.reserve(static_cast<size_t>(points) + 1);
  if (t0 < lo) t_.push_back(t0);
  const double ratio = std::pow(hi / lo, 1.0 / (points - 1));
  for (int i = 0; i < points; ++i) t_.push_back(lo * std::pow(ratio, i));
  for (double t : t_) lambda_.push_back(weibull_cumulative(c, t));
}

double WeibullTable::cumulative(double t) const {
  if (t_.empty() || t <= t_.front() || t >= t_.back()) return weibull_cumulative(c_, t);
  const auto i = static_cast<size_t>(std::upper_bound(t_.begin(), t_.end(), t) - t_.begin());
  const double f = (t - t_[i - 1]) / (t_[i] - t_[i - 1]);
  return lambda_[i - 1] + f * (lambda_[i] - lambda_[i - 1]);
}

double WeibullTable::next(double t, double lambda_t, double e, double* lambda_next) const {
  const double target = lambda_t + e;
  if (t_.empty() || t < t_.front() || target >= lambda_.back()) {
    double cum = lambda_t;
    const double s = weibull_next(c_, t, e, &cum);
    *lambda_next = cum;
    return s;
  }
  const auto i = static_cast<size_t>(std::upper_bound(lambda_.begin(), lambda_.end(), target) - lambda_.begin());
  if (i == 0) return weibull_next(c_, t, e, lambda_next);
  const double span = lambda_[i] - lambda_[i - 1];
  const double f = span > 0 ? (target - lambda_[i - 1]) / span : 1.0;
  *lambda_next = target;
  return std::max(t, t_[i - 1] + f * (t_[i] - t_[i - 1]));
}

}  // namespace fleetsim::run
