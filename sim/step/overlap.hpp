// What overlapping data-parallel communication with compute costs, and when it cannot hide.
// Used by compose.cpp (both tiers). Each mechanism has a scenario key that switches it off
// (workload.parallel.*), a source, and its own line in the step breakdown.
//
// 1. Parameter all-gather behind the next iteration's first forward (Megatron-core distributed
//    optimizer, `overlap_param_gather`). Interleaved schedule: all buckets of chunks 0 and 1 are
//    dispatched when the iteration starts, chunk c + 1's when the rank starts chunk c
//    (pipeline_parallel/schedules.py, param_sync_func). One chunk per rank: the forward
//    pre-hook of bucket k waits for its all-gather and dispatches bucket k + 1's
//    (finish_param_sync; "we can't pre-launch all-gathers for all buckets at once" to avoid
//    head-of-line blocking compute kernels, distrib_optimizer.py). A forward that outruns the
//    network stalls (compose.cpp).
// 2. ZeRO-3 / FSDP prefetch depth: only `fsdp_prefetch_ops` chunk gathers may be in flight ahead
//    of the op computing (PyTorch FSDP `limit_all_gathers=True`: the current and the next unit's
//    unsharded weights only; memory.cpp holds one prefetched unit: a layer, the embedding or the
//    head), so each gather hides behind at most that many preceding ops, not behind the whole
//    pipeline. Timed per chunk (compose.cpp): for a chunk of L equal layers the per-layer sum
//    L max(0, g/L - d b/L) equals the chunk's max(0, g - d b).
// 3. Compute slowed by concurrent collectives: an NCCL kernel holds one CTA per channel, each on
//    an SM, for its whole duration, and moves its bytes through HBM several times; overlapped
//    GEMMs run on the remaining SMs and memory-bound kernels share HBM. Sources: DeepSeek-V3
//    (arXiv:2412.19437 §3.2.2) needs 20 of the H800's 132 SMs to saturate IB + NVLink; an
//    ncclAllGather launched 24 CTAs on H100 (NVIDIA developer forum thread 337991, nsys); GEMMs
//    overlapped with collectives measured 18.9% slower on average (max 40%) on A100/H100/MI250
//    (Lee et al., arXiv:2507.03114); memory contention of the collective's reductions: Pati et
//    al., T3 (ASPLOS'24, arXiv:2401.16677).
#pragma once

#include "sim/hardware/specs.hpp"
#include "sim/workload/specs.hpp"

namespace fleetsim::step {

// Slowdown of the compute that runs while a data-parallel collective is in flight, as seconds of
// delay per second of overlap. `math_share` is the share of the rank's compute time in
// tensor-core kernels; `network_rate` the bytes per second the collective moves over the network
// per rank. Zero when `overlap_sm_contention` and `overlap_hbm_contention` are off.
struct OverlapContention {
  double sm_share = 0;   // SMs the collective occupies / SMs
  double hbm_share = 0;  // per byte/s of network traffic: HBM bandwidth share it takes
  [[nodiscard]] double delay_per_second(double math_share, double network_rate) const;
};
[[nodiscard]] OverlapContention overlap_contention(const GpuSpec& gpu, const ParallelSpec& par);

// HBM bytes a ring collective moves per byte it sends over the network: the NIC's DMA read of
// the send buffer and write of the receive buffer, plus the kernel's reads of the local and the
// received chunk and its write of the result (Simple protocol; NCCL reduces in the kernel).
inline constexpr double kHbmBytesPerNetworkByte = 5.0;

}  // namespace fleetsim::step
