#include "sim/step/collectives.hpp"

#include <algorithm>
#include <cmath>

namespace fleetsim::step {

CollectiveModel::CollectiveModel(const ClusterSpec& c, double fabric_bandwidth_scale) {
  const NodeSpec& node = c.node;
  const FabricSpec& f = c.fabric;
  gpus_ = c.gpus;
  domain_ = std::max(1, node.nvlink_domain_gpus > 0 ? node.nvlink_domain_gpus : node.gpus_per_node);
  nvlink_bw_ = node.nvlink_bandwidth * node.nvlink_efficiency;
  nvls_ = node.nvlink_sharp;
  // Each NIC runs at the slower of its own rate and the switch port it plugs into; the node's
  // NICs are shared by its GPUs (8 NICs for 8 GPUs on DGX/HGX; 4 for 8 in vTrain's cluster).
  BytesPerSecond nic = node.nic_bandwidth;
  if (f.link_bandwidth.si() > 0) nic = min(nic, f.link_bandwidth);
  const double nics_per_gpu =
      static_cast<double>(node.nics_per_node) / std::max(1, node.gpus_per_node);
  fabric_bw_ = nic * (nics_per_gpu * f.efficiency * fabric_bandwidth_scale);
  // Rail-optimized: a leaf (rail) switch serves the same local rank of gpus_per_leaf nodes, so in
  // the rank space one leaf block spans gpus_per_leaf nodes. Fat tree: gpus_per_leaf GPUs.
  const long long per_leaf = std::max(1, f.gpus_per_leaf);
  leaf_block_ = f.topology == FabricTopology::RailOptimized
                    ? per_leaf * std::max(1, node.gpus_per_node)
                    : per_leaf;
  pod_block_ = f.pod_gpus > 0 ? f.pod_gpus : 0;
  leaf_oversub_ = std::max(1.0, f.oversubscription);
  pod_oversub_ = std::max(1.0, f.pod_oversubscription);
  nvlink_alpha_ = node.nvlink_latency;
  hop_latency_ = f.hop_latency;
}

CollectiveModel::Path CollectiveModel::path(GroupPlacement g) const {
  Path p;
  const int n = std::max(1, g.size);
  const int stride = std::max(1, g.stride);
  p.n_in = stride >= domain_ ? 1 : std::max(1, std::min(n, domain_ / stride));
  p.n_out = (n + p.n_in - 1) / p.n_in;
  p.alpha = nvlink_alpha_;
  if (p.n_out <= 1) return p;
  // The group's extent in the rank space, which Megatron maps onto consecutive GPUs.
  const double span = static_cast<double>(stride) * n;
  int tiers_crossed = 0;
  double cumulative = 1.0;
  auto cross = [&](long long block, double oversub) {
    if (block <= 0 || span <= static_cast<double>(block)) return;
    ++tiers_crossed;
    cumulative *= oversub;
    if (cumulative <= 1.0) return;
    // Members of this group inside one block, and domains they occupy: each domain's n_in
    // rails run one ring edge out of the block per group, while every GPU of the block is in
    // some group of this kind at the same time. Uplink capacity G_b * B / o must carry
    // (G_b / k) * n_in edges, so an edge gets B * k / (n_in * o), at most B (ring); a tree or an
    // all-to-all sends every member's data across, B / o.
    const double k = std::max(1.0, std::min<double>(n, static_cast<double>(block) / stride));
    p.ring_factor = std::min(p.ring_factor, std::min(1.0, k / (p.n_in * cumulative)));
    p.full_factor = std::min(p.full_factor, 1.0 / cumulative);
  };
  cross(leaf_block_, leaf_oversub_);
  cross(pod_block_, pod_oversub_);
  // Per-step latency: NCCL's per-step cost (taken as the in-domain step latency) plus the switch
  // hops: one within a leaf, three through a spine, five through the pod/core layer.
  p.alpha = nvlink_alpha_ + hop_latency_ * static_cast<double>(1 + 2 * tiers_crossed);
  return p;
}

Seconds CollectiveModel::time(Collective kind, Bytes bytes, GroupPlacement g) const {
  const int n = std::max(1, g.size);
  if (n <= 1 || bytes.si() <= 0) return Seconds(0);
  const Path p = path(g);
  const double S = bytes.si();
  const double nf = static_cast<double>(n);
  // Ring bottleneck bandwidth: NVLink when the ring stays in one domain; otherwise the slower of
  // NVLink and the n_in NICs the group drives in parallel out of each domain.
  double b_ring = nvlink_bw_.si();
  if (p.n_out > 1)
    b_ring = std::min(b_ring, p.n_in * fabric_bw_.si() * p.ring_factor);
  const double a = p.alpha.si();
  switch (kind) {
    case Collective::AllReduce: {
      const double ring = 2.0 * (nf - 1.0) / nf * S / b_ring + 2.0 * (nf - 1.0) * a;
      if (p.n_out <= 1) {
        if (nvls_) return Seconds(std::min(ring, S / nvlink_bw_.si() + 2.0 * a));
        return Seconds(ring);
      }
      // NCCL double binary tree across domains, reduce/broadcast chains inside the domain.
      const double b_tree =
          std::min(nvlink_bw_.si(), p.n_in * fabric_bw_.si() * p.full_factor);
      const double tree = 2.0 * S / b_tree +
                          2.0 * (std::log2(static_cast<double>(p.n_out)) + (p.n_in - 1)) * a;
      return Seconds(std::min(ring, tree));
    }
    case Collective::ReduceScatter:
    case Collective::AllGather:
      return Seconds((nf - 1.0) / nf * S / b_ring + (nf - 1.0) * a);
    case Collective::AllToAll: {
      // Each rank sends S/n to every member: (n_in - 1) of them over NVLink, the rest through
      // its own share of the NICs, which every member uses at once (B / o when crossing tiers).
      const double intra = S * (p.n_in - 1) / nf / nvlink_bw_.si();
      const double inter =
          p.n_out > 1 ? S * (nf - p.n_in) / nf / (fabric_bw_.si() * p.full_factor) : 0.0;
      return Seconds(std::max(intra, inter) + (nf - 1.0) * a);
    }
  }
  return Seconds(0);
}

Seconds CollectiveModel::p2p(Bytes bytes, int stride) const {
  if (bytes.si() <= 0) return Seconds(0);
  if (stride < domain_) return Seconds(bytes.si() / nvlink_bw_.si() + nvlink_alpha_.si());
  const Path p = path(GroupPlacement{2, stride});
  return Seconds(bytes.si() / (fabric_bw_.si() * p.full_factor) + p.alpha.si());
}

}  // namespace fleetsim::step
