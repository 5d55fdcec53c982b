// What the SimGrid tier simulates, planned as plain data: where each rank of the job sits on the
// fabric, the flows of one contended collective step (sampled by symmetry to stay under the flow
// budget of SimGrid 3.32), and the program of one representative pipeline. No SimGrid types.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/simgrid/fabric.hpp"
#include "sim/workload/specs.hpp"

namespace fleetsim::sgtier {

enum class PlacementKind { Contiguous, Scattered };

// Rank order as workload.parallel.rank_order, innermost first (Megatron-core RankGenerator): TP, CP,
// then DP and PP ("tp-cp-dp-pp", Megatron's default) or PP and DP ("tp-cp-pp-dp", Llama 3 §3.3.2);
// expert-parallel groups are EP consecutive ranks of the (CP, DP) space, as in sim/step/layout.cpp.
// Nodes of the job are contiguous, or a seeded permutation of them (scattered). A second job sharing
// the fabric takes the other nodes, interleaved with ours.
class Layout {
 public:
  Layout(const ParallelSpec& par, int gpus, int gpus_per_node, PlacementKind placement = PlacementKind::Contiguous,
         unsigned long long seed = 1, int other_job_gpus = 0);
  [[nodiscard]] int ranks() const { return gpus_; }
  [[nodiscard]] int physical_gpus() const { return physical_; }
  [[nodiscard]] int gpu_of_rank(int rank) const;        // our job
  [[nodiscard]] int other_gpu_of_rank(int rank) const;  // the job sharing the fabric
  [[nodiscard]] int other_ranks() const { return other_gpus_; }
  [[nodiscard]] int rank_of(int t, int c, int p, int d) const { return t + c * tp + p * stride_p + d * stride_d; }
  [[nodiscard]] int stage_of(int rank) const { return (rank / stride_p) % pp; }
  int tp = 1, cp = 1, pp = 1, dp = 1, ep = 1;
  int stride_p = 1, stride_d = 1;

 private:
  int gpus_ = 0, other_gpus_ = 0, G_ = 8, physical_ = 0;
  std::vector<int> our_nodes_, other_nodes_;  // job node index -> physical node
};

enum class Axis { Data, Context, Expert };
enum class Collective { AllReduce, ReduceScatter, AllGather, AllToAll };

// A communication group in the rank space, as sim/step/layout.hpp's GroupPlacement: `size` ranks
// `stride` apart; the job is tiled by such groups.
struct GroupShape {
  int size = 1;
  int stride = 1;
};
GroupShape shape_of(const Layout& layout, Axis axis);
// Every group of that shape in a job of `ranks` ranks, each in rank order.
std::vector<std::vector<int>> groups_strided(GroupShape shape, int ranks);

struct Flow {
  int src = 0, dst = 0;  // physical GPUs
  double bytes = 0;
  bool background = false;  // traffic of the other job: it only contends
};

// Per link: what the SimGrid platform uses instead of Fabric::bandwidth.
struct LinkScale {
  // link key -> capacity multiplier. A sampled run gives each link the share of its capacity that
  // the sampled flows have of all flows crossing it (n_sampled / n_all), so every simulated flow
  // sees the fair share it would get with everything running; the pipeline divides a bundle by the
  // number of pipelines doing the same hop at the same time.
  std::unordered_map<std::uint64_t, double> multiplier;
  [[nodiscard]] double apply(const Fabric& f, LinkId id) const;
};

// One contended step of a collective: all flows that can share a bottleneck with the focus group.
struct CollectivePlan {
  std::vector<Flow> flows;
  int steps = 1;                 // identical steps in the whole collective (ring: 2(n-1) or n-1)
  int group_size = 1;
  int groups_in_class = 0;       // groups that load the same switches (same rail, or the whole fat tree)
  int groups_simulated = 0;
  LinkScale scale;               // links crossed by sampled-out flows keep only the sampled share
  double contention_free_step_s = 0;  // slowest flow of the step alone on the fabric
  double step_latency_s = 0;          // largest route latency of a step's flow
  double reference_bytes = 0;         // the bytes per rank the step was planned for
};

// The other job's data-parallel rings contend when the layout has one.
CollectivePlan plan_collective(const Fabric& fabric, const Layout& layout, GroupShape shape, Collective kind,
                               double bytes_per_rank, int focus_rank, int max_flows);

// The schedule of one pipeline stage: forward or backward of (microbatch, model chunk).
struct PipeOp {
  bool forward = true;
  int microbatch = 0;
  int chunk = 0;
  double duration_s = 0;  // compute including NVLink-domain (TP) communication
};

struct PipelineProgram {
  int stages = 1, chunks = 1, microbatches = 1;
  std::vector<std::vector<PipeOp>> ops;  // per physical stage, in execution order
  std::vector<int> stage_gpu;            // physical GPU of each stage (one TP rank of the pipeline)
  double p2p_bytes = 0;                  // activation (and gradient) bytes sent by that GPU per hop
  double receive_delay_s = 0;            // added after each arrival (the NVLink all-gather of Megatron's
                                         // scatter/gather optimization)
  LinkScale scale;                       // bundles shared with the other pipelines doing the same hop
};

// Places the pipeline containing focus_rank and counts, for every link its hops cross, how many
// pipelines (and TP ranks) of the job cross it at the same hop: all pipelines run the same schedule
// in step, so the representative gets that share of the link.
void place_pipeline(const Fabric& fabric, const Layout& layout, int focus_rank, PipelineProgram& program);

// Contention-free makespan of the program (list scheduling with the fabric's transfer times),
// used by tests and as the reference the SimGrid pipeline is compared with.
double pipeline_makespan_reference(const Fabric& fabric, const PipelineProgram& program);

}  // namespace fleetsim::sgtier
