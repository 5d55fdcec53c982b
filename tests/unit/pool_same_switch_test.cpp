// Placement same-switch (GPUs over partly used hosts, Crux SIGCOMM'24 Sec 2.2) and the snapshot
// sharing count it feeds (pool.interference_running_shared_*_share): sim/pool/pool_nodes.hpp,
// sim/pool/interference.hpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <utility>
#include <vector>

#include "sim/pool/interference.hpp"
#include "sim/pool/pool_nodes.hpp"

using namespace fleetsim;
using namespace fleetsim::pool;

TEST_CASE("pool nodes: same-switch takes GPUs in the first leaf with room, fullest hosts first, else the lowest",
          "[unit][pool]") {
  // 8 nodes of 8 GPUs in leaves of 2 nodes (16 GPUs).
  PoolNodes p(make_topology(64, 8, 8, 16, 64));
  p.take(0, 6);  // leaf 0: 2 + 8 free
  p.take(2, 8);
  p.take(3, 4);  // leaf 1: 0 + 4 free
  std::vector<std::pair<int, int>> parts;
  // 10 GPUs: leaf 0 holds them; node 1 (8 free) before node 0 (2 free).
  REQUIRE(p.take_gpus_same_leaf(10, parts));
  CHECK(parts == std::vector<std::pair<int, int>>{{1, 8}, {0, 2}});
  // 12 GPUs: leaf 1 has only 4 free; leaf 2 (16 free) is the first that holds them.
  parts.clear();
  REQUIRE(p.take_gpus_same_leaf(12, parts));
  CHECK(parts == std::vector<std::pair<int, int>>{{4, 8}, {5, 4}});
  // 24 GPUs: no leaf has them; the entirely free hosts first (6, 7), the rest on the lowest hosts
  // with free GPUs (3 and 5, 4 each: no one host holds 8).
  parts.clear();
  REQUIRE(p.take_gpus_same_leaf(24, parts));
  CHECK(parts == std::vector<std::pair<int, int>>{{6, 8}, {7, 8}, {3, 4}, {5, 4}});
  CHECK(p.free_whole_gpus() == 0);
  parts.clear();
  CHECK_FALSE(p.take_gpus_same_leaf(1, parts));
  CHECK(parts.empty());
}

TEST_CASE("pool interference: jobs on parts of one host share its link, the snapshot count follows adds and removes",
          "[unit][pool][interference]") {
  FabricShape f;
  f.nodes = 8;
  f.leaf_nodes = 2;
  f.leaf_capacity = 16;
  f.flows_per_node = 8;
  f.gpus_per_node = 8;
  f.nic_rate = 50e9;
  f.host_links = true;
  InterferenceSpec spec;
  spec.enabled = true;
  spec.routing = FabricRouting::Adaptive;
  TrafficProfile ring;
  FabricSharing s(f, spec, 1, 0, 0.0);
  // Two jobs of 8 GPUs, each with 4 on node 0 and 4 on node 1 (one leaf): no uplink, but both
  // send across hosts through hosts 0 and 1.
  s.add(1, {0, 1}, ring, 8, 0.0, {4, 4});
  CHECK(s.sharing_jobs_now() == 0);
  s.add(2, {0, 1}, ring, 8, 1.0, {4, 4});
  CHECK(s.sharing_jobs_now() == 2);
  CHECK(s.sharing_gpus_now() == 16);
  CHECK(s.shared(1));
  // Four NICs' worth each on an 8-NIC host: shared, but not slowed.
  CHECK(s.sigma(1) == 1.0);
  // A whole-node job in another leaf shares nothing.
  s.add(3, {4, 6}, ring, 16, 2.0);
  CHECK(s.sharing_jobs_now() == 2);
  CHECK_FALSE(s.shared(3));
  s.remove(2, 3.0);
  CHECK(s.sharing_jobs_now() == 0);
  CHECK(s.sharing_gpus_now() == 0);
  // Job 3's ring crosses leaves 2 and 3: a job crossing leaf 2 too shares that uplink with it.
  s.add(4, {5, 7}, ring, 16, 4.0);
  CHECK(s.sharing_jobs_now() == 2);
  s.remove(3, 5.0);
  s.remove(4, 5.0);
  s.remove(1, 5.0);
  CHECK(s.sharing_jobs_now() == 0);
}
