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

#include <functional>
#include <string>
#include <utility>
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

// Traffic on the fabric (the SimGrid tier's link tracks), aggregated per level (NVLink, NIC to
// leaf, leaf to spine, ...). A span merges the transfers of one kind that overlap in time on a
// level, so a track's spans are disjoint and the file stays small; its args count the transfers
// and sum their bytes. A rate point gives a level's aggregate throughput from then on.
struct LinkSpan {
  int track = 0;  // index into IterationTimeline::link_tracks
  std::string name;
  double start = 0, duration = 0;
  TraceArgs args;
};
struct LinkRate {
  int counter = 0;  // index into IterationTimeline::link_counters
  double at = 0, bytes_per_s = 0;
};

struct IterationTimeline {
  StepResult result;
  std::string tier = "analytical";
  int ranks = 0;            // pipeline ranks (tracks)
  int gpus_per_rank = 0;    // GPUs each track stands for
  std::vector<TimelineSpan> spans;  // by rank, stream, start; parents before their parts
  // SimGrid tier only: tracks per level of the fabric that carries traffic.
  std::vector<std::string> link_tracks;    // "leaf - spine: pipeline sends"
  std::vector<LinkSpan> links;             // by track, then start; disjoint on each track
  std::vector<std::string> link_counters;  // "leaf - spine"
  std::vector<LinkRate> link_rates;        // by counter, then time
  std::string links_note;                  // whose traffic they show (the trace's otherData)
};

struct StepCapture;
struct DpSpan;

// Evaluates one iteration on the analytical tier and lays out its schedule.
[[nodiscard]] IterationTimeline iteration_timeline(const ClusterSpec& cluster, const WorkloadSpec& workload);

// Lays out the rank tracks of an iteration a tier has captured (the analytical tier above; the
// SimGrid tier's simgrid_iteration_timeline, sim/simgrid/simgrid_tier.hpp).
[[nodiscard]] IterationTimeline timeline_from_capture(const StepCapture& capture, const StepResult& result,
                                                      const WorkloadSpec& workload);

// The DDP buckets of one gradient reduction as compose_iteration times them: each a 1/B share of
// the transfer, back to back from the start; the last cannot start before the chunk's last
// backward is done, so it ends the span. (start, duration) pairs; one when the chunk has one bucket.
[[nodiscard]] std::vector<std::pair<double, double>> gradient_bucket_intervals(const DpSpan& d);

// The SimGrid tier's timeline (simgrid_iteration_timeline), which the core library cannot call: the
// tier installs it (install_simgrid_tier(), sim/simgrid/install.cpp) in the binaries that carry it.
// Empty otherwise.
using TimelineFn = std::function<IterationTimeline(const ClusterSpec&, const WorkloadSpec&)>;
void set_simgrid_timeline(TimelineFn fn);
[[nodiscard]] const TimelineFn& simgrid_timeline();

// The Chrome trace-event form: process 1 with three threads per pipeline rank; on the SimGrid tier
// process 2 with one thread per fabric level.
void add_iteration_trace(const IterationTimeline& t, const Scenario& s, TraceWriter& out);

}  // namespace fleetsim::step
