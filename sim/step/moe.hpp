// Mixture-of-experts costs that do not depend on the GEMM model: how routed tokens spread over
// the expert-parallel ranks (load imbalance) and what the all-to-all dispatch and combine move
// over NVLink and the fabric, flat or with DeepSeek-V3's node-limited hierarchical dispatch.
//
// Sources:
// - DeepSeek-V3 technical report (arXiv:2412.19437) §3.2.2: each token is dispatched to at most
//   M = 4 nodes; a token crosses InfiniBand once per destination node, to the GPU with the same
//   in-node index, and is forwarded over NVLink to the GPUs of its experts there; IB and NVLink
//   transfers are fully overlapped; NVLink 160 GB/s vs IB 50 GB/s per GPU. §3.3.2 / §3.3.3:
//   activations are dispatched in FP8 (1x128 tiles with one scale each), combined in BF16.
// - DeepEP (github.com/deepseek-ai/DeepEP, README): the same kernels, "FP8 dispatching and BF16
//   combining" in V3's configuration (7168 hidden, top-8).
// - Megatron-core's all-to-all token dispatcher (moe/token_dispatcher.py): without node
//   limiting every routed copy of a token is sent to its expert's rank separately.
#pragma once

#include "sim/step/collectives.hpp"
#include "sim/step/layout.hpp"
#include "sim/units/quantity.hpp"
#include "sim/workload/specs.hpp"

namespace fleetsim::step {

// Routed-token load of the busiest expert-parallel rank over the mean (>= 1). Experts are
// placed contiguously (rank r holds experts r E/EP ... (r+1) E/EP - 1, Megatron-core's local
// expert indices); `balanced` gives every expert the mean, `zipf` gives expert i (1-based) a
// share proportional to i^-s. Synchronous EP: every rank waits for the busiest one at the
// combine, so its expert GEMMs and the tokens it receives set the layer's pace.
[[nodiscard]] double moe_rank_load(const ModelSpec& m, int ep);

// One all-to-all direction (dispatch or combine) of one MoE layer for one microbatch, per GPU.
struct EpTransfer {
  Bytes fabric_bytes;  // sent over the NICs
  Bytes nvlink_bytes;  // sent over NVLink
  Seconds time;        // on the busiest rank (its received share scaled by the rank load)
};

// `tokens`: tokens one GPU routes per microbatch; `bytes_per_element` of the hidden vector
// (FP8 dispatch with its scales, or 2 for BF16); `rank_load` from moe_rank_load.
[[nodiscard]] EpTransfer ep_transfer(const ModelSpec& m, const Layout& l, const CollectiveModel& net,
                                     double tokens, double bytes_per_element, double rank_load);

// Bytes per hidden element of an FP8 dispatch: one byte plus one fp32 scale per 1x128 tile
// (DeepSeek-V3 §3.3.2, fine-grained quantization).
[[nodiscard]] inline double fp8_dispatch_bytes_per_element() { return 1.0 + 4.0 / 128.0; }

}  // namespace fleetsim::step
