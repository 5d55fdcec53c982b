// Stragglers in a ByteDance-like cluster (Lin et al., "Understanding Stragglers in Large Model
// Training Using What-if Analysis", OSDI'25; data/validation/stragglers_failslow.csv):
// scenarios/stragglers-bytedance.yaml, whose header states every input's source.
// Calibration (one parameter each, sim/pool/stragglers.hpp): F08 39.3% of jobs with the last
// pipeline stage as the majority cause (stage_balanced_share), F10 21.4% of straggling jobs with
// sequence-length imbalance (sequence_imbalance_share), F05 1.7% of straggling jobs dominated by a
// bad host (slow_host_node_probability), F02's p90 (just over 10% of jobs waste >= 21.3%;
// layers_per_stage_min).
// Judged: F01 42.5% of jobs >= 10% slower (within 8 points) and F03 10.4% of allocated GPU-hours
// wasted (within 3 points), the targets; and, as checks that come out of the model, F02's
// far tail (~1% of jobs waste >= 45%, within 1 point), F06 (host-dominated jobs 3.04x, within
// 15%: its magnitude is an input, so this checks that the majority criterion picks them).
#include <algorithm>
#include <cmath>

#include "sim/config/load.hpp"
#include "sim/pool/pool_model.hpp"
#include "sim/pool/stragglers.hpp"
#include "sim/pool/workload.hpp"
#include "sim/reproduce/pool_sources.hpp"

namespace fleetsim::reproduce {

namespace {

double share(long long a, long long b) { return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0; }

// p-quantile of a few values (linear between order statistics), as the pool's {p05, p95}.
double quantile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const double x = p * static_cast<double>(v.size() - 1);
  const auto i = static_cast<size_t>(x);
  const double f = x - static_cast<double>(i);
  return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0.0 : s / static_cast<double>(v.size());
}

}  // namespace

StragglersReproduction stragglers_reproduction() {
  const std::string scenario = "stragglers-bytedance";
  const Scenario sc = config::load_scenario(scenario);
  const auto r = pool::simulate_pool(sc);
  StragglersReproduction out;
  out.replications = static_cast<int>(r.replications.size());
  std::vector<double> straggling, waste, last_stage, sequence, host;
  for (const auto& p : r.replications) {
    straggling.push_back(share(p.straggling_jobs, p.straggler_jobs));
    waste.push_back(p.straggler_counted_gpu_hours > 0 ? p.straggler_wasted_gpu_hours / p.straggler_counted_gpu_hours : 0.0);
    last_stage.push_back(share(p.last_stage_majority_jobs, p.straggler_jobs));
    sequence.push_back(share(p.sequence_straggling_jobs, p.straggling_jobs));
    host.push_back(share(p.host_majority_straggling_jobs, p.straggling_jobs));
  }
  out.straggling = mean(straggling), out.straggling_p05 = quantile(straggling, 0.05), out.straggling_p95 = quantile(straggling, 0.95);
  out.waste = mean(waste), out.waste_p05 = quantile(waste, 0.05), out.waste_p95 = quantile(waste, 0.95);
  out.last_stage = mean(last_stage), out.sequence = mean(sequence), out.host = mean(host);

  // The per-run checks: the same job streams and draws as the pool (generate_jobs, apply_stragglers);
  // they are per traced run and do not depend on the queue.
  PoolSpec ps = sc.pool;  // as pool_inputs() hands it to the engine
  const int g = sc.cluster.node.gpus_per_node;
  const int pool_gpus = ps.gpus > 0 ? ps.gpus : sc.cluster.gpus;
  ps.gpus = pool_gpus;
  long long ge21 = 0, ge45 = 0, host_runs = 0;
  double host_sum = 0, small = 0, small_n = 0, large = 0, large_n = 0;
  for (int rep = 0; rep < ps.replications; ++rep) {
    auto jobs = pool::generate_jobs(ps, g, pool_gpus, ps.warmup_s + ps.duration_s, sc.run.seed, rep, sc.file);
    for (size_t i = 0; i < jobs.size(); ++i) {
      const auto& j = jobs[i];
      if (j.cls != pool::JobClass::Training || j.submit < ps.warmup_s || j.gpus < ps.stragglers.min_job_gpus) continue;
      const double w = 1.0 - 1.0 / pool::draw_job_slowdown(ps.stragglers, j.gpus, sc.run.seed, rep, i).slowdown;
      if (j.gpus <= 256) small += w, small_n += 1;
      if (j.gpus >= 4096) large += w, large_n += 1;
    }
    const auto c = pool::apply_stragglers(ps.stragglers, jobs, sc.run.seed, rep, ps.warmup_s);
    out.runs += c.counted;
    out.slow_host_restarts += c.slow_host_restarts;
    ge21 += c.waste_at_least_21, ge45 += c.waste_at_least_45;
    host_runs += c.host_majority_straggling, host_sum += c.host_majority_slowdown_sum;
  }
  out.waste_ge_21 = share(ge21, out.runs), out.waste_ge_45 = share(ge45, out.runs);
  out.host_majority_slowdown = host_runs > 0 ? host_sum / static_cast<double>(host_runs) : 0.0;
  out.small_job_waste = small_n > 0 ? small / small_n : 0.0;
  out.large_job_waste = large_n > 0 ? large / large_n : 0.0;

  const char* src = "ByteDance stragglers (Lin et al., OSDI'25)-like, 32,768 GPUs";
  auto add = [&](ValidationCase c, CaseRole role, const std::string& note) {
    c.role = role;
    c.scenario = scenario;
    c.note = note;
    out.cases.push_back(c);
  };
  add(make_case(src, "F08 (fits stage_balanced_share)", "jobs with the last stage as majority cause", 0.393, out.last_stage, 0.03, true),
      CaseRole::Calibration, "fitted");
  add(make_case(src, "F10 (fits sequence_imbalance_share)", "straggling jobs with sequence imbalance", 0.214, out.sequence, 0.03, true),
      CaseRole::Calibration, "fitted");
  add(make_case(src, "F05 (fits slow_host_node_probability)", "straggling jobs dominated by a bad host", 0.017, out.host, 0.01, true),
      CaseRole::Calibration, "fitted");
  add(make_case(src, "F01", "straggling job share (S >= 1.1)", 0.425, out.straggling, 0.08, true), CaseRole::Judged,
      "the issue's target: within 8 points");
  add(make_case(src, "F03", "straggler waste share of GPU-hours", 0.104, out.waste, 0.03, true), CaseRole::Judged,
      "the issue's target: within 3 points");
  add(make_case(src, "F02 tail (check)", "jobs wasting >= 45%", 0.01, out.waste_ge_45, 0.01, true), CaseRole::Judged,
      "published: ~1% of jobs");
  add(make_case(src, "F02 p90 (fits layers_per_stage_min)", "jobs wasting >= 21.3%", 0.10, out.waste_ge_21, 0.03, true),
      CaseRole::Calibration, "fitted; published: just over 10% of jobs");
  add(make_case(src, "F06 (check)", "slowdown of host-dominated jobs", 3.04, out.host_majority_slowdown, 0.15, false),
      CaseRole::Judged, "the host slowdown is an input read from F06; checks that the majority criterion picks them");
  return out;
}

}  // namespace fleetsim::reproduce
