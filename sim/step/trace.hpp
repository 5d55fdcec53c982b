// The timeline of one simulated iteration, from the step model's own schedule (capture.hpp): per
// pipeline rank, every forward, backward and recompute of every microbatch and chunk with the
// compute and the TP / CP / EP communication inside it, the blocking pipeline sends, the bubble,
// the data-parallel gradient reductions and parameter all-gathers, and the optimizer. Written as a
// Chrome trace-event / Perfetto JSON by `fleetsim step --trace` and as the `iteration_schedule`
// table of the results file (the report's Gantt chart).
//
// Symmetry keeps it small at any scale: one representative GPU per pipeline stage. The TP x CP x
// DP GPUs of a stage run the same schedule in this model, so the file grows with PP x VPP x
// microbatches, not with the number of GPUs.
#pragma once

#include <string>
#include <vector>

#include "sim/results/trace_json.hpp"
#include "sim/scenario.hpp"
#include "sim/step/step_model.hpp"

namespace fleetsim::step {

// Streams of one pipeline rank: the compute stream (kernels and blocking communication, the
// critical path) and the two data-parallel streams that overlap it.
enum class TraceStream { Compute = 0, DpGradients = 1, DpParameters = 2 };

struct TimelineSpan {
  int rank = 0;
  TraceStream stream = TraceStream::Compute;
  int depth = 0;            // 0: an op or a phase; 1, 2: parts of it (nested inside)
  std::string name, category;
  double start = 0, duration = 0;  // seconds from the start of the iteration
  TraceArgs args;
};

// Categories of the spans (the `cat` field; the test sums busy time per category).
namespace trace_cat {
inline constexpr const char* kForward = "forward";      // an op: forward of one microbatch and chunk
inline constexpr const char* kBackward = "backward";    // an op: recompute + backward
inline constexpr const char* kRecompute = "recompute";  // inside a backward op
inline constexpr const char* kCompute = "compute";      // math + memory-bound kernels + launch
inline constexpr const char* kTp = "tp_comm";
inline constexpr const char* kCp = "cp_comm";           // the exposed part of the K/V exchange
inline constexpr const char* kEp = "ep_comm";
inline constexpr const char* kPp = "pp_comm";           // blocking send to the neighbouring stage
inline constexpr const char* kBubble = "bubble";        // idle inside the pipeline
inline constexpr const char* kDpExposed = "dp_exposed"; // DP communication the rank waits for
// compute slowed by NCCL kernels running beside it (SM and HBM share; overlap.hpp)
inline constexpr const char* kContention = "overlap_contention";
inline constexpr const char* kOptimizer = "optimizer";
inline constexpr const char* kIdle = "idle";            // done, waiting for the slowest rank
inline constexpr const char* kDp = "dp_comm";           // on the DP streams
}  // namespace trace_cat

struct IterationTimeline {
  StepResult result;
  int ranks = 0;            // pipeline ranks (tracks)
  int gpus_per_rank = 0;    // GPUs each track stands for
  std::vector<TimelineSpan> spans;  // by rank, stream, start; parents before their parts
};

// Evaluates one iteration on the analytical tier and lays out its schedule.
[[nodiscard]] IterationTimeline iteration_timeline(const ClusterSpec& cluster, const WorkloadSpec& workload);

// The Chrome trace-event form (one process, three threads per pipeline rank).
void add_iteration_trace(const IterationTimeline& t, const Scenario& s, TraceWriter& out);

}  // namespace fleetsim::step
