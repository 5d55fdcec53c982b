#include "sim/simgrid/fabric.hpp"

#include <algorithm>
#include <limits>

#include "sim/core/error.hpp"

namespace fleetsim::sgtier {

namespace {
const char* kind_name(LinkKind k) {
  switch (k) {
    case LinkKind::NvlUp: return "nvl-up";
    case LinkKind::NvlDown: return "nvl-dn";
    case LinkKind::NicUp: return "nic-up";
    case LinkKind::NicDown: return "nic-dn";
    case LinkKind::LeafUp: return "leaf-up";
    case LinkKind::LeafDown: return "leaf-dn";
    case LinkKind::PodUp: return "pod-up";
    case LinkKind::PodDown: return "pod-dn";
  }
  return "?";
}
}  // namespace

std::string link_name(LinkId id) { return std::string(kind_name(id.kind)) + "-" + std::to_string(id.index); }

Fabric::Fabric(const ClusterSpec& cluster, int physical_gpus, std::optional<CableFault> fault)
    : gpus_(physical_gpus), fault_(fault) {
  const NodeSpec& node = cluster.node;
  const FabricSpec& fab = cluster.fabric;
  G_ = std::max(1, node.gpus_per_node);
  nics_ = std::clamp(node.nics_per_node, 1, G_);
  if (G_ % nics_ != 0) throw InfeasibleError("simgrid tier: gpus_per_node must be a multiple of nics_per_node");
  if (gpus_ <= 0 || gpus_ % G_ != 0) throw InfeasibleError("simgrid tier: the GPU count must fill whole nodes");
  rail_optimized_ = fab.topology == FabricTopology::RailOptimized;
  const int endpoints_per_leaf = std::max(1, fab.gpus_per_leaf * nics_ / G_);
  gpus_per_leaf_ = endpoints_per_leaf;  // endpoints (NIC ports) under one leaf switch
  const int nodes = gpus_ / G_;
  const int tree_endpoints = rail_optimized_ ? nodes : nodes * nics_;
  leaves_per_tree_ = (tree_endpoints + endpoints_per_leaf - 1) / endpoints_per_leaf;
  has_spine_ = fab.tiers >= 2;
  nodes_per_pod_ = fab.pod_gpus > 0 ? std::max(1, fab.pod_gpus / G_) : 0;
  has_pods_ = fab.tiers >= 3 && nodes_per_pod_ > 0 && nodes_per_pod_ < nodes;
  pods_per_tree_ = has_pods_ ? (nodes + nodes_per_pod_ - 1) / nodes_per_pod_ : 0;

  const double link_rate = fab.link_bandwidth.si() > 0 ? fab.link_bandwidth.si() : node.nic_bandwidth.si();
  const double eff = fab.efficiency > 0 ? fab.efficiency : 1.0;
  const double nic_rate = node.nic_bandwidth.si() > 0 ? std::min(node.nic_bandwidth.si(), link_rate) : link_rate;
  if (nic_rate <= 0) throw InfeasibleError("simgrid tier: the fabric has no link bandwidth");
  nic_bw_ = nic_rate * eff;
  nvl_bw_ = node.nvlink_bandwidth.si() * (node.nvlink_efficiency > 0 ? node.nvlink_efficiency : 1.0);
  if (nvl_bw_ <= 0) nvl_bw_ = 100 * nic_bw_;
  const double over = std::max(1e-9, fab.oversubscription);
  leaf_ports_ = std::max(1.0, endpoints_per_leaf / over);
  leaf_bundle_bw_ = endpoints_per_leaf * link_rate * eff / over;
  const int pod_endpoints = rail_optimized_ ? nodes_per_pod_ : nodes_per_pod_ * nics_;
  pod_bundle_bw_ = pod_endpoints * link_rate * eff / over / std::max(1e-9, fab.pod_oversubscription);
  nvl_lat_ = node.nvlink_latency.si();
  hop_lat_ = fab.hop_latency.si();
  if (fault_ && (fault_->physical_gpu < 0 || fault_->physical_gpu >= gpus_))
    throw InfeasibleError("simgrid tier: the faulty cable's GPU is outside the fabric");
}

int Fabric::leaf_of_nic(int nic) const {
  if (rail_optimized_) return rail_of_nic(nic) * leaves_per_tree_ + (nic / nics_) / gpus_per_leaf_;
  return nic / gpus_per_leaf_;
}

int Fabric::pod_of_nic(int nic) const {
  if (!has_pods_) return -1;
  const int pod = (nic / nics_) / nodes_per_pod_;
  return rail_optimized_ ? rail_of_nic(nic) * pods_per_tree_ + pod : pod;
}

bool Fabric::nic_failed(int nic) const {
  return fault_ && fault_->where == CableFault::Where::GpuNic && fault_->rate_fraction <= 0 &&
         nic_of(fault_->physical_gpu) == nic;
}

int Fabric::working_nic(int gpu) const {
  const int nic = nic_of(gpu);
  if (!nic_failed(nic)) return nic;
  if (nics_ == 1) throw InfeasibleError("simgrid tier: a node with one NIC cannot reroute around a failed cable");
  return (nic / nics_) * nics_ + (rail_of_nic(nic) + 1) % nics_;  // the neighbouring NIC, over NVLink
}

void Fabric::append_tree(int nic_a, int nic_b, std::vector<LinkId>& out) const {
  out.push_back({LinkKind::NicUp, nic_a});
  const int la = leaf_of_nic(nic_a), lb = leaf_of_nic(nic_b);
  if (la != lb) {
    if (has_spine_) out.push_back({LinkKind::LeafUp, la});
    const int pa = pod_of_nic(nic_a), pb = pod_of_nic(nic_b);
    if (pa != pb) {
      out.push_back({LinkKind::PodUp, pa});
      out.push_back({LinkKind::PodDown, pb});
    }
    if (has_spine_) out.push_back({LinkKind::LeafDown, lb});
  }
  out.push_back({LinkKind::NicDown, nic_b});
}

std::vector<LinkId> Fabric::route(int a, int b) const {
  std::vector<LinkId> r;
  if (a == b) return r;
  const int na = node_of(a), nb = node_of(b);
  auto nvlink = [&](int from, int to) {
    if (from == to) return;
    r.push_back({LinkKind::NvlUp, from});
    r.push_back({LinkKind::NvlDown, to});
  };
  if (na == nb) {
    nvlink(a, b);
    return r;
  }
  int nic_b = working_nic(b);
  int nic_a;
  if (rail_optimized_) {
    // Stay on the destination's rail: PXN moves the data over NVLink to the source node's GPU on that rail.
    int rail = rail_of_nic(nic_b);
    nic_a = na * nics_ + rail;
    if (nic_failed(nic_a)) {  // the source node's cable on that rail is down: use the next rail at both ends
      rail = (rail + 1) % nics_;
      nic_a = na * nics_ + rail;
      nic_b = nb * nics_ + rail;
    }
  } else {
    nic_a = working_nic(a);
  }
  nvlink(a, gpu_on_nic(nic_a));
  append_tree(nic_a, nic_b, r);
  nvlink(gpu_on_nic(nic_b), b);
  return r;
}

double Fabric::bandwidth(LinkId id) const {
  double bw = 0;
  switch (id.kind) {
    case LinkKind::NvlUp:
    case LinkKind::NvlDown: return nvl_bw_;
    case LinkKind::NicUp:
    case LinkKind::NicDown:
      bw = nic_bw_;
      if (fault_ && fault_->where == CableFault::Where::GpuNic && nic_of(fault_->physical_gpu) == id.index)
        bw *= std::max(fault_->rate_fraction, 1e-6);
      return bw;
    case LinkKind::LeafUp:
    case LinkKind::LeafDown:
      bw = leaf_bundle_bw_;
      if (fault_ && fault_->where == CableFault::Where::LeafUplink &&
          leaf_of_nic(nic_of(fault_->physical_gpu)) == id.index)
        bw *= 1.0 - (1.0 - std::clamp(fault_->rate_fraction, 0.0, 1.0)) / leaf_ports_;
      return bw;
    case LinkKind::PodUp:
    case LinkKind::PodDown: return pod_bundle_bw_;
  }
  return bw;
}

double Fabric::latency(LinkId id) const {
  switch (id.kind) {
    case LinkKind::NvlUp:
    case LinkKind::NvlDown: return 0.0;  // the message's software latency is counted once per route
    case LinkKind::NicDown: return 0.0;
    default: return hop_lat_;  // the switch this link enters: leaf, spine, core, spine, leaf
  }
}

double Fabric::route_latency(const std::vector<LinkId>& r) const {
  if (r.empty()) return 0.0;
  double lat = nvl_lat_;
  for (LinkId l : r) lat += latency(l);
  return lat;
}

double Fabric::transfer_time(int a, int b, double bytes) const {
  const auto r = route(a, b);
  const double lat = route_latency(r);
  double bw = std::numeric_limits<double>::infinity();
  for (LinkId l : r) bw = std::min(bw, bandwidth(l));
  return bytes <= 0 || !(bw < std::numeric_limits<double>::infinity()) ? lat : lat + bytes / bw;
}

}  // namespace fleetsim::sgtier
