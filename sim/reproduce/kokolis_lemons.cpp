// Kokolis et al. HPCA'25 (arXiv:2410.21680) Sec 5.1 (data/validation/stragglers_failslow.csv F35,
// reliability_meta_rsc.csv "large_job_failure_rate_512plus_gpus"): after Meta detected and
// removed lemon nodes, the failure rate of 512+-GPU jobs fell from 14% to 4%.
//
// The check, from the run model with lemon_model per_node and failures.lemon_retirement:
//   fixed    RSC-1 (16,000 A100 = 2,000 nodes), fleet-average node rate r_f = 6.50 per 1000
//            node-days (F32, the meta-rsc1 profile), lemons f = 1.2% of nodes (F35), a 512-GPU
//            job (64 nodes: the class threshold, where large jobs are most numerous);
//   assumed  the job length T [U], taken by a rule fixed before any fit (below); retirement
//            after 2 failures within 7 days [U] over 30 days of fleet operation [U];
//   calibrated  the lemon multiplier m, fitted so the closed form below gives the 14% before;
//               the DES's before-figure is then a calibration case;
//   judged   the after-figure (4%): a 512-GPU job on the fleet that the run model's retirement
//            left after 30 days (lemons retired, each replaced by a node drawn from the fleet).
//
// The job length. Node heterogeneity at a fixed fleet-average rate can only lower a job's failure
// probability (Jensen: E[exp(-Z r T)] >= exp(-r T)), and lemons cannot fail more than r_f / f per
// node-day, so the before-figure is reachable only for T between
//   T_lo: 1 - exp(-n r_f T) = 14%                       (no heterogeneity: m = 1)
//   T_hi: 1 - [(1 - f) + f exp(-r_f T / f)]^n = 14%     (m -> infinity)
// (8.70-9.67 h at n = 64). The paper gives no job length; we take the middle of that window. The
// after-figure depends strongly on where in the window T lies (about 9.6% at 8.8 h, 0.5% at 9.6 h),
// so this case judges the combination "14% before and lemons of 1.2% retired" and no more; the
// tolerance (2 points) is stated with that in mind.
//
// Closed form of a job's failure probability over T with n nodes drawn from a two-point fleet
// (healthy rate h = r_f / norm, lemon rate m h, norm = 1 - f + f m):
//   P = 1 - [(1 - f) exp(-h T) + f exp(-m h T)]^n.
#include "sim/reproduce/run_sources.hpp"

#include <cmath>
#include <cstdio>
#include <functional>

#include "sim/run/profiles.hpp"

namespace fleetsim::reproduce {

using namespace fleetsim::run;

namespace {

constexpr double kBefore = 0.14, kAfter = 0.04;  // F35
constexpr int kJobNodes = 64;                      // 512 GPUs
constexpr int kFleetGpus = 16000;                  // RSC-1, 2,000 nodes
constexpr double kFleetDays = 30;                  // [U] fleet operation with retirement

double job_failure_share(double f, double m, double rate, double t, int nodes) {
  const double norm = 1.0 - f + f * m, h = rate / norm;
  return 1.0 - std::pow((1.0 - f) * std::exp(-h * t) + f * std::exp(-m * h * t), nodes);
}

// The root of a decreasing or increasing g on [lo, hi] with g(lo), g(hi) of opposite signs.
double bisect(const std::function<double(double)>& g, double lo, double hi) {
  const bool rising = g(hi) > g(lo);
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    ((g(mid) < 0) == rising ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double failed_share(const RunResult& r) {
  return mean_over_replications(r, [](const ReplicationResult& x) { return x.unexpected > 0 ? 1.0 : 0.0; });
}

}  // namespace

LemonCheck meta_lemon_check(int replications) {
  LemonCheck c;
  const FailureProfile rsc1 = builtin_profile("meta-rsc1");
  const double rate = rsc1.components.at(0).rate.si();  // per node-second (one node-scoped component)
  const double f = rsc1.lemon_fraction;
  const double n = kJobNodes;
  c.t_lo_s = -std::log(1.0 - kBefore) / (n * rate);
  c.t_hi_s = bisect([&](double t) { return 1.0 - std::pow((1.0 - f) + f * std::exp(-rate * t / f), n) - kBefore; },
                    c.t_lo_s, 10 * c.t_lo_s);
  c.job_s = 0.5 * (c.t_lo_s + c.t_hi_s);
  c.multiplier = std::exp(bisect([&](double lm) { return job_failure_share(f, std::exp(lm), rate, c.job_s, kJobNodes) - kBefore; },
                                 0.0, std::log(1e7)));

  auto job = [&](double lemons, int seed_offset) {
    RunInputs in = meta_model_inputs("meta-rsc1", kJobNodes * 8, units::minutes(5), Seconds(0), units::minutes(30),
                                     Seconds(c.job_s), replications);
    in.run.seed += static_cast<unsigned long long>(seed_offset);
    // Healthy and lemon nodes keep their rates; the fleet average follows the lemons' share.
    const double norm0 = 1.0 - f + f * c.multiplier, norm = 1.0 - lemons + lemons * c.multiplier;
    in.failures.lemon_fraction = lemons;
    in.failures.lemon_multiplier = c.multiplier;
    in.failures.rate_scale = norm / norm0;
    in.failures.lemon_model = LemonModel::PerNode;
    return failed_share(simulate_run(in));
  };
  c.before = job(f, 0);

  RunInputs fleet = meta_model_inputs("meta-rsc1", kFleetGpus, units::minutes(5), Seconds(0), units::minutes(30),
                                      units::days(kFleetDays), std::max(4, replications / 1000));
  fleet.failures.lemon_multiplier = c.multiplier;
  fleet.failures.lemon_model = LemonModel::PerNode;
  fleet.failures.lemon_retirement = {2, units::days(7)};
  const RunResult r = simulate_run(fleet);
  const double nodes = kFleetGpus / 8.0;
  c.lemons_start = mean_over_replications(r, [](const ReplicationResult& x) { return x.lemon_nodes_start; });
  c.lemons_end = mean_over_replications(r, [](const ReplicationResult& x) { return x.lemon_nodes_end; });
  c.retired = mean_over_replications(r, [](const ReplicationResult& x) { return x.retired_nodes; });
  c.retired_lemons = mean_over_replications(r, [](const ReplicationResult& x) { return x.retired_lemon_nodes; });
  c.retirement_gpu_hours = mean_over_replications(r, [](const ReplicationResult& x) { return x.retirement_gpu_hours; });
  c.after = job(c.lemons_end / nodes, 1);
  return c;
}

std::vector<ValidationCase> meta_lemon_cases(int replications) {
  const LemonCheck k = meta_lemon_check(replications);
  const char* src = "Kokolis et al. HPCA'25 (arXiv:2410.21680) Sec 5.1: lemon nodes, 512+-GPU job failures";
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "512-GPU job of %.2f h (middle of the %.2f-%.2f h window where 14%% is reachable at r_f 6.50); "
                "lemon multiplier %.0f fitted to 14%% by the closed form",
                k.job_s / 3600, k.t_lo_s / 3600, k.t_hi_s / 3600, k.multiplier);
  std::vector<ValidationCase> cases;
  ValidationCase before = make_case(src, "RSC-1, 1.2% lemons, no retirement", "share of 512-GPU jobs that fail (%)",
                                    100 * kBefore, 100 * k.before, 1.0, true);
  before.role = CaseRole::Calibration;
  before.note = buf;
  cases.push_back(before);
  std::snprintf(buf, sizeof buf,
                "30 d of retirement (2 failures in 7 d): %.1f lemons at the start, %.2f left; %.1f lemon and %.2f "
                "other retirements (replacements come from the fleet and may be lemons; %.0f GPU-h); tolerance 2 "
                "points: the figure moves with the assumed job length",
                k.lemons_start, k.lemons_end, k.retired_lemons, k.retired - k.retired_lemons, k.retirement_gpu_hours);
  ValidationCase after = make_case(src, "RSC-1 after lemon retirement", "share of 512-GPU jobs that fail (%)",
                                   100 * kAfter, 100 * k.after, 2.0, true);
  after.note = buf;
  cases.push_back(after);
  return cases;
}

}  // namespace fleetsim::reproduce
