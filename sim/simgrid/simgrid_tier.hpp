// The SimGrid tier of the step model (DESIGN.md §2): one training iteration on SimGrid's
// flow-level max-min bandwidth sharing, and the lower-level measurements it is made of.
//
// What it adds to the analytical tier: contention. One representative pipeline runs as SimGrid
// activities (stage compute at the analytical tier's per-chunk durations, activations and gradients
// over their real routes); the data-, context- and expert-parallel collectives are timed from one
// contended step holding every flow that can share a bottleneck with the group of interest (one
// rail, or a sample of groups with the switch bundles scaled to their share), scaled by symmetry to
// the whole collective. NVLink-domain (tensor-parallel) collectives stay analytical. So this tier
// sees oversubscribed leaves and pods, bad placement, a degraded or failed cable, a straggler GPU
// and a second job on the same fabric; on a non-blocking fabric it agrees with the analytical tier.
//
// Every SimGrid run happens in a forked child process (one engine per process in SimGrid 3.32, and
// its clock cannot be reset): these functions can be called any number of times, from one thread
// at a time. No SimGrid header is included here.
#pragma once

#include <array>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "sim/scenario.hpp"
#include "sim/step/capture.hpp"
#include "sim/step/step_model.hpp"
#include "sim/step/trace.hpp"
#include "sim/units/quantity.hpp"

namespace fleetsim {

// One cable running at a fraction of its rate (0.5: degraded to half rate by a flapping
// transceiver) or down (0: traffic is rerouted).
struct SimgridCableFault {
  enum class Where {
    GpuNic,      // the cable from the rank's NIC to its leaf; down: PXN through the neighbouring NIC
    LeafUplink,  // one uplink cable of the rank's leaf; down: ECMP over the remaining uplinks
  };
  Where where = Where::GpuNic;
  int rank = 0;                // global rank of the job whose cable (or whose leaf's uplink) it is
  double rate_fraction = 0.5;  // 0 < f < 1: degraded; 0: failed
};

// One GPU computing slower than its peers (thermal throttling, a fail-slow part).
struct SimgridStraggler {
  int rank = 0;
  double slowdown = 1.5;  // its compute takes this many times longer
};

enum class SimgridPlacement {
  Contiguous,  // the job's nodes are consecutive on the fabric (leaf by leaf)
  Scattered,   // the job's nodes are a seeded random permutation of its allocation
};

struct SimgridOptions {
  std::vector<std::string> cfg;  // SimGrid --cfg pass-through, "key:value" (applied after ours)
  bool verbose = false;          // keep SimGrid's log output
  // Degradations only this tier can express:
  std::optional<SimgridCableFault> cable_fault;
  std::optional<SimgridStraggler> straggler;
  SimgridPlacement placement = SimgridPlacement::Contiguous;
  unsigned long long placement_seed = 1;
  // A second job with this many GPUs on the same fabric: its nodes interleave with ours and it runs
  // its data-parallel ring all-reduces (same TP/CP/PP layout as ours) while ours run.
  int sharing_job_gpus = 0;
  int max_flows = 4096;  // concurrent flows per SimGrid run (3.32 is quadratic beyond ~4k)
};

// A canonical text of the options that change results (for memoization keys and reports).
std::string simgrid_state_key(const SimgridOptions& options);

// The levels of the fabric as this tier routes traffic (fabric.hpp's links, up and down together).
enum class FabricLevel { NvLink = 0, NicLeaf = 1, LeafSpine = 2, PodCore = 3 };
inline constexpr int kFabricLevels = 4;
[[nodiscard]] const char* fabric_level_name(FabricLevel level);

// One transfer of the representative ranks on the iteration's time axis, with the bytes it puts
// on each level of the fabric (0: it does not cross that level).
struct FabricTransfer {
  std::string name;      // "activation mb3 c5 -> c6", "reduce-scatter grads c5 bucket 2/4"
  enum class Kind { PipelineSend, GradientReduction, ParameterGather };
  Kind kind = Kind::PipelineSend;
  double start = 0, end = 0;
  std::array<double, kFabricLevels> bytes{};
};

// What one SimGrid-tier iteration placed on the time axis, for its trace.
struct SimgridTimeline {
  // As sim/step/capture.hpp, with this tier's numbers: the stage costs with the CP/EP contention
  // and any straggler applied (so each op's parts add up to its simulated duration), every op as
  // the SimGrid pipeline ran it, p2p = 0 (this tier's sends are asynchronous: a receiver's wait is
  // bubble), the data-parallel collectives as composed with the simulated rates.
  step::StepCapture capture;
  // Pipeline sends with SimGrid's start and finish times; data-parallel collectives where the
  // composition placed them, their bytes split over the levels in the proportion the simulated
  // contended step's flows cross them; parameter all-gathers back to back from the iteration's
  // start (in steady state they overlap the first forwards).
  std::vector<FabricTransfer> transfers;
};

// One iteration on the SimGrid tier; the result's `tier` is "simgrid". With `timeline`, what the
// trace needs is recorded in it (the result is the same either way).
StepResult simgrid_evaluate_step(const ClusterSpec& cluster, const WorkloadSpec& workload,
                                 const SimgridOptions& options = {}, SimgridTimeline* timeline = nullptr);

// The iteration's timeline on this tier: the rank tracks as the analytical trace lays them out
// (sim/step/trace.hpp) and one link track per fabric level that carries traffic, each span the
// union of overlapping transfers with their bytes (sim/simgrid/trace.cpp).
[[nodiscard]] step::IterationTimeline simgrid_iteration_timeline(const ClusterSpec& cluster,
                                                                 const WorkloadSpec& workload,
                                                                 const SimgridOptions& options = {});

enum class SimgridCollective { AllReduce, ReduceScatter, AllGather, AllToAll };
enum class ParallelAxis { Data, Context, Expert };

struct CollectiveTiming {
  Seconds time;                  // the whole collective: steps x step
  Seconds step;                  // one contended step, simulated
  Seconds contention_free_step;  // the same step with the fabric to itself (alpha + bytes / bottleneck)
  int steps = 0;
  int group_size = 0;
  int flows_simulated = 0;
  int groups_simulated = 0, groups_in_class = 0;
};

// A collective over every group of `axis` of the job laid out by `parallel` on `cluster` (all
// groups at once, as in training), `bytes_per_rank` as in the analytical tier: the reduced buffer
// (all-reduce), the unsharded buffer (reduce-scatter, all-gather), all a rank sends (all-to-all).
// Timed for the group containing the faulty or straggling rank (rank 0 otherwise), ring algorithm.
CollectiveTiming simgrid_collective_time(const ClusterSpec& cluster, const ParallelSpec& parallel,
                                         SimgridCollective kind, ParallelAxis axis, Bytes bytes_per_rank,
                                         const SimgridOptions& options = {});

// The same for groups given by their shape in the rank space (as sim/step/layout.hpp's
// GroupPlacement: `group_size` ranks `group_stride` apart, tiling the job; rank r on GPU r, or as
// options.placement scatters the nodes).
CollectiveTiming simgrid_collective_time(const ClusterSpec& cluster, SimgridCollective kind, int group_size,
                                         int group_stride, Bytes bytes_per_rank, const SimgridOptions& options = {});

// The representative pipeline alone: makespan of one iteration's forward and backward passes on
// the SimGrid platform, and the same schedule with contention-free transfers (the analytical
// schedule's timing with this tier's routes).
struct PipelineTiming {
  Seconds makespan;
  Seconds contention_free_makespan;
  std::vector<Seconds> stage_finish;
};
PipelineTiming simgrid_pipeline_time(const ClusterSpec& cluster, const WorkloadSpec& workload,
                                     const SimgridOptions& options = {});

// The run model's degraded states as this tier expresses them, on top of `base`: a compute slowdown
// is one straggler GPU (rank 0) that much slower (a fail-slow or throttled part gates its pipeline
// stage, hence every replica), a fabric bandwidth scale below 1 is rank 0's NIC cable at that rate.
SimgridOptions simgrid_state_of(const StepOptions& state, const SimgridOptions& base = {});

// Options every evaluation through sim/pipeline/tier.hpp (`step --tier simgrid`, `run` with
// step.tier: simgrid, `search --verify simgrid`) starts from: the CLI's SimGrid pass-through
// (--cfg settings, verbose), placement, a sharing job. install_simgrid_tier() is declared in
// sim/pipeline/tier.hpp and defined in sim/simgrid/install.cpp.
void set_simgrid_default_options(SimgridOptions options);
[[nodiscard]] SimgridOptions simgrid_default_options();

// For the run model: iteration time per degraded state, memoized (a state is a SimgridOptions:
// straggler, cable fault, placement, sharing job; or a StepOptions, via simgrid_state_of).
// Thread-safe; SimGrid runs are serialized.
class SimgridIterationTimes {
 public:
  SimgridIterationTimes(ClusterSpec cluster, WorkloadSpec workload, SimgridOptions base = {});
  Seconds operator()(const SimgridOptions& state);
  Seconds operator()(const StepOptions& state) { return (*this)(simgrid_state_of(state, base_)); }
  [[nodiscard]] size_t evaluations() const { return evaluations_; }

 private:
  ClusterSpec cluster_;
  WorkloadSpec workload_;
  SimgridOptions base_;
  std::mutex mutex_;
  std::map<std::string, Seconds> memo_;
  size_t evaluations_ = 0;
};

}  // namespace fleetsim
