// What Transformer Engine's userbuffers TP-communication overlap costs (issue 35): per overlapped
// GEMM + collective pair, the time the pair takes beyond the GEMM alone, from the overlap method
// NeMo's recipe gives that pair (nemo/collections/llm/recipes/tp_overlap_configs/userbuffers.py;
// TE transformer_engine/common/comm_gemm_overlap/comm_gemm_overlap.cpp):
//
// - ring exchange (`ring_exchange`; every all-gather, and the forward reduce-scatters of the FP8
//   recipes since NeMo PR #13131): the GEMM runs in `chunks` = TP pieces of M / TP rows (TP / 2
//   with `aggregate`), each chunk's operand moved peer to peer by the copy engine while the
//   previous chunk computes: g + (chunks - 1) max(g, c / (chunks - 1)). 1 SM, the GEMM keeps the
//   others (set_sm_margin: 131 of 132).
// - pipelined reduce-scatter (`pipeline`; the forward reduce-scatters of the BF16 recipes): the
//   GEMM in `splits` (4) row chunks on the SMs the reduce-scatter kernel leaves (set_sm_margin:
//   132 - num_sm; TE passes the count as CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET), each chunk's
//   reduce-scatter on num_sm SMs behind the next chunk: g + (splits - 1) max(g, c/splits) + c/splits.
// - bulk (`bulk`; the backward's input re-gather and dX reduce-scatter of the column-parallel
//   layers): the collective runs beside an independent full GEMM, no SM margin, so the GEMM loses
//   num_sm SMs while it runs: max(0, c - G) + min(c, G) num_sm / SMs.
//
// Chunk GEMMs are slower per FLOP than the whole GEMM: their efficiency is read off the GPU's
// measured GEMM-vs-M curve (gemm_m_curve; H100: XLA's sm_90 matmul table), not off the
// roofline's ramp. And the pipelined methods leave `exposed_share` of the communication exposed
// beyond that (synchronization between chunks, the collective slowed by the GEMM's memory
// traffic): fitted so that these formulas reproduce Flux's measurement of TE userbuffers (arXiv:
// 2406.06858 §5.1: 20% average overlap efficiency over m = 1,024-8,192, H800, TP 8),
// tests/unit/tp_overlap_test.cpp. Under FP8 the all-gathers move FP8 operands (TE quantizes the
// norm output and dY before gathering) and a pipelined reduce-scatter with `fp8_buf` an FP8 output.
#pragma once

#include <vector>

#include "sim/hardware/specs.hpp"
#include "sim/units/quantity.hpp"

namespace fleetsim::step {

// Throughput of a GEMM of shape (m, n, k) on the GPU's measured curve relative to the largest
// measured M at the same K, interpolated in log M and log K (M scaled by n / n_measured: the wave
// fill depends on the output tiles M N). Above the largest M: 1. Below the smallest: the smallest
// M's time (a constant-time floor). 1 when the GPU has no curve.
[[nodiscard]] double gemm_m_curve_relative(const std::vector<GemmMPoint>& curve, double m, double n, double k);

// Time of the same GEMM run as `chunks` row chunks of m / chunks, over the whole GEMM's time.
[[nodiscard]] double chunk_slowdown(const std::vector<GemmMPoint>& curve, double m, double n, double k, double chunks);

// One pair: the GEMM alone takes `gemm` (its shape m x n x k, chunked along m), the collective
// alone `comm`. Returns the pair's time beyond the GEMM (>= 0; may exceed `comm`).
struct TpPair {
  Seconds gemm, comm;
  double m = 0, n = 0, k = 0;
};
[[nodiscard]] Seconds ring_exchange_extra(const TpPair& p, const std::vector<GemmMPoint>& curve, int tp, bool aggregate,
                                          int sms, int comm_sms, double exposed_share);
[[nodiscard]] Seconds pipeline_extra(const TpPair& p, const std::vector<GemmMPoint>& curve, int splits, int sms,
                                     int comm_sms, double exposed_share);
[[nodiscard]] Seconds bulk_extra(const TpPair& p, int sms, int comm_sms);

}  // namespace fleetsim::step
