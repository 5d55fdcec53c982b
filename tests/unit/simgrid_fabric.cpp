// The SimGrid tier's fabric arithmetic and plans (no engine involved).
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "sim/simgrid/fabric.hpp"
#include "sim/simgrid/plan.hpp"
#include "sim/step/pipeline_schedule.hpp"
#include "tests/unit/simgrid_fixtures.hpp"

using namespace fleetsim;
using namespace fleetsim::sgtier;
using sgtest::h100_cluster;

namespace {
bool crosses(const std::vector<LinkId>& r, LinkKind k) {
  return std::any_of(r.begin(), r.end(), [k](LinkId l) { return l.kind == k; });
}
}  // namespace

TEST_CASE("same-rail traffic under one leaf stays in the leaf, across leaves it climbs to the spine",
          "[unit][simgrid]") {
  const Fabric f(h100_cluster(1024), 1024);  // 128 nodes, 32 nodes per rail leaf
  const auto near = f.route(0, 8);           // node 0 GPU 0 -> node 1 GPU 0
  REQUIRE(near.size() == 2);
  CHECK(near[0].kind == LinkKind::NicUp);
  CHECK(near[1].kind == LinkKind::NicDown);
  const auto far = f.route(0, 8 * 40);  // node 40: another leaf of rail 0
  CHECK(crosses(far, LinkKind::LeafUp));
  CHECK(crosses(far, LinkKind::LeafDown));
  CHECK_FALSE(crosses(far, LinkKind::PodUp));
}

TEST_CASE("traffic between rails crosses NVLink to the destination's rail first (PXN)", "[unit][simgrid]") {
  const Fabric f(h100_cluster(1024), 1024);
  const auto r = f.route(0, 8 + 3);  // node 0 GPU 0 -> node 1 GPU 3
  REQUIRE(r.size() == 4);
  CHECK(r[0].kind == LinkKind::NvlUp);
  CHECK(r[1].kind == LinkKind::NvlDown);
  CHECK(r[1].index == 3);  // GPU 3 of node 0 owns the rail-3 NIC
  CHECK(r[2].kind == LinkKind::NicUp);
  CHECK(f.rail_of_nic(static_cast<int>(r[2].index)) == 3);
  const auto inside = f.route(0, 5);
  REQUIRE(inside.size() == 2);
  CHECK(inside[0].kind == LinkKind::NvlUp);
}

TEST_CASE("a failed NIC cable is rerouted through the neighbouring NIC, a degraded one runs at half rate",
          "[unit][simgrid]") {
  const auto c = h100_cluster(1024);
  const Fabric healthy(c, 1024);
  const Fabric failed(c, 1024, CableFault{CableFault::Where::GpuNic, 0, 0.0});
  const Fabric degraded(c, 1024, CableFault{CableFault::Where::GpuNic, 0, 0.5});
  const auto r = failed.route(0, 8);
  CHECK(crosses(r, LinkKind::NvlUp));  // over NVLink to GPU 1, then rail 1
  for (LinkId l : r)
    if (l.kind == LinkKind::NicUp) CHECK(l.index == 1);
  CHECK(degraded.bandwidth({LinkKind::NicUp, 0}) == Approx(0.5 * healthy.bandwidth({LinkKind::NicUp, 0})));
  CHECK(degraded.bandwidth({LinkKind::NicUp, 1}) == Approx(healthy.bandwidth({LinkKind::NicUp, 1})));
  CHECK(degraded.transfer_time(0, 8, 1e9) > 1.9 * healthy.transfer_time(0, 8, 1e9) - 1e-4);
}

TEST_CASE("leaf bundles carry endpoints x rate / oversubscription, pods divide again by their own ratio",
          "[unit][simgrid]") {
  const auto c = h100_cluster(16384, FabricTopology::FatTree, 16, 2.0, 3, 3072, 7.0);
  const Fabric f(c, 16384);
  const double port = 400e9 / 8 * 0.85;
  CHECK(f.bandwidth({LinkKind::NicUp, 0}) == Approx(port));
  CHECK(f.bandwidth({LinkKind::LeafUp, 0}) == Approx(16 * port / 2));
  CHECK(f.bandwidth({LinkKind::PodUp, 0}) == Approx(3072 * port / 2 / 7));
  const auto cross_pod = f.route(0, 3072);
  CHECK(crosses(cross_pod, LinkKind::PodUp));
  CHECK(f.route_latency(cross_pod) == Approx(2e-6 + 5 * 1e-6));  // software step + 5 switch hops
}

TEST_CASE("groups of a rank-space shape tile the job, each in rank order", "[unit][simgrid]") {
  const auto groups = groups_strided({4, 8}, 64);
  REQUIRE(groups.size() == 16);
  std::set<int> seen;
  for (const auto& g : groups) {
    REQUIRE(g.size() == 4);
    for (size_t i = 1; i < g.size(); ++i) CHECK(g[i] - g[i - 1] == 8);
    seen.insert(g.begin(), g.end());
  }
  CHECK(seen.size() == 64);
}

TEST_CASE("scattered placement is a seeded permutation of whole nodes", "[unit][simgrid]") {
  const auto par = sgtest::layout(8, 1);
  const Layout a(par, 256, 8, PlacementKind::Scattered, 7), b(par, 256, 8, PlacementKind::Scattered, 7),
      contiguous(par, 256, 8);
  std::set<int> gpus;
  int moved = 0;
  for (int r = 0; r < 256; ++r) {
    CHECK(a.gpu_of_rank(r) == b.gpu_of_rank(r));
    CHECK(a.gpu_of_rank(r) % 8 == r % 8);
    gpus.insert(a.gpu_of_rank(r));
    moved += a.gpu_of_rank(r) != contiguous.gpu_of_rank(r);
  }
  CHECK(gpus.size() == 256);
  CHECK(moved > 128);
}

TEST_CASE("a job sharing the fabric interleaves its nodes with ours", "[unit][simgrid]") {
  const Layout l(sgtest::layout(8, 1), 64, 8, PlacementKind::Contiguous, 1, 64);
  CHECK(l.physical_gpus() == 128);
  CHECK(l.gpu_of_rank(0) == 0);
  CHECK(l.gpu_of_rank(8) == 16);        // our second node is the third on the fabric
  CHECK(l.other_gpu_of_rank(0) == 8);   // theirs fill the gaps
}

TEST_CASE("a collective plan samples rings under the flow budget and gives each link the sampled share",
          "[unit][simgrid]") {
  const auto c = h100_cluster(16384, FabricTopology::FatTree, 16);
  const Fabric f(c, 16384);
  const Layout l(sgtest::layout(8, 16), 16384, 8);
  const auto plan = plan_collective(f, l, shape_of(l, Axis::Data), Collective::AllReduce, 1e9, 0, 4096);
  CHECK(plan.group_size == 128);
  CHECK(plan.steps == 2 * 127);
  CHECK(plan.groups_in_class == 128);  // a fat tree: every ring shares the switches
  CHECK(static_cast<int>(plan.flows.size()) <= 4096);
  CHECK(plan.groups_simulated == 32);
  // The 8 rings of one stage (one per TP rank) share every leaf uplink; a sample keeps all 8 of some
  // stages or a subset: each link keeps the sampled share of its flows.
  bool shares_in_range = !plan.scale.multiplier.empty();
  for (auto [key, m] : plan.scale.multiplier) shares_in_range = shares_in_range && m > 0 && m <= 1;
  CHECK(shares_in_range);
  const auto rail = plan_collective(Fabric(h100_cluster(16384), 16384), l, shape_of(l, Axis::Data),
                                    Collective::AllReduce, 1e9, 0, 4096);
  CHECK(rail.groups_in_class == 16);  // rail-optimized: only the rings of one rail share switches
  CHECK(rail.scale.multiplier.empty());  // all 16 rings of the rail fit: nothing to scale
}

TEST_CASE("the 1F1B reference makespan of equal stages is (m + p - 1)(f + b) without transfers",
          "[unit][simgrid]") {
  const int P = 4, M = 8;
  PipelineProgram prog;
  prog.stages = P;
  prog.microbatches = M;
  const step::PipelineSchedule sched(P, 1, M);
  prog.ops.resize(P);
  for (int r = 0; r < P; ++r)
    for (int k = 0; k < sched.ops_per_rank(); ++k) {
      const auto op = sched.op(r, k);
      prog.ops[r].push_back(PipeOp{op.forward, op.microbatch, 0, op.forward ? 1.0 : 2.0});
    }
  prog.stage_gpu = {0, 1, 2, 3};  // one node: NVLink transfers of zero bytes
  const Fabric f(h100_cluster(8), 8);
  for (const auto& ops : prog.ops) CHECK(ops.size() == 2 * M);
  CHECK(pipeline_makespan_reference(f, prog) == Approx((M + P - 1) * 3.0).epsilon(1e-4));
}
