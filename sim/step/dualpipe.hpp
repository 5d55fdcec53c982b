// DualPipe, DeepSeek-V3's bidirectional pipeline schedule (arXiv:2412.19437 §3.2.1, Fig. 5,
// Table 2; github.com/deepseek-ai/DualPipe README), timed in closed form.
//
// - Placement: microbatches enter from both ends of the pipeline; rank r holds stage r of the
//   forward direction and stage PP-1-r of the reverse one, so every rank keeps two stages'
//   parameters (Table 2: "2x" parameters; `dualpipe_stages` adds the mirror stage to each rank)
//   and PP + 1 microbatches of activations.
// - Overlap: in the steady state each rank runs a forward chunk of one microbatch together with a
//   backward chunk of another (F&B); the all-to-all dispatch/combine and the pipeline sends of
//   one hide behind the other's compute, so a pair takes max(F + B compute, F + B communication).
// - SM partitioning (§3.2.2): the communication kernels hold `ep_comm_sms` of the GPU's SMs (20 of
//   132 on H800) for the whole overlapped phase, so tensor-core work runs on the rest: its time
//   grows by SMs / (SMs - ep_comm_sms). Memory-bound kernels keep the HBM bandwidth (not slowed).
// - Bubble (Table 2): (PP/2 - 1)(F&B + B - 3W), W the weight-gradient part of a backward chunk.
//   Iteration pipeline time = M x F&B + bubble, M microbatches per replica (M even, >= PP).
// The rank with the heaviest pair of stages (embedding + logits + MTP on rank 0) sets the pace.
#pragma once

#include "sim/hardware/specs.hpp"
#include "sim/step/memory.hpp"
#include "sim/step/pipeline_schedule.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/workload/specs.hpp"

namespace fleetsim::step {

struct DualPipeResult {
  ScheduleTimes times;         // for compose_iteration (per-rank ends, per-chunk first / last ops)
  int critical_rank = 0;
  double bubble = 0;           // (PP/2 - 1)(F&B + B - 3W) on the critical rank
  double compute = 0;          // M (F + B) compute of the critical rank, SM partitioning excluded
  double sm_partition = 0;     // what the SMs held by the communication kernels add to it
  double comm_total = 0;       // all-to-all + pipeline sends of the critical rank
  double comm_exposed = 0;     // of which not hidden behind the paired chunk's compute
  double ep_total = 0, ep_exposed = 0;  // the all-to-all part of the two above
  InFlight in_flight;          // PP + 1 microbatches of each rank's two stages
};

// Adds the mirror stage's parameters to every rank (rank r holds stages r and PP-1-r) and
// updates the data-parallel volumes; the layout must have VPP 1 and an even PP.
void dualpipe_stages(StageCosts& sc, const WorkloadSpec& w);

// Times the schedule from the per-chunk costs (`chunk_costs` before dualpipe_stages changed the
// parameter counts; costs are per microbatch). `p2p` is one activation send between stages.
// Throws InfeasibleError when the microbatches are odd or fewer than PP.
[[nodiscard]] DualPipeResult dualpipe_schedule(const StageCosts& sc, const WorkloadSpec& w,
                                               const GpuSpec& gpu, double p2p);

// For the layout search (sim/search): memory per rank under DualPipe (two stages, PP + 1
// microbatches in flight) and a lower bound on the pipeline time (M x the heaviest rank's mean
// F + B compute: the pairs only hide communication, never compute).
[[nodiscard]] std::vector<StageMemory> dualpipe_memory(const WorkloadSpec& w, const StageCosts& sc);
[[nodiscard]] double dualpipe_lower_bound(const StageCosts& sc);

}  // namespace fleetsim::step
