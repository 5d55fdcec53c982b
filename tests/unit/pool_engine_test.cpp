// The pool engine: the index structures, GPU-hour accounting, determinism and the direction of
// each policy's effect on a small loaded pool (tests/unit/pool_small.yaml).
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>

#include "sim/config/load.hpp"
#include "sim/core/error.hpp"
#include "sim/pool/pool_model.hpp"
#include "sim/pool/pool_nodes.hpp"
#include "sim/pool/workload.hpp"
#include "tests/test_paths.hpp"

namespace {

fleetsim::pool::PoolResult small_pool(std::vector<std::string> sets, int threads = 0) {
  const auto s = fleetsim::config::load_scenario(fleetsim::testing::source_dir() + "/tests/unit/pool_small.yaml", sets);
  return fleetsim::pool::simulate_pool(s, threads);
}

}  // namespace

TEST_CASE("pool nodes: first-fit, best-fit, gang placement and shared GPUs keep the counts", "[unit][pool]") {
  using namespace fleetsim::pool;
  // 16 nodes of 8 GPUs, 2-node leaves, 8-node pods.
  PoolNodes p(make_topology(128, 8, 8, 16, 64));
  CHECK(p.topology().leaf_nodes == 2);
  CHECK(p.topology().pod_nodes == 8);
  p.take(3, 6);   // node 3 has 2 free
  p.take(5, 4);   // node 5 has 4 free
  CHECK(p.first_fit(2) == 0);
  CHECK(p.best_fit(2) == 3);
  CHECK(p.best_fit(3) == 5);
  CHECK(p.free_whole_gpus() == 128 - 10);
  // A 4-node gang: pod 0 (6 free nodes) is the best-fit pod; inside it the two entirely free leaves
  // (nodes 0-1 and 6-7) hold it, leaving pod 1 whole for a larger job.
  std::vector<int> nodes;
  REQUIRE(p.take_nodes_topology(4, nodes));
  std::sort(nodes.begin(), nodes.end());
  CHECK(nodes == std::vector<int>{0, 1, 6, 7});
  CHECK(p.free_nodes() == 16 - 2 - 4);
  // Shared GPUs: two quarter-GPU jobs share one GPU, which is given back when both leave.
  const long long before = p.free_whole_gpus();
  const int a = p.open_shared(2);
  p.use_shared(a, 2);
  CHECK(p.best_shared(2) == a);
  p.use_shared(a, 2);
  CHECK(p.free_whole_gpus() == before - 1);
  p.release_shared(a, 2);
  p.release_shared(a, 2);
  CHECK(p.free_whole_gpus() == before);
  CHECK(p.free_shared_eighths() == 0);
}

TEST_CASE("pool: every GPU-hour is allocated or lost to one cause, and results do not depend on threads", "[unit][pool]") {
  using namespace fleetsim::pool;
  const auto a = small_pool({}, 1);
  const auto b = small_pool({}, 2);
  REQUIRE(a.replications.size() == 2);
  for (size_t i = 0; i < a.replications.size(); ++i) {
    const auto& r = a.replications[i];
    CHECK(r.allocation_share == b.replications[i].allocation_share);
    const double alloc = std::accumulate(r.allocated_gpu_hours.begin(), r.allocated_gpu_hours.end(), 0.0);
    const auto L = [&](Loss l) { return r.lost_gpu_hours[static_cast<int>(l)]; };
    const double whole = alloc + L(Loss::Idle) + L(Loss::Fragmentation) + L(Loss::InferenceIdle) + L(Loss::Failures) +
                         L(Loss::Spares);
    INFO("replication " << i << ": allocated " << alloc << " + unallocated causes = " << whole << " of " << r.pool_gpu_hours);
    CHECK(whole == Approx(r.pool_gpu_hours).epsilon(1e-9));
    CHECK(r.allocation_share > 0.3);
    CHECK(r.allocation_share <= 1.0);
  }
}

TEST_CASE("pool: backfill beats FIFO, tidal co-location lends idle inference GPUs, preemption serves high priority",
          "[unit][pool]") {
  using fleetsim::pool::PoolResult;
  const auto fifo = small_pool({"pool.scheduler.policy=fifo"});
  const auto backfill = small_pool({});
  const auto tidal = small_pool({"pool.colocation=tidal"});
  const auto prio = small_pool({"pool.scheduler.policy=priority", "pool.scheduler.preemption=true"});
  INFO("allocation fifo " << fifo.allocation_share().mean << ", backfill " << backfill.allocation_share().mean
                          << ", tidal " << tidal.allocation_share().mean);
  CHECK(backfill.allocation_share().mean > fifo.allocation_share().mean);
  CHECK(tidal.allocation_share().mean > backfill.allocation_share().mean + 0.02);
  long long reclaims = 0, preemptions = 0;
  for (const auto& r : tidal.replications) reclaims += r.reclaims;
  for (const auto& r : prio.replications) preemptions += r.preemptions;
  CHECK(reclaims > 0);
  CHECK(preemptions > 0);
  // Without co-location every service holds its peak: the SLO is met whenever no node failed under it.
  for (const auto& r : backfill.replications) CHECK(r.slo_attainment > 0.99);
}

TEST_CASE("pool: a trace job larger than the pool is an error naming the trace row", "[unit][pool][config]") {
  const std::string trace = fleetsim::testing::source_dir() + "/tests/unit/pool_trace_too_large.csv";
  try {
    small_pool({"pool.training.trace=" + trace, "pool.gpus=2048"});
    FAIL("accepted a trace job larger than the pool");
  } catch (const fleetsim::ConfigError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("pool_trace_too_large.csv:3") != std::string::npos);
    CHECK(what.find("pool.training.trace: row 3: a job of 4096 GPUs is larger than the pool's 2048") != std::string::npos);
  }
}
