// Per-job slowdown from stragglers in the pool (issue 27): each training job draws its slowdown
// S = T / T_ideal from the causes ByteDance's straggler study names (Lin et al., OSDI'25;
// data/validation/stragglers_failslow.csv F01-F12), each from the same formulas as the step
// model's slowdown processes (sim/step/slowdown.hpp), so that cluster statistics (the share of
// jobs >= 10% slower, the share of GPU-hours wasted) can be simulated and judged.
//
// A job of N GPUs: tensor parallel tp; with probability pipeline_share a pipeline of pp stages
// (uniform in log2 over 2 .. pipeline_stages_max, within N / tp), n transformer layers per stage
// (uniform in layers_per_stage_min .. max), m = microbatches_per_stage x pp microbatches, data
// parallel dp = N / (tp pp). Causes, multiplied (they act on different phases):
// - last-stage imbalance (F08, F09): the last stage also runs the loss layer, Lf (forward) + Lb
//   (backward) layer-forward units against 3n for the n layers. 1F1B takes
//   (m - 1) t_max + sum_k t_k; the ideal balances the same work over the stages:
//   (m + p - 1) t_bal. Jobs that partition around the loss layer (stage_balanced_share) keep none.
// - sequence length (F10, F11): a share of jobs packs variable-length documents without
//   re-balancing: S = 1 + c cv / sqrt(m) E[Z_(dp)], cv of one sample's cost (step::sample_cost_cv),
//   c the compute share of the iteration.
// - unsynchronized GC (F12): S = 1 + pause (1 - (1 - 1/G)^N) / T_step, T_step lognormal per job.
// - bad hosts (F05-F07): each node is in a fail-slow episode with probability q; a job holding one
//   runs at a lognormal slowdown (F06: 3.04 on average for such jobs), the largest if several,
//   until the host is found and swapped out: after a wall time log-uniform in [slow_host_episode_min,
//   max] (Wu et al., Greyhound, ATC'25 / arXiv:2410.12588: fail-slows last "from sub-minutes to
//   nearly ten hours" and are handled as fail-stops by checkpoint-and-restart) the job goes on
//   without it. ByteDance's traced jobs are slow throughout (F04: the p90 step is 1.06x the job's
//   slowdown), so the slow stretch and the rest count as two traced runs; the GPU-hours of both
//   are the job's.
// - compute variation: 1 + c (E[max of N lognormal speed factors] - 1).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/pool/specs.hpp"
#include "sim/pool/workload.hpp"

namespace fleetsim::pool {

struct StragglerCounts {
  long long counted = 0;    // training jobs of >= min_job_gpus submitted after the warm-up
  long long straggling = 0; // of which S >= straggling_threshold
  // The calibration statistics (scenarios/stragglers-bytedance.yaml), ByteDance's definitions:
  long long last_stage_majority = 0;  // counted jobs whose last-stage factor is >= half of ln S (F08)
  long long sequence_straggling = 0;  // straggling jobs with sequence-length imbalance (F10)
  long long host_majority_straggling = 0;  // straggling jobs whose slow host is > half of ln S (F05)
  long long slow_host_restarts = 0;  // counted jobs whose slow host was swapped out before they ended
  // Checks, not fitted: the tail of per-run waste 1 - 1/S (F02: > 10% of jobs waste >= 21.3%,
  // ~1% >= 45%) and the mean slowdown of runs dominated by a slow host (F06: 3.04).
  long long waste_at_least_21 = 0, waste_at_least_45 = 0;
  double host_majority_slowdown_sum = 0.0;
};

// One job's slowdown drawn from the causes (>= 1); `u` gives the job's random numbers.
struct JobStragglerDraw {
  double slowdown = 1.0;
  double stage = 1.0, sequence = 1.0, gc = 1.0, host = 1.0, variation = 1.0;  // its factors
  double host_episode_s = 0.0;  // wall time before a slow host is swapped out (0: it stays to the end)
  // The slowdown without the slow host (what the job runs at once it is swapped out).
  [[nodiscard]] double without_host() const { return stage * sequence * gc * variation; }
};
[[nodiscard]] JobStragglerDraw draw_job_slowdown(const PoolStragglerSpec& s, int gpus, std::uint64_t seed,
                                                 int replication, std::uint64_t job);

// The last-stage imbalance of one pipeline (closed form above), >= 1.
[[nodiscard]] double last_stage_slowdown(int stages, int layers_per_stage, int microbatches, double loss_forward,
                                         double loss_backward);

// Stretches every training job's run time by its slowdown (the part of it after a slow host is
// swapped out at its own slowdown without the host) and marks the jobs that count. A job's
// straggler_waste is its GPU-hour-weighted 1 - 1/S over both parts.
StragglerCounts apply_stragglers(const PoolStragglerSpec& s, std::vector<JobSpec>& jobs, std::uint64_t seed,
                                 int replication, double warmup_s);

}  // namespace fleetsim::pool
