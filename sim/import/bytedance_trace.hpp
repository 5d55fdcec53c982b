// ByteDance's public straggler traces (issue 27), replayed through fleetsim's pipeline schedule.
//
// Lin et al., "Understanding Stragglers in Large Model Training Using What-if Analysis" (OSDI'25)
// define a job's slowdown S = T / T_ideal (their Eq. 1): T the simulated step time of the traced
// operations, T_ideal the same with every operation at an ideal duration - a compute operation at
// the mean of its type over DP ranks, stages and steps, a communication at the median
// (artifact analyzer/analysis_util.py, simulation_analysis_reduce_dim). Their artifact
// (GitHub ByteDance-Seed/StragglerAnalysis, Apache-2.0) has three traces with S: AR (a worker
// slowed on purpose, 1.973), SE (sequence-length imbalance, 1.537) and ST (stage imbalance, 1.179;
// data/validation/stragglers_failslow.csv F15).
//
// fleetsim reads two files made by scripts/bytedance-trace-summary from the artifact's timelines:
// data/supplement/bytedance_straggler_microbatches.csv, every forward and backward compute
// duration by step, DP rank, stage and microbatch, and bytedance_straggler_traces.csv, per worker
// and operation type the mean and median duration (for the iteration's tail) and the traced mean
// step time. Each traced step is timed with fleetsim's own schedule (sim/step/pipeline_schedule.hpp,
// the 1F1B list scheduler of `fleetsim step`, here with a duration per op): each DP replica's
// pipeline with its microbatches' traced durations, then the tail at the synchronization points
// Megatron-LM has (distributed optimizer): each stage's gradient reduce-scatter waits for that
// stage of every replica, the tied-embedding all-reduce for the first and the last stage, the
// gradient-norm all-reduce of the clipping for every rank; then the optimizer step and the
// parameter all-gather, again per stage over the replicas. T is the mean over the traced steps.
// T_ideal is the same with every compute operation at the mean of its type and every collective
// and send at the median of its type over all workers, as the authors' ideal.
//
// Not replayed: the layer-norm gradient all-reduce (under 1% of a step in every trace), CPU launch
// delays (the authors remove them before S too: step_t_nodelay), and a collective's own wait,
// whose median stands for its transfer time (the artifact subtracts the wait per operation).
#pragma once

#include <string>
#include <vector>

namespace fleetsim::importer {

// One worker's (DP rank, stage) durations in seconds.
struct TraceWorker {
  double forward = 0, backward = 0;       // mean per microbatch over the trace (for reports)
  double reduce_scatter = 0;              // gradient reduce-scatter over the DP replicas (median)
  double embedding_all_reduce = 0;        // first and last stage (tied embeddings); 0 elsewhere
  double clip = 0;                        // gradient-norm all-reduce and clipping (median)
  double optimizer = 0;                   // the optimizer step (mean)
  double all_gather = 0;                  // parameter all-gather over the DP replicas (median)
};

struct TracedStep {
  int step = 0;
  // [(dp_rank * pp + stage) * microbatches + microbatch], seconds
  std::vector<double> forward, backward;
};

struct ByteDanceTrace {
  std::string name;                       // AR, SE, ST
  int dp = 0, pp = 0, microbatches = 0;   // microbatches per replica and iteration
  std::vector<TraceWorker> workers;       // [dp_rank * pp + stage]
  std::vector<TracedStep> steps;
  double p2p = 0;                         // one activation send (the smallest median send, wait-free)
  double measured_step = 0;               // mean step time of the trace (first start to last end)
  [[nodiscard]] const TraceWorker& at(int dp_rank, int stage) const {
    return workers[static_cast<size_t>(dp_rank * pp + stage)];
  }
};

// Reads trace `name` (AR, SE, ST) from the summary and the microbatch files; ConfigError naming
// the file when one is missing, lacks a column, or the trace is absent or incomplete (a step
// without every worker's forward and backward of every microbatch).
[[nodiscard]] ByteDanceTrace read_bytedance_trace(const std::string& summary_csv,
                                                  const std::string& microbatch_csv, const std::string& name);

// Every operation at the ideal: compute at the mean over workers, microbatches and steps, the
// collectives and sends at the median over workers.
[[nodiscard]] ByteDanceTrace ideal(const ByteDanceTrace& trace);

// Traced step `k` through the 1F1B schedule and the tail above, in seconds.
[[nodiscard]] double replay_step(const ByteDanceTrace& trace, size_t k);

struct TraceReplay {
  double iteration = 0, ideal_iteration = 0;
  [[nodiscard]] double slowdown() const { return ideal_iteration > 0 ? iteration / ideal_iteration : 1.0; }
};
[[nodiscard]] TraceReplay replay(const ByteDanceTrace& trace);

}  // namespace fleetsim::importer
