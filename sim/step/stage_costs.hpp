// Per-microbatch costs of every pipeline chunk (forward, backward, recomputation), the
// point-to-point activation message, and the bytes of each DP / CP / EP collective per rank.
// The analytical step model times these with the explicit schedule; the SimGrid tier reuses
// the same numbers as actor durations and message sizes.
#pragma once

#include <vector>

#include "sim/scenario.hpp"
#include "sim/step/collectives.hpp"
#include "sim/step/gemm_efficiency.hpp"
#include "sim/step/layer_ops.hpp"
#include "sim/step/layout.hpp"
#include "sim/step/phase_time.hpp"
#include "sim/units/quantity.hpp"

namespace fleetsim::step {

struct ChunkCost {
  int layers = 0;
  bool has_embedding = false, has_logits = false;
  PhaseTime forward, backward, recompute;  // one microbatch; recompute runs before backward
  [[nodiscard]] Seconds forward_time() const { return forward.total(); }
  [[nodiscard]] Seconds backward_time() const { return backward.total() + recompute.total(); }
  double params = 0;         // parameters this chunk holds on one GPU (dense + local experts)
  double expert_params = 0;  // of which expert weights (reduced over the expert-DP group)
  double linear_params = 0;  // of which linear-layer weights (FP8 GEMMs and weight copies under fp8)
  // The largest ZeRO-3 / FSDP unit in the chunk: one transformer layer (an MTP module), the
  // embedding or the output head. FSDP gathers and frees weights one such unit at a time
  // (PyTorch FSDP / FSDP2 wrap each transformer block; Megatron-FSDP likewise), whatever the
  // pipeline chunk holds.
  double largest_unit_params = 0;
};

// Collective volumes per rank and per iteration (for the SimGrid tier and the breakdown).
struct CollectiveVolumes {
  Bytes tp_per_layer_forward;    // per microbatch: 2 all-reduces (or 2 AG + 2 RS with SP)
  Bytes cp_kv_per_layer_forward; // per microbatch: K and V of all CP ranks (ring all-gather)
  Bytes ep_per_layer_forward;    // per microbatch: dispatch + combine all-to-all, sent per rank
  Bytes dp_grad_per_rank;        // gradients reduced per iteration (dense)
  Bytes dp_expert_grad_per_rank; // expert gradients over the expert-data-parallel group
  Bytes dp_param_gather_per_rank;// parameters all-gathered per iteration (distributed optimizer)
  GroupPlacement dp_grad_group, expert_dp_group;
};

struct StageCosts {
  Layout layout;
  std::vector<ChunkCost> chunks;   // p v entries, global chunk order
  Bytes p2p_bytes;                 // activation (or its gradient) sent per microbatch per stage boundary
  Seconds p2p_time;                // its time, incl. the NVLink all-gather of the scatter/gather optimization
  CollectiveVolumes volumes;
  // The op lists the chunks were priced from (layer_ops.hpp): one dense layer and, for a MoE
  // model, one MoE layer (empty otherwise); the embedding (first chunk), the head (last chunk,
  // and each MTP module) and an MTP module's projection.
  LayerOps dense_layer, moe_layer;
  EdgeOps embedding, head, mtp_projection;
  std::vector<double> rank_params; // parameters held per pipeline rank (one GPU)
  std::vector<double> rank_expert_params;
  std::vector<double> rank_linear_params;  // linear-layer weights per pipeline rank (fp8 copies)
};

// Builds everything above. Throws InfeasibleError for layouts that do not divide.
// Everything pipeline rank `rank` computes in one iteration: forward, backward and recompute of
// each of its chunks, times the microbatches.
[[nodiscard]] PhaseTime rank_busy_time(const StageCosts& sc, int rank);

[[nodiscard]] StageCosts stage_costs(const ClusterSpec& cluster, const WorkloadSpec& workload,
                                     const GpuCompute& gpu, const CollectiveModel& net);

}  // namespace fleetsim::step
