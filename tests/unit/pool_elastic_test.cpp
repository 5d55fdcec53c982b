// Elastic training jobs that resize while they run (pool.training.elastic_resize): they start on
// as little as elastic_min_fraction of their request when the pool is short, grow into GPUs no
// queued job can use, and shrink to their minimum instead of stopping when preempted. Measured on
// tests/unit/pool_small.yaml with every multi-GPU job elastic and a deep daily cycle (queues by
// day, free GPUs by night), resizing on against off.
#include <catch2/catch.hpp>

#include <cstdio>
#include <numeric>

#include "sim/config/load.hpp"
#include "sim/pool/pool_model.hpp"
#include "tests/test_paths.hpp"

namespace {

fleetsim::pool::PoolResult elastic_pool(bool resize, std::vector<std::string> extra = {}) {
  std::vector<std::string> sets = {"pool.training.elastic_share=1", "pool.training.elastic_min_fraction=0.25",
                                   "pool.training.arrival_rate=70 /h", "pool.training.diurnal_peak_to_trough=10",
                                   std::string("pool.training.elastic_resize=") + (resize ? "true" : "false")};
  sets.insert(sets.end(), extra.begin(), extra.end());
  const auto s = fleetsim::config::load_scenario(fleetsim::testing::source_dir() + "/tests/unit/pool_small.yaml", sets);
  return fleetsim::pool::simulate_pool(s);
}

double mean_slowdown(const fleetsim::pool::PoolResult& r) {
  double sum = 0, n = 0;
  for (const auto& rep : r.replications)
    for (float x : rep.slowdown[0]) sum += x, n += 1;
  return sum / n;
}

}  // namespace

TEST_CASE("pool: elastic jobs grow into free GPUs (faster jobs, GPU-hours still add up) and shrink instead of stopping",
          "[unit][pool]") {
  using namespace fleetsim::pool;
  const auto off = elastic_pool(false), on = elastic_pool(true);
  long long resizes = 0, resizes_off = 0;
  for (const auto& r : on.replications) resizes += r.elastic_resizes;
  for (const auto& r : off.replications) resizes_off += r.elastic_resizes;
  std::printf("elastic resize off -> on: allocation %.4f -> %.4f, training slowdown %.3f -> %.3f, "
              "%lld resizes\n",
              off.allocation_share().mean, on.allocation_share().mean, mean_slowdown(off), mean_slowdown(on), resizes);
  CHECK(resizes_off == 0);
  CHECK(resizes > 0);
  // Growth fills GPUs that stood idle between the daily peaks (the jobs' mean slowdown barely
  // moves: growth waits for an empty queue, and grown jobs hold their GPUs when new jobs arrive).
  CHECK(on.allocation_share().mean > off.allocation_share().mean + 0.01);
  for (const auto& r : on.replications) {
    const double alloc = std::accumulate(r.allocated_gpu_hours.begin(), r.allocated_gpu_hours.end(), 0.0);
    const auto L = [&](Loss l) { return r.lost_gpu_hours[static_cast<int>(l)]; };
    CHECK(alloc + L(Loss::Idle) + L(Loss::Fragmentation) + L(Loss::InferenceIdle) + L(Loss::Failures) + L(Loss::Spares) ==
          Approx(r.pool_gpu_hours).epsilon(1e-9));
  }
  // Tidal co-location takes GPUs back for inference: an elastic job above its minimum shrinks
  // (no work lost) where it would have been stopped.
  const auto tidal_off = elastic_pool(false, {"pool.colocation=tidal"});
  const auto tidal_on = elastic_pool(true, {"pool.colocation=tidal"});
  long long stops_off = 0, stops_on = 0;
  for (const auto& r : tidal_off.replications) stops_off += r.preemptions;
  for (const auto& r : tidal_on.replications) stops_on += r.preemptions;
  std::printf("tidal reclaims that stop a job: %lld without resizing, %lld with\n", stops_off, stops_on);
  CHECK(stops_on < stops_off);
}
