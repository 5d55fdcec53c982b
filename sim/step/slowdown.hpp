// Slowdown processes of one training iteration (issue 27): why a synchronous iteration runs slower
// than the step model's healthy one, cause by cause, in closed form (order statistics: nothing is
// sampled per GPU, so 131,072 GPUs cost the same as 8).
//
// Where the schedule synchronizes decides over how many ranks a process takes its maximum:
// - compute variation (static clock/thermal spread sigma_dev and per-iteration jitter cv, one
//   lognormal of sigma = sqrt(sigma_dev^2 + cv^2) per GPU): TP all-reduces every layer, the 1F1B
//   steady state runs at the pace of its slowest stage and the gradient reduction waits for the
//   slowest replica, so a persistent slow GPU gates the whole job: max over every GPU, applied to
//   the compute on the critical path.
// - GC pauses: one process per GPU, a pause of `gc_pause` every `gc_interval_steps` iterations at
//   a random phase; the next collective waits for it. Unsynchronized, an iteration is delayed when
//   any rank pauses: gc_pause (1 - (1 - 1/G)^N); synchronized (planned GC), gc_pause / G
//   (ByteDance OSDI'25 §5.4, data/validation/stragglers_failslow.csv F12).
// - sequence length: the TP, CP and PP ranks of one replica work on the same microbatches; only
//   data-parallel replicas see different sequences, and they meet at the gradient reduction: max
//   over the dp replicas of the sum of their microbatch costs (F10; ByteDance: microbatch time
//   ~ sum of s_i^2 with per-document attention).
// - degraded links: a ring or tree collective runs at the pace of its slowest link; a job whose
//   collectives cross one degraded link sees its exposed fabric communication stretched.
// - fail-slow hosts: a slow host gates its stage (compute kind) or its collectives (network
//   kind); the step gives the factor while one is present and the stationary probability; the run
//   model turns episodes into events over weeks (sim/run/README.md).
// The causes' extra times add up (max of a sum <= sum of the maxes: an upper bound when the
// slowest ranks of two processes differ; the processes are small next to the iteration).
#pragma once

#include <string>
#include <vector>

#include "sim/run/specs.hpp"
#include "sim/scenario.hpp"
#include "sim/step/step_model.hpp"

namespace fleetsim::step {

// E[max of n i.i.d. standard normals] from a precomputed table of the exact order-statistic
// integral (sim/run/stragglers.hpp, David & Nagaraja eq. 2.1.5) every 1/8 in ln n up to n = 2^28,
// interpolated linearly in ln n (within 1e-3 of the integral, tests/unit/step_slowdown_test.cpp);
// beyond the table the Gumbel form's growth; 0 for n <= 1. A few nanoseconds instead of the
// integral's milliseconds.
[[nodiscard]] double expected_max_normal_fast(double n);

// E[min(exp(sigma Z_(n)), cap)] in closed form: exp(sigma z_n + sigma^2 v_n / 2) capped, z_n from
// the table and v_n = pi^2 / (12 ln n) the Gumbel variance of the maximum (David & Nagaraja §10.5).
// Within 1% of the exact integral for sigma <= 0.1 and n >= 8 (tested).
[[nodiscard]] double expected_slowest_lognormal_fast(double n, double sigma, double cap);

// Coefficient of variation of the attention-weighted cost of one sample of `seq_length` tokens
// when document lengths are lognormal(median, sigma) truncated at seq_length. `attention_share`
// is the share of the sample's compute in attention when it holds one full-length document.
// Packed: documents fill the sample, attention runs per document (cost ~ (1 - a) + a sum s_i^2 /
// S^2; the variance of sum s_i^2 by the renewal-reward CLT, Cox 1962, with S / E[s] documents).
// Unpacked: one document per sample, no padding (cost ~ (1 - a) s / S + a (s / S)^2).
[[nodiscard]] double sample_cost_cv(double seq_length, double doc_median, double doc_sigma, bool packing,
                                    double attention_share);

// Share of one layer's forward FLOPs in attention scores and values for a full causal sequence:
// (s / 6h) / (1 + s / 6h + V / 16 l h), the terms of Narayanan et al. SC'21 eq. 3.
[[nodiscard]] double attention_share(const WorkloadSpec& w);

// What uneven pipeline stages (the logits and loss on the last, the embedding on the first,
// uneven layer counts) cost the step's iteration: its schedule as timed minus the same schedule
// with the pipeline's forward and backward work spread evenly over its chunks, the partition a
// fractional-layer split would reach and ByteDance's ideal (compute at its type's mean over
// stages; OSDI'25 §5.2). For 1F1B, (m - 1)(slowest - mean stage) per microbatch: the steady state
// runs at the slowest stage's pace. 0 without pipeline parallelism and under DualPipe.
[[nodiscard]] double stage_imbalance_seconds(const StepResult& step);

struct SlowdownCause {
  std::string name;       // compute_variation, gc_pauses, sequence_length, degraded_links, slow_hosts
  double seconds = 0.0;   // expected extra seconds per iteration
};

struct SlowdownResult {
  double healthy_s = 0.0;              // the step model's iteration time
  std::vector<SlowdownCause> causes;   // every cause, in a fixed order (0 s when off)
  double steady_factor = 1.0;          // with every process but fail-slow hosts: iteration / healthy
  double fail_slow_factor = 1.0;       // while one unmitigated slow host is in the job
  double fail_slow_rebalanced_factor = 1.0;  // the same after re-balancing microbatches (policy rebalance)
  double fail_slow_probability = 0.0;  // stationary probability that the job holds a slow host
  double expected_factor = 1.0;        // steady x the expected fail-slow stretch: `fleetsim step`
  // Last-stage (uneven stage) imbalance, ByteDance's main cause in 39.3% of jobs (OSDI'25 §5.2,
  // F08): the seconds the healthy iteration loses against the same work spread evenly over the
  // pipeline's chunks (stage_imbalance_seconds), and healthy / balanced.
  // A cause of the healthy iteration itself, so not in the factors above (no double count).
  double stage_imbalance_s = 0.0;
  double stage_imbalance_slowdown = 1.0;
  [[nodiscard]] double cause(const std::string& name) const;
};

// Everything needed besides the scenario: the step's healthy result (critical-path compute,
// exposed communication, data-parallel size, microbatches).
[[nodiscard]] SlowdownResult evaluate_slowdown(const StragglerSpec& spec, const ClusterSpec& cluster,
                                               const WorkloadSpec& workload, const StepResult& step);

}  // namespace fleetsim::step

namespace fleetsim {
class Report;
// `stragglers.*` step metrics (catalog in sim/step/metrics.cpp).
void add_slowdown_metrics(const step::SlowdownResult& r, Report& report);
}  // namespace fleetsim
