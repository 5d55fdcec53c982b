#include "sim/pool/stragglers.hpp"

#include <algorithm>
#include <cmath>

#include "sim/run/rng.hpp"
#include "sim/step/slowdown.hpp"

namespace fleetsim::pool {
namespace {

constexpr std::uint64_t kStragglerStream = 1005;  // engine.cpp: 1003 failures, 1004 repairs

int uniform_int(run::Rng& rng, int lo, int hi) {
  if (hi <= lo) return lo;
  return lo + std::min(hi - lo, static_cast<int>(rng.uniform() * (hi - lo + 1)));
}

}  // namespace

double last_stage_slowdown(int p, int n, int m, double loss_forward, double loss_backward) {
  if (p <= 1 || n <= 0) return 1.0;
  const double t = 3.0 * n;                               // forward n + backward 2n, layer-forward units
  const double last = t + loss_forward + loss_backward;   // the last stage adds the loss layer
  const double actual = (m - 1) * std::max(t, last) + (p - 1) * t + last;
  const double balanced = (p * t + loss_forward + loss_backward) / p;
  return actual / ((m + p - 1) * balanced);
}

JobStragglerDraw draw_job_slowdown(const PoolStragglerSpec& s, int gpus, std::uint64_t seed, int replication,
                                   std::uint64_t job) {
  // One stream per job, so a job's draws do not depend on the others (deterministic per seed).
  run::Rng rng(seed ^ (job * 0x9E3779B97F4A7C15ULL), static_cast<std::uint64_t>(replication), kStragglerStream);
  JobStragglerDraw d;
  const int tp = std::max(1, std::min(s.tensor_parallel, gpus));
  const int per_tp = std::max(1, gpus / tp);
  int pp = 1;
  if (rng.uniform() < s.pipeline_share) {
    const int max_log = static_cast<int>(std::floor(std::log2(std::max(1, std::min(s.pipeline_stages_max, per_tp)))));
    pp = max_log >= 1 ? 1 << uniform_int(rng, 1, max_log) : 1;
  }
  const int n = uniform_int(rng, s.layers_per_stage_min, s.layers_per_stage_max);
  const int m = std::max(1, s.microbatches_per_stage) * pp;
  const double dp = std::max(1, per_tp / pp);
  const double c = s.compute_share;
  const bool balanced = rng.uniform() < s.stage_balanced_share;
  if (pp > 1 && !balanced) {
    const double k = std::pow(std::max(1.0, static_cast<double>(gpus) / std::max(1, s.min_job_gpus)), -s.loss_layer_size_exponent);
    d.stage = last_stage_slowdown(pp, n, m, k * s.loss_layer_forward, k * s.loss_layer_backward);
  }
  if (rng.uniform() < s.sequence_imbalance_share && dp > 1) {
    const double cv = step::sample_cost_cv(s.seq_length, s.seq_doc_median, s.seq_doc_sigma, s.seq_packing, s.attention_share);
    d.sequence = 1.0 + c * cv / std::sqrt(static_cast<double>(m)) * step::expected_max_normal_fast(dp);
  }
  const double step_time = rng.lognormal(s.step_time_median_s, s.step_time_sigma);
  if (rng.uniform() < s.gc_unsynchronized_share && s.gc_pause_s > 0) {
    const double hit = -std::expm1(gpus * std::log1p(-1.0 / std::max(1.0, s.gc_interval_steps)));
    d.gc = 1.0 + s.gc_pause_s * hit / step_time;
  }
  if (s.slow_host_node_probability > 0) {
    // P(the job holds a slow node) over its nodes (8 GPUs each); then its slowdown.
    const double nodes = std::max(1.0, gpus / 8.0);
    const double p_any = -std::expm1(nodes * std::log1p(-std::min(s.slow_host_node_probability, 1.0 - 1e-12)));
    const double u = rng.uniform();
    const double mag = rng.lognormal(s.slow_host_slowdown_median, s.slow_host_slowdown_sigma);
    if (u < p_any) d.host = std::max(1.0, mag);
    if (s.slow_host_episode_max_s > 0) {
      // Log-uniform over the published range (Greyhound gives a range, no distribution): equal odds
      // per decade, the least informative spread over a positive scale.
      const double lo = std::log(s.slow_host_episode_min_s), hi = std::log(s.slow_host_episode_max_s);
      const double episode = std::exp(lo + (hi - lo) * rng.uniform());
      if (d.host > 1.0) d.host_episode_s = episode;
    }
  }
  if (s.device_speed_sigma > 0)
    d.variation = 1.0 + c * (step::expected_slowest_lognormal_fast(gpus, s.device_speed_sigma, 1.5) - 1.0);
  d.slowdown = d.stage * d.sequence * d.gc * d.host * d.variation;
  return d;
}

StragglerCounts apply_stragglers(const PoolStragglerSpec& s, std::vector<JobSpec>& jobs, std::uint64_t seed,
                                 int replication, double warmup_s) {
  StragglerCounts out;
  if (!s.enabled) return out;
  // One traced run of slowdown S with its factors; host is the run's slow-host factor.
  auto count_run = [&](double S, double stage, double sequence, double host) {
    ++out.counted;
    const double ln_s = std::log(S);
    if (ln_s > 0 && std::log(stage) >= 0.5 * ln_s) ++out.last_stage_majority;
    if (S >= s.straggling_threshold) {
      ++out.straggling;
      if (sequence > 1.0) ++out.sequence_straggling;
      if (std::log(host) > 0.5 * ln_s) {
        ++out.host_majority_straggling;
        out.host_majority_slowdown_sum += S;
      }
    }
    if (1.0 - 1.0 / S >= 0.213) ++out.waste_at_least_21;
    if (1.0 - 1.0 / S >= 0.45) ++out.waste_at_least_45;
  };
  for (size_t i = 0; i < jobs.size(); ++i) {
    JobSpec& j = jobs[i];
    if (j.cls != JobClass::Training) continue;
    const JobStragglerDraw d = draw_job_slowdown(s, j.gpus, seed, replication, i);
    const double S = d.slowdown;
    const double ideal = j.duration;
    double slow_wall = ideal * S, rest_wall = 0.0;
    const bool swapped = d.host_episode_s > 0 && slow_wall > d.host_episode_s;
    const double S_rest = d.without_host();
    if (swapped) {
      // The slow stretch did host_episode_s / S of the work; the rest runs without the host.
      slow_wall = d.host_episode_s;
      rest_wall = (ideal - slow_wall / S) * S_rest;
    }
    j.duration = slow_wall + rest_wall;
    const double wasted = slow_wall * (1.0 - 1.0 / S) + rest_wall * (1.0 - 1.0 / S_rest);
    j.straggler_waste = static_cast<float>(j.duration > 0 ? wasted / j.duration : 1.0 - 1.0 / S);
    j.straggler_counted = j.gpus >= s.min_job_gpus;
    if (j.straggler_counted && j.submit >= warmup_s) {
      count_run(S, d.stage, d.sequence, d.host);
      if (swapped) {
        ++out.slow_host_restarts;
        count_run(S_rest, d.stage, d.sequence, 1.0);
      }
    }
  }
  return out;
}

}  // namespace fleetsim::pool
