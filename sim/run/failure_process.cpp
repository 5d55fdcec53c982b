#include "sim/run/failure_process.hpp"

#include <algorithm>
#include <cmath>

#include <boost/math/distributions/normal.hpp>
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

std::vector<FrailtyBin> frailty_bins(const FailureProfile& p) {
  const double f = p.lemon_fraction;
  if (p.lemon_distribution == LemonDistribution::TwoPoint) {
    const double norm = 1.0 - f + f * p.lemon_multiplier;
    if (f <= 0) return {{1.0, 1.0, false}};
    return {{1.0 - f, 1.0 / norm, false}, {f, p.lemon_multiplier / norm, true}};
  }
  // Lognormal Z, ln Z ~ N(-s^2/2, s^2) so E[Z] = 1. Over the quantile band (q1, q2):
  //   E[Z; q1 < F(Z) < q2] = Phi(Phi^-1(q2) - s) - Phi(Phi^-1(q1) - s)
  // (the mean-shifted normal), so each bin's multiplier is that over q2 - q1 and the bins'
  // multipliers average to exactly 1. Edges 1 - 2^-i (i = 0..12) put bins into the tail where the
  // heavy hazards are, plus an edge at 1 - f so the lemons are the top share f.
  const double s = p.lemon_sigma;
  std::vector<double> edges;
  for (int i = 0; i <= 12; ++i) edges.push_back(1.0 - std::ldexp(1.0, -i));
  if (f > 0) edges.push_back(1.0 - f);
  edges.push_back(1.0);
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end(), [](double a, double b) { return std::abs(a - b) < 1e-12; }),
              edges.end());
  const boost::math::normal_distribution<double> normal;
  auto shifted = [&](double q) {
    if (q <= 0) return 0.0;
    if (q >= 1) return 1.0;
    return boost::math::cdf(normal, boost::math::quantile(normal, q) - s);
  };
  std::vector<FrailtyBin> bins;
  for (size_t i = 0; i + 1 < edges.size(); ++i) {
    const double q1 = edges[i], q2 = edges[i + 1];
    bins.push_back({q2 - q1, (shifted(q2) - shifted(q1)) / (q2 - q1), f > 0 && q1 >= 1.0 - f - 1e-12});
  }
  return bins;
}

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
  // The fleet-average two-point split below is the original lemon model (results unchanged);
  // a lognormal distribution or the per-node model split every eligible class by frailty bin.
  const LemonRetirement& ret = p.lemon_retirement;
  if (ret.after_failures < 0)
    throw ConfigError("", "failures.lemon_retirement.after_failures", "must be 0 (never retire) or a count >= 1");
  if (ret.after_failures > kMaxRetirementFailures)
    throw ConfigError("", "failures.lemon_retirement.after_failures",
                      "must be at most " + std::to_string(kMaxRetirementFailures));
  if (ret.after_failures > 0 && !(ret.window.si() > 0))
    throw ConfigError("", "failures.lemon_retirement.window", "must be a positive time such as '7 d'");
  if (ret.after_failures > 0 && p.lemon_model != LemonModel::PerNode)
    throw ConfigError("", "failures.lemon_retirement.after_failures",
                      "retiring nodes needs node identity: set failures.lemon_model: per_node");
  if (p.lemon_distribution == LemonDistribution::Lognormal && !(p.lemon_sigma > 0 && p.lemon_sigma <= 3))
    throw ConfigError("", "failures.lemon_sigma", "must be in (0, 3] for a lognormal frailty");
  model.per_node = p.lemon_model == LemonModel::PerNode;
  model.nodes = in.gpus / in.gpus_per_node;
  const double nodes = model.nodes;
  const bool split = model.per_node || p.lemon_distribution != LemonDistribution::TwoPoint;
  if (split) model.bins = frailty_bins(p);
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
    if (split && lemon_eligible(c.scope) && !(model.per_node && c.weibull_shape != 1.0)) {
      // One class per frailty bin (per_node: Weibull classes stay whole at the fleet average;
      // their renewal approximation has no node identity to follow).
      const double per_node = component_count(c.scope, in) / nodes;
      for (size_t b = 0; b < model.bins.size(); ++b) {
        FailureClass k = base;
        k.bin = static_cast<int>(b);
        k.lemon = model.bins[b].lemon;
        k.per_node = per_node;
        k.count = base.count * model.bins[b].mass;
        k.rate = base.rate * model.bins[b].multiplier;
        model.classes.push_back(k);
      }
    } else if (!split && f > 0 && m > 1 && lemon_eligible(c.scope)) {
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
  sum_rates(model);
  return model;
}

void sum_rates(FailureModel& model) {
  model.exponential.clear();
  model.exp_cumulative.clear();
  model.weibull.clear();
  model.exp_rate = model.total_rate = 0;
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
