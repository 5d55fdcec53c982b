// The fabric of the SimGrid tier as arithmetic: where every GPU, NIC, leaf and pod sits, which
// links a transfer crosses, and what each link can carry. No SimGrid types here, so routing and
// flow plans are unit-tested without an engine; platform.cpp turns these ids into SimGrid links.
//
// Model (docs/research/simgrid.md §2.3b): every GPU has an NVLink up and down link into its
// NVSwitch domain; every NIC has an up and down cable to its leaf; a leaf's uplinks to the spines
// are one aggregated bundle per direction of capacity endpoints x port rate / oversubscription;
// in a 3-tier fabric with pods, a pod's uplinks to the core are one bundle per direction of capacity
// (pod endpoints x port rate / oversubscription) / pod_oversubscription. Rail-optimized fabrics
// have one such tree per rail (NIC index in the node); traffic between rails crosses NVLink first
// (PXN). ECMP hash collisions are not modeled: bundles share by max-min.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/scenario.hpp"

namespace fleetsim::sgtier {

enum class LinkKind : std::uint8_t { NvlUp, NvlDown, NicUp, NicDown, LeafUp, LeafDown, PodUp, PodDown };

// A link of the fabric: its kind and the index of what it belongs to (GPU, NIC, leaf or pod).
struct LinkId {
  LinkKind kind = LinkKind::NvlUp;
  std::int64_t index = 0;
  [[nodiscard]] std::uint64_t key() const {
    return (static_cast<std::uint64_t>(kind) << 56) | static_cast<std::uint64_t>(index);
  }
  [[nodiscard]] bool is_bundle() const { return kind >= LinkKind::LeafUp; }
  friend bool operator==(LinkId, LinkId) = default;
};
std::string link_name(LinkId id);

// One degraded or failed cable. rate_fraction 0.5: the cable runs at half rate; 0: it is down and
// traffic reroutes (a NIC cable: through the node's neighbouring NIC over NVLink; a leaf uplink
// cable: ECMP spreads over the remaining uplinks of the bundle).
struct CableFault {
  enum class Where { GpuNic, LeafUplink };
  Where where = Where::GpuNic;
  int physical_gpu = 0;          // the GPU whose NIC cable (or whose leaf's uplink) is hit
  double rate_fraction = 0.5;
};

class Fabric {
 public:
  // physical_gpus: every GPU attached to the fabric (our job plus any job sharing it).
  Fabric(const ClusterSpec& cluster, int physical_gpus, std::optional<CableFault> fault = {});

  [[nodiscard]] int gpus() const { return gpus_; }
  [[nodiscard]] int gpus_per_node() const { return G_; }
  [[nodiscard]] int nics_per_node() const { return nics_; }
  [[nodiscard]] int node_of(int gpu) const { return gpu / G_; }
  [[nodiscard]] int nic_of(int gpu) const { return node_of(gpu) * nics_ + (gpu % G_) * nics_ / G_; }
  [[nodiscard]] int rail_of_nic(int nic) const { return nic % nics_; }
  [[nodiscard]] int leaf_of_nic(int nic) const;
  [[nodiscard]] int pod_of_nic(int nic) const;  // -1 when the fabric has no pod tier
  [[nodiscard]] bool rail_optimized() const { return rail_optimized_; }
  [[nodiscard]] bool has_pods() const { return has_pods_; }

  // Links a transfer from GPU a to GPU b crosses, in order (empty when a == b).
  [[nodiscard]] std::vector<LinkId> route(int a, int b) const;
  // Rate of a link in bytes/s (achievable, after efficiency and faults), and its latency in s.
  [[nodiscard]] double bandwidth(LinkId id) const;
  [[nodiscard]] double latency(LinkId id) const;
  // Latency of a whole transfer: its links' plus the per-message software latency (NCCL's step
  // cost, taken as the node's nvlink_latency, as the analytical tier does).
  [[nodiscard]] double route_latency(const std::vector<LinkId>& route) const;
  // Contention-free transfer time of `bytes` from a to b: latency + bytes / narrowest link.
  [[nodiscard]] double transfer_time(int a, int b, double bytes) const;

 private:
  [[nodiscard]] bool nic_failed(int nic) const;
  [[nodiscard]] int gpu_on_nic(int nic) const { return (nic / nics_) * G_ + (nic % nics_) * G_ / nics_; }
  [[nodiscard]] int working_nic(int gpu) const;
  void append_tree(int nic_a, int nic_b, std::vector<LinkId>& out) const;

  int gpus_ = 0, G_ = 8, nics_ = 8, gpus_per_leaf_ = 32, nodes_per_pod_ = 0;
  int leaves_per_tree_ = 0, pods_per_tree_ = 0;
  bool rail_optimized_ = true, has_spine_ = true, has_pods_ = false;
  double nvl_bw_ = 0, nic_bw_ = 0, leaf_bundle_bw_ = 0, pod_bundle_bw_ = 0;
  double nvl_lat_ = 0, hop_lat_ = 0;
  double leaf_ports_ = 1;
  std::optional<CableFault> fault_;
};

}  // namespace fleetsim::sgtier
