// Unit tests of the topology-aware collective costs (sim/step/collectives.hpp).
#include <catch2/catch.hpp>

#include <algorithm>

#include "sim/scenario.hpp"
#include "sim/step/collectives.hpp"

using namespace fleetsim;
using namespace fleetsim::step;

namespace {
// A DGX-like node and a fat tree with pods, as plain test data.
ClusterSpec cluster(double pod_oversubscription = 1.0) {
  ClusterSpec c;
  c.gpus = 16384;
  c.node.gpus_per_node = 8;
  c.node.nvlink_domain_gpus = 8;
  c.node.nvlink_bandwidth = units::gb_per_s(450);
  c.node.nvlink_efficiency = 0.8;
  c.node.nvlink_latency = Seconds(0);
  c.node.nics_per_node = 8;
  c.node.nic_bandwidth = units::gbit_per_s(400);
  c.fabric.topology = FabricTopology::FatTree;
  c.fabric.gpus_per_leaf = 16;
  c.fabric.pod_gpus = 3072;
  c.fabric.pod_oversubscription = pod_oversubscription;
  c.fabric.link_bandwidth = units::gbit_per_s(400);
  c.fabric.hop_latency = Seconds(0);
  c.fabric.efficiency = 1.0;
  return c;
}
}  // namespace

TEST_CASE("a ring all-reduce inside one NVLink domain moves 2(n-1)/n of the buffer at NVLink speed", "[unit]") {
  const CollectiveModel net(cluster());
  const Bytes s(1e9);
  const double bw = 450e9 * 0.8;
  CHECK(net.time(Collective::AllReduce, s, {8, 1}).si() == Approx(2.0 * 7 / 8 * 1e9 / bw));
  CHECK(net.time(Collective::ReduceScatter, s, {8, 1}).si() == Approx(7.0 / 8 * 1e9 / bw));
}

TEST_CASE("a data-parallel ring over one GPU per node runs at the GPU's NIC rate", "[unit]") {
  const CollectiveModel net(cluster());
  const double nic = 400e9 / 8;
  CHECK(net.time(Collective::AllGather, Bytes(1e9), {64, 8}).si() == Approx(63.0 / 64 * 1e9 / nic));
}

TEST_CASE("a group with eight GPUs per node drives all eight NICs of the node", "[unit]") {
  const CollectiveModel net(cluster());
  const double nic = 400e9 / 8;
  const double per_rail = net.time(Collective::ReduceScatter, Bytes(1e9), {64, 8}).si();
  const double all_rails = net.time(Collective::ReduceScatter, Bytes(1e9), {64, 1}).si();
  // Bottleneck: the slower of NVLink and the node's eight NICs.
  CHECK(all_rails == Approx(63.0 / 64 * 1e9 / std::min(450e9 * 0.8, 8 * nic)));
  CHECK(all_rails < per_rail);
}

TEST_CASE("a ring with fewer members per pod than the pod oversubscription is slowed by the 1:7 uplinks", "[unit]") {
  const CollectiveModel full(cluster(1.0)), thin(cluster(7.0));
  // Llama 3 row 3 layout: DP groups 2,048 GPUs apart -> 1.5 members per 3,072-GPU pod.
  const GroupPlacement sparse{8, 2048};
  const double t_full = full.time(Collective::ReduceScatter, Bytes(1e9), sparse).si();
  const double t_thin = thin.time(Collective::ReduceScatter, Bytes(1e9), sparse).si();
  CHECK(t_thin == Approx(t_full * 7.0 / 1.5));
  // DP groups 128 apart have 24 members per pod: their ring edges rarely cross, no slowdown.
  const GroupPlacement dense{128, 128};
  CHECK(thin.time(Collective::ReduceScatter, Bytes(1e9), dense).si() ==
        Approx(full.time(Collective::ReduceScatter, Bytes(1e9), dense).si()));
}

TEST_CASE("an all-to-all across pods gets 1/7 of the bandwidth behind a 1:7 aggregation layer", "[unit]") {
  const CollectiveModel full(cluster(1.0)), thin(cluster(7.0));
  const GroupPlacement ep{64, 64};  // spans 4,096 GPUs: crosses a pod boundary
  CHECK(thin.time(Collective::AllToAll, Bytes(1e9), ep).si() ==
        Approx(7.0 * full.time(Collective::AllToAll, Bytes(1e9), ep).si()));
}

TEST_CASE("degraded links scale the fabric bandwidth, not NVLink", "[unit]") {
  const CollectiveModel ok(cluster()), half(cluster(), 0.5);
  CHECK(half.time(Collective::AllGather, Bytes(1e9), {64, 8}).si() ==
        Approx(2.0 * ok.time(Collective::AllGather, Bytes(1e9), {64, 8}).si()));
  CHECK(half.time(Collective::AllReduce, Bytes(1e9), {8, 1}).si() ==
        Approx(ok.time(Collective::AllReduce, Bytes(1e9), {8, 1}).si()));
}

TEST_CASE("NVLink SHARP halves the in-node all-reduce time of a large buffer", "[unit]") {
  ClusterSpec c = cluster();
  const CollectiveModel ring(c);
  c.node.nvlink_sharp = true;
  const CollectiveModel nvls(c);
  const double t_ring = ring.time(Collective::AllReduce, Bytes(1e9), {8, 1}).si();
  const double t_nvls = nvls.time(Collective::AllReduce, Bytes(1e9), {8, 1}).si();
  CHECK(t_nvls == Approx(t_ring * 8.0 / (2.0 * 7.0)));
  // Across nodes the fabric part is unchanged: NVLS only applies inside one domain.
  CHECK(nvls.time(Collective::AllReduce, Bytes(1e9), {64, 8}).si() ==
        Approx(ring.time(Collective::AllReduce, Bytes(1e9), {64, 8}).si()));
}
