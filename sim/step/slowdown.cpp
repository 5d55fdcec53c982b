#include "sim/step/slowdown.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "sim/results/report.hpp"
#include "sim/step/pipeline_schedule.hpp"

namespace fleetsim::step {
namespace {

constexpr double kPi = 3.14159265358979323846;

// E[Z_(n)] for ln n = 0, 1/8, 2/8, ..., 28 ln 2: the integral of x n phi(x) Phi(x)^(n-1) over
// [-9, 10] by the trapezoid rule with step 1e-4 (scipy log_ndtr), the same integral as
// run::expected_max_normal; tests/unit/slowdown_test.cpp compares the two.
constexpr double kLnStep = 0.125;
constexpr std::array kExpectedMax = {
    0.000000, 0.110693, 0.217156, 0.319646, 0.418405, 0.513660, 0.605619, 0.694480, 0.780426,
    0.863628, 0.944245, 1.022426, 1.098311, 1.172028, 1.243699, 1.313437, 1.381346, 1.447527,
    1.512069, 1.575060, 1.636580, 1.696704, 1.755502, 1.813040, 1.869379, 1.924578, 1.978689,
    2.031764, 2.083851, 2.134993, 2.185232, 2.234609, 2.283160, 2.330920, 2.377921, 2.424194,
    2.469769, 2.514673, 2.558932, 2.602571, 2.645612, 2.688077, 2.729987, 2.771362, 2.812220,
    2.852579, 2.892456, 2.931866, 2.970824, 3.009346, 3.047444, 3.085132, 3.122422, 3.159325,
    3.195854, 3.232018, 3.267829, 3.303295, 3.338427, 3.373233, 3.407722, 3.441903, 3.475782,
    3.509369, 3.542669, 3.575690, 3.608439, 3.640923, 3.673147, 3.705117, 3.736839, 3.768319,
    3.799563, 3.830574, 3.861359, 3.891922, 3.922267, 3.952400, 3.982324, 4.012044, 4.041564,
    4.070887, 4.100018, 4.128960, 4.157717, 4.186292, 4.214689, 4.242910, 4.270960, 4.298840,
    4.326554, 4.354105, 4.381496, 4.408729, 4.435808, 4.462733, 4.489509, 4.516138, 4.542621,
    4.568962, 4.595162, 4.621224, 4.647150, 4.672941, 4.698601, 4.724130, 4.749531, 4.774806,
    4.799957, 4.824985, 4.849892, 4.874680, 4.899350, 4.923904, 4.948345, 4.972672, 4.996888,
    5.020995, 5.044993, 5.068884, 5.092670, 5.116352, 5.139932, 5.163409, 5.186787, 5.210066,
    5.233247, 5.256332, 5.279321, 5.302216, 5.325018, 5.347729, 5.370348, 5.392878, 5.415319,
    5.437673, 5.459940, 5.482121, 5.504217, 5.526230, 5.548160, 5.570008, 5.591775, 5.613462,
    5.635070, 5.656599, 5.678051, 5.699426, 5.720725, 5.741949, 5.763099, 5.784175, 5.805178,
    5.826109, 5.846969, 5.867758
};

// Moments E[s^k], k = 1..4, of s = min(median exp(sigma Z), cap): trapezoid over z in [-8, 8].
std::array<double, 5> truncated_lognormal_moments(double median, double sigma, double cap) {
  std::array<double, 5> m{};
  constexpr int kPoints = 641;
  const double h = 16.0 / (kPoints - 1);
  double total = 0.0;
  for (int i = 0; i < kPoints; ++i) {
    const double z = -8.0 + h * i;
    const double w = std::exp(-0.5 * z * z) * ((i == 0 || i == kPoints - 1) ? 0.5 : 1.0);
    const double s = std::min(median * std::exp(sigma * z), cap);
    double p = 1.0;
    for (int k = 0; k <= 4; ++k) {
      m[static_cast<size_t>(k)] += w * p;
      p *= s;
    }
    total += w;
  }
  for (double& x : m) x /= total;
  return m;
}

}  // namespace

double expected_max_normal_fast(double n) {
  if (!(n > 1.0)) return 0.0;
  const double x = std::log(n) / kLnStep;
  const auto last = kExpectedMax.size() - 1;
  if (x >= static_cast<double>(last)) {
    // Past 2^28: grow like the Gumbel location sqrt(2 ln n) from the last tabulated value.
    return kExpectedMax[last] + std::sqrt(2.0 * std::log(n)) - std::sqrt(2.0 * kLnStep * static_cast<double>(last));
  }
  const auto i = static_cast<size_t>(x);
  const double f = x - static_cast<double>(i);
  return kExpectedMax[i] * (1.0 - f) + kExpectedMax[i + 1] * f;
}

double expected_slowest_lognormal_fast(double n, double sigma, double cap) {
  if (!(sigma > 0.0)) return 1.0;
  const double c = std::max(1.0, cap);
  if (!(n > 1.0)) return std::min(std::exp(0.5 * sigma * sigma), c);
  const double z = expected_max_normal_fast(n);
  const double v = n >= 2.0 ? kPi * kPi / (12.0 * std::log(n)) : 1.0;
  return std::min(std::exp(sigma * z + 0.5 * sigma * sigma * std::min(1.0, v)), c);
}

double sample_cost_cv(double seq_length, double doc_median, double doc_sigma, bool packing, double a) {
  if (!(doc_median > 0.0) || !(seq_length > 0.0)) return 0.0;
  const double S = seq_length;
  const auto m = truncated_lognormal_moments(doc_median, doc_sigma, S);
  if (packing) {
    // Renewal-reward CLT: S / E[s] documents per sample; sum s_i^2 has mean S r and variance
    // (S / E[s]) Var(s^2 - r s), r = E[s^2] / E[s].
    const double r = m[2] / m[1];
    const double var_sum = (S / m[1]) * std::max(0.0, m[4] - 2.0 * r * m[3] + r * r * m[2]);
    const double mean = (1.0 - a) + a * r / S;
    return a * std::sqrt(var_sum) / (S * S) / mean;
  }
  const double u1 = m[1] / S, u2 = m[2] / (S * S), u3 = m[3] / (S * S * S), u4 = m[4] / (S * S * S * S);
  const double mean = (1.0 - a) * u1 + a * u2;
  const double second = (1.0 - a) * (1.0 - a) * u2 + 2.0 * a * (1.0 - a) * u3 + a * a * u4;
  return mean > 0 ? std::sqrt(std::max(0.0, second - mean * mean)) / mean : 0.0;
}

double attention_share(const WorkloadSpec& w) {
  const double s = w.model.seq_length, h = w.model.hidden_size, l = w.model.num_layers, V = w.model.vocab_size;
  if (!(h > 0) || !(l > 0)) return 0.0;
  const double attn = s / (6.0 * h);
  return attn / (1.0 + attn + V / (16.0 * l * h));
}

double stage_imbalance_seconds(const StepResult& step) {
  const auto& pl = step.pipeline;
  if (!pl.schedulable) return 0.0;
  const PipelineSchedule schedule(pl.pp, pl.vpp, pl.microbatches, pl.group);
  const auto J = static_cast<size_t>(pl.pp * pl.vpp);
  thread_local std::vector<double> fwd, bwd;
  thread_local ScheduleTimes even;
  fwd.assign(J, pl.mean_forward);
  bwd.assign(J, pl.mean_backward);
  if (!pl.async_p2p) add_blocking_sends(fwd, bwd, pl.p2p);
  time_schedule(schedule, fwd, bwd, pl.async_p2p ? pl.p2p : 0.0, even);
  return std::max(0.0, pl.makespan - even.makespan);
}

double SlowdownResult::cause(const std::string& name) const {
  for (const auto& c : causes)
    if (c.name == name) return c.seconds;
  return 0.0;
}

SlowdownResult evaluate_slowdown(const StragglerSpec& sp, const ClusterSpec& cluster, const WorkloadSpec& w,
                                 const StepResult& step) {
  SlowdownResult r;
  const double T = step.iteration_time.si();
  r.healthy_s = T;
  const double N = cluster.gpus;
  const double nodes = std::max(1.0, N / std::max(1, cluster.node.gpus_per_node));
  const double C = step.breakdown.compute.si();
  const auto& b = step.breakdown;
  const double F = (b.dp_comm + b.pp_comm + b.cp_comm + b.ep_comm).si();  // exposed, may cross the fabric
  const double dp = std::max(1, step.data_parallel_size);

  // Compute variation: the slowest of every GPU gates the critical path's compute.
  const double sigma = std::hypot(sp.device_speed_sigma, sp.step_jitter_cv);
  const double f_var = expected_slowest_lognormal_fast(N, sigma, sp.device_speed_max_slowdown);
  r.causes.push_back({"compute_variation", C * (f_var - 1.0)});

  // GC pauses: one process per GPU.
  double gc = 0.0;
  if (sp.gc_pause.si() > 0.0) {
    const double G = std::max(1.0, sp.gc_interval_steps);
    const double hit = sp.gc_synchronized ? 1.0 / G : -std::expm1(N * std::log1p(-1.0 / G));
    gc = sp.gc_pause.si() * hit;
  }
  r.causes.push_back({"gc_pauses", gc});

  // Sequence lengths: the slowest data-parallel replica's sum of microbatch costs.
  double seq = 0.0;
  if (sp.seq_doc_median > 0.0 && !sp.seq_rebalance && dp > 1) {
    const double cv = sample_cost_cv(w.model.seq_length, sp.seq_doc_median, sp.seq_doc_sigma, sp.seq_packing,
                                     attention_share(w));
    const double samples = std::max(1, w.training.micro_batch_size) * static_cast<double>(std::max(1, step.microbatches));
    seq = C * cv / std::sqrt(samples) * expected_max_normal_fast(dp);
  }
  r.causes.push_back({"sequence_length", seq});

  // Degraded links: one NIC-leaf link per GPU; any degraded one stretches the exposed fabric time.
  double links = 0.0;
  if (sp.degraded_link_share > 0.0) {
    const double p_any = -std::expm1(N * std::log1p(-std::min(sp.degraded_link_share, 1.0 - 1e-12)));
    links = F * (1.0 / sp.degraded_link_bandwidth - 1.0) * p_any;
  }
  r.causes.push_back({"degraded_links", links});

  // Fail-slow hosts: the factor while one is present; the stationary probability of one.
  const double share = T > 0 ? (sp.fail_slow_kind == FailSlowKind::Network ? F : C) / T : 0.0;
  const double mag = std::max(1.0, sp.fail_slow_slowdown);
  r.fail_slow_factor = 1.0 + share * (mag - 1.0);
  const double g = dp > 1 ? dp / (dp - 1.0 + 1.0 / mag) : mag;  // slow replica gets fewer microbatches
  r.fail_slow_rebalanced_factor = 1.0 + share * (g - 1.0);
  double slow = 0.0;
  const double lambda = sp.fail_slow_rate_per_node.si();
  if (lambda > 0.0 && T > 0) {
    // Mean time a node spends slow and unmitigated / re-balanced per episode (exponential episode
    // of mean D; detection after d). D = 0 (until mitigated) counts d, and no re-balanced tail.
    const double D = sp.fail_slow_duration.si(), d = sp.fail_slow_detect.si();
    double unmitigated = 0.0, rebalanced = 0.0;
    if (sp.fail_slow_policy == FailSlowPolicy::Ignore) {
      unmitigated = D > 0 ? D : 1e300;
    } else {
      unmitigated = D > 0 ? D * -std::expm1(-d / D) : d;
      if (sp.fail_slow_policy == FailSlowPolicy::Rebalance && D > 0) rebalanced = D * std::exp(-d / D);
    }
    auto any = [&](double t) {
      const double pi = std::min(1.0, lambda * t / (1.0 + lambda * t));  // M/G/inf stationary share
      return pi >= 1.0 ? 1.0 : -std::expm1(nodes * std::log1p(-pi));
    };
    const double p_un = any(unmitigated), p_rb = rebalanced > 0 ? any(rebalanced) : 0.0;
    r.fail_slow_probability = std::min(1.0, p_un + p_rb);
    slow = T * (p_un * (r.fail_slow_factor - 1.0) + p_rb * (r.fail_slow_rebalanced_factor - 1.0));
  }
  double steady = 0.0;
  for (const auto& c : r.causes) steady += c.seconds;
  r.causes.push_back({"slow_hosts", slow});
  r.steady_factor = T > 0 ? 1.0 + steady / T : 1.0;
  r.stage_imbalance_s = stage_imbalance_seconds(step);
  r.stage_imbalance_slowdown = T > r.stage_imbalance_s ? T / (T - r.stage_imbalance_s) : 1.0;
  r.expected_factor = T > 0 ? 1.0 + (steady + slow) / T : 1.0;
  return r;
}

}  // namespace fleetsim::step

namespace fleetsim {
void add_slowdown_metrics(const step::SlowdownResult& r, Report& report) {
  report.add("stragglers.slowdown", r.expected_factor);
  report.add("stragglers.steady_slowdown", r.steady_factor);
  report.add("stragglers.fail_slow_factor", r.fail_slow_factor);
  report.add("stragglers.fail_slow_probability", r.fail_slow_probability);
  for (const auto& c : r.causes) report.add("stragglers.extra_s." + c.name, c.seconds);
  report.add("stragglers.stage_imbalance_s", r.stage_imbalance_s);
  report.add("stragglers.stage_imbalance_slowdown", r.stage_imbalance_slowdown);
}
}  // namespace fleetsim
