// Contended collective steps on SimGrid: what oversubscription, placement, cable faults and a
// second job do to a data-parallel ring. Small fabrics; each call forks one SimGrid process.
#include <catch2/catch.hpp>

#include "sim/simgrid/simgrid_tier.hpp"
#include "sim/step/collectives.hpp"
#include "tests/unit/simgrid_fixtures.hpp"

using namespace fleetsim;
using sgtest::h100_cluster;

namespace {
constexpr double kPort = 400e9 / 8 * 0.85;  // achievable bytes/s of one NDR port

// One ring step's fabric part: the simulated step minus its latency, per byte.
double fabric_part(const CollectiveTiming& t, double latency) { return t.step.si() - latency; }

CollectiveTiming dp_allreduce(const ClusterSpec& c, const ParallelSpec& par, double bytes, SimgridOptions o = {}) {
  return simgrid_collective_time(c, par, SimgridCollective::AllReduce, ParallelAxis::Data, Bytes(bytes), o);
}
}  // namespace

TEST_CASE("a lone ring step on SimGrid takes its latency plus bytes over the NIC rate", "[unit][simgrid]") {
  const auto c = h100_cluster(64, FabricTopology::FatTree, 8);  // one node per leaf
  const auto t = dp_allreduce(c, sgtest::layout(8, 1), 8e8);
  CHECK(t.group_size == 8);
  CHECK(t.steps == 14);
  CHECK(t.step.si() == Approx(1e8 / kPort + 2e-6 + 3e-6).epsilon(1e-6));
  CHECK(t.contention_free_step.si() == Approx(t.step.si()).epsilon(1e-9));
}

TEST_CASE("a data-parallel ring on a non-blocking fabric matches the analytical ring all-reduce",
          "[unit][simgrid]") {
  const auto c = h100_cluster(1024, FabricTopology::RailOptimized, 32);
  const auto par = sgtest::layout(8, 4);
  const double S = 2e9;
  const auto t = dp_allreduce(c, par, S);
  const step::CollectiveModel net(c);
  // Ring term of the analytical all-reduce over DP = 32 ranks, 8 apart (one per node).
  const double n = 32;
  const double ring = 2 * (n - 1) / n * S / net.fabric_bandwidth_per_gpu().si();
  CHECK(t.time.si() == Approx(ring).epsilon(0.01));
}

TEST_CASE("a 2:1 and a 4:1 leaf make a ring that crosses leaves 2x and 4x slower in its fabric part",
          "[unit][simgrid]") {
  // One node per leaf: every ring edge leaves its leaf, and the 8 rings of a node (one per TP rank)
  // share its leaf's uplinks: 8 flows on 8 / oversubscription ports.
  const auto par = sgtest::layout(8, 1);
  const double S = 1.6e9, lat = 2e-6 + 3e-6;
  const double base = fabric_part(dp_allreduce(h100_cluster(128, FabricTopology::FatTree, 8, 1.0), par, S), lat);
  const double two = fabric_part(dp_allreduce(h100_cluster(128, FabricTopology::FatTree, 8, 2.0), par, S), lat);
  const double four = fabric_part(dp_allreduce(h100_cluster(128, FabricTopology::FatTree, 8, 4.0), par, S), lat);
  CHECK(two / base == Approx(2.0).epsilon(0.01));
  CHECK(four / base == Approx(4.0).epsilon(0.01));
}

TEST_CASE("Llama 3's 1:7 between pods slows a ring 7x where every edge crosses pods, not where few do",
          "[unit][simgrid]") {
  // Pods of 64 GPUs (8 nodes), non-blocking inside, 1:7 above: a pod uplink is 64 / 7 = 9.1 ports.
  const double S = 1.6e9;
  auto pods = [&](double ratio) { return h100_cluster(512, FabricTopology::FatTree, 16, 1.0, 3, 64, ratio); };
  // DP = 64 over consecutive nodes (Megatron order): 1 edge in 8 crosses pods, 8 rings (one per TP
  // rank) -> 8 flows per pod uplink: they fit in 9.1 ports.
  const auto par = sgtest::layout(8, 1);
  CHECK(dp_allreduce(pods(7.0), par, S).step.si() == Approx(dp_allreduce(pods(1.0), par, S).step.si()).epsilon(1e-3));
  // PP = 8 inside the pod and DP outermost (Llama 3 order tp-cp-pp-dp): DP neighbours are a pod apart,
  // so all 64 GPUs of a pod send out at once: 64 flows on 9.1 ports, 7x slower.
  const auto across = sgtest::layout(8, 8, 1, "tp-cp-pp-dp");
  const auto flat = dp_allreduce(pods(1.0), across, S);
  const auto seven = dp_allreduce(pods(7.0), across, S);
  CHECK(seven.step.si() / flat.step.si() == Approx(7.0).epsilon(0.02));
}

TEST_CASE("scattered nodes cost a ring nothing on a non-blocking fabric and much on an oversubscribed one",
          "[unit][simgrid]") {
  // Rail-optimized, 4 nodes per leaf, 2 rings per rail (PP = 2): contiguous rings cross a leaf
  // boundary on 1 edge in 4.
  const auto par = sgtest::layout(8, 2);
  const double S = 1.6e9;
  SimgridOptions scattered;
  scattered.placement = SimgridPlacement::Scattered;
  scattered.placement_seed = 3;
  auto fabric = [](double o) { return h100_cluster(512, FabricTopology::RailOptimized, 4, o); };
  const double c1 = dp_allreduce(fabric(1.0), par, S).step.si();
  const double s1 = dp_allreduce(fabric(1.0), par, S, scattered).step.si();
  CHECK(s1 == Approx(c1).epsilon(1e-3));
  const double c4 = dp_allreduce(fabric(4.0), par, S).step.si();
  const double s4 = dp_allreduce(fabric(4.0), par, S, scattered).step.si();
  CHECK(c4 == Approx(c1).epsilon(1e-3));  // 2 flows per leaf boundary fit one 4:1 uplink port
  CHECK(s4 > 1.5 * c4);
}

TEST_CASE("one NIC cable at half rate halves the ring through it, a failed one shares a neighbour's NIC",
          "[unit][simgrid]") {
  const auto c = h100_cluster(128, FabricTopology::RailOptimized, 32);
  const auto par = sgtest::layout(8, 1);
  const double S = 1.6e9, lat = 2e-6 + 1e-6;
  const double healthy = fabric_part(dp_allreduce(c, par, S), lat);
  SimgridOptions degraded;
  degraded.cable_fault = SimgridCableFault{SimgridCableFault::Where::GpuNic, 8, 0.5};
  CHECK(fabric_part(dp_allreduce(c, par, S, degraded), lat) / healthy == Approx(2.0).epsilon(0.01));
  SimgridOptions failed;
  failed.cable_fault = SimgridCableFault{SimgridCableFault::Where::GpuNic, 8, 0.0};
  // Rank 8's ring now shares node 1's rail-1 NIC with rank 9's ring: both at half rate.
  const auto f = dp_allreduce(c, par, S, failed);
  CHECK(f.step.si() / dp_allreduce(c, par, S).step.si() == Approx(2.0).epsilon(0.02));
}

TEST_CASE("a second job interleaved on an oversubscribed fabric slows our ring, on a non-blocking one it does not",
          "[unit][simgrid]") {
  const auto par = sgtest::layout(8, 1);
  const double S = 1.6e9;
  SimgridOptions shared;
  shared.sharing_job_gpus = 64;
  auto fabric = [](double o) { return h100_cluster(64, FabricTopology::FatTree, 16, o); };
  const double alone1 = dp_allreduce(fabric(1.0), par, S).step.si();
  CHECK(dp_allreduce(fabric(1.0), par, S, shared).step.si() == Approx(alone1).epsilon(1e-3));
  const double alone2 = dp_allreduce(fabric(2.0), par, S).step.si();
  const double shared2 = dp_allreduce(fabric(2.0), par, S, shared).step.si();
  CHECK(shared2 > 1.5 * alone2);
}

TEST_CASE("a group given by its rank-space shape is timed like the same group given by its axis", "[unit][simgrid]") {
  const auto c = h100_cluster(128, FabricTopology::FatTree, 8, 2.0);
  const auto by_axis = dp_allreduce(c, sgtest::layout(8, 1), 1e9);
  const auto by_shape = simgrid_collective_time(c, SimgridCollective::AllReduce, 16, 8, Bytes(1e9));
  CHECK(by_shape.time.si() == Approx(by_axis.time.si()));
  CHECK(by_shape.groups_in_class == 8);
}

TEST_CASE("any number of SimGrid evaluations run in one process with identical results", "[unit][simgrid]") {
  const auto c = h100_cluster(64, FabricTopology::FatTree, 8, 2.0);
  const auto par = sgtest::layout(8, 1);
  const double first = dp_allreduce(c, par, 1e9).time.si();
  for (int i = 0; i < 5; ++i) CHECK(dp_allreduce(c, par, 1e9).time.si() == first);
}

TEST_CASE("SimGrid --cfg settings pass through and bad ones are reported as errors", "[unit][simgrid]") {
  const auto c = h100_cluster(64, FabricTopology::FatTree, 8);
  SimgridOptions o;
  o.cfg = {"network/TCP-gamma:4194304"};  // its default
  CHECK(dp_allreduce(c, sgtest::layout(8, 1), 1e9, o).time.si() ==
        Approx(dp_allreduce(c, sgtest::layout(8, 1), 1e9).time.si()));
  o.cfg = {"no/such-key:1"};
  CHECK_THROWS(dp_allreduce(c, sgtest::layout(8, 1), 1e9, o));
}
