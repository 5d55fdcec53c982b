// Hierarchical, topology-aware collective costs (alpha-beta), for the analytical step model and
// for the SimGrid tier's calibration of DP/CP/EP collectives.
//
// Cost models (NCCL's, as in its docs and nccl-tests' "bus bandwidth" definition):
//   ring all-reduce       T = 2 (n-1)/n * S / B + 2 (n-1) * alpha
//   ring reduce-scatter / all-gather  T = (n-1)/n * S / B + (n-1) * alpha
//   double-binary-tree all-reduce     T = 2 S / B + 2 log2(n_nodes) * alpha
//   all-to-all            T = max(intra bytes / B_nvlink, inter bytes / B_fabric) + n * alpha
//   NVLS all-reduce (in-switch reduction, NVLink SHARP on NVSwitch 3): each GPU sends its
//   buffer once and receives the result once, T = S / B + 2 alpha, inside one NVLink domain
// where S is the buffer per rank and B the bottleneck bandwidth of the ring: NVLink inside the
// NVLink domain, and across domains the domain's share of NICs (n_in GPUs of the group per domain
// drive n_in NICs in parallel, NCCL's one-channel-per-NIC rings), each at
// min(NIC, link) rate x fabric efficiency. A group that spans more than one leaf block or pod is
// limited by that tier's oversubscription in proportion to how many of its ring edges cross
// it (see `crossing_factor`).
#pragma once

#include "sim/scenario.hpp"
#include "sim/step/layout.hpp"
#include "sim/units/quantity.hpp"

namespace fleetsim::step {

enum class Collective { AllReduce, ReduceScatter, AllGather, AllToAll };

class CollectiveModel {
 public:
  // `fabric_bandwidth_scale` multiplies the achievable fabric bandwidth (degraded links).
  CollectiveModel(const ClusterSpec& cluster, double fabric_bandwidth_scale = 1.0);

  // `bytes` is the per-rank buffer: the reduced buffer (all-reduce), the unsharded buffer
  // (reduce-scatter input, all-gather output) or everything one rank sends (all-to-all).
  [[nodiscard]] Seconds time(Collective kind, Bytes bytes, GroupPlacement group) const;
  // One point-to-point message between ranks `stride` apart (all pairs sending at once).
  [[nodiscard]] Seconds p2p(Bytes bytes, int stride) const;

  // Achievable bandwidths, per GPU and direction.
  [[nodiscard]] BytesPerSecond nvlink_bandwidth() const { return nvlink_bw_; }
  [[nodiscard]] BytesPerSecond fabric_bandwidth_per_gpu() const { return fabric_bw_; }
  [[nodiscard]] int domain_gpus() const { return domain_; }

 private:
  struct Path {
    int n_in = 1;              // group members inside one NVLink domain
    int n_out = 1;             // NVLink domains the group spans
    double ring_factor = 1.0;  // share of the per-GPU fabric bandwidth a ring edge gets
    double full_factor = 1.0;  // share when every member's traffic crosses (tree, all-to-all)
    Seconds alpha;             // per-step latency on the slowest tier the group uses
  };
  [[nodiscard]] Path path(GroupPlacement g) const;

  int domain_ = 8;
  bool nvls_ = false;
  int gpus_ = 0;
  long long leaf_block_ = 0, pod_block_ = 0;  // GPUs under one leaf (rank space), one pod
  double leaf_oversub_ = 1.0, pod_oversub_ = 1.0;
  BytesPerSecond nvlink_bw_, fabric_bw_;
  Seconds nvlink_alpha_, hop_latency_;
};

}  // namespace fleetsim::step
