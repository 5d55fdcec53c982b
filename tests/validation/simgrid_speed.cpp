// The SimGrid tier's budget (DESIGN.md §3): one iteration in <= 5 s at 16,384 GPUs and <= 30 s at
// 131,072, peak memory <= 8 GiB, on Llama 3 405B (TP 8, PP 16) over Llama 3's Clos (1:7 pods),
// with nodes scattered (the most flows and routes). bench/bench_simgrid prints the same figures.
#include <catch2/catch.hpp>

#include <sys/resource.h>

#include <chrono>
#include <cstdio>

#include "sim/simgrid/simgrid_tier.hpp"
#include "tests/unit/simgrid_fixtures.hpp"

using namespace fleetsim;

namespace {
double seconds_for(int gpus) {
  const auto c = sgtest::h100_cluster(gpus, FabricTopology::FatTree, 16, 1.0, 3, 3072, 7.0);
  const auto w = sgtest::llama3_405b(gpus, 2048 * gpus / 16384);
  SimgridOptions o;
  o.placement = SimgridPlacement::Scattered;
  const auto t0 = std::chrono::steady_clock::now();
  const StepResult r = simgrid_evaluate_step(c, w, o);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("  %6d GPUs: iteration %.3f s simulated in %.2f s wall\n", gpus, r.iteration_time.si(), wall);
  return wall;
}
double peak_gib(int who) {
  rusage ru{};
  getrusage(who, &ru);
  return ru.ru_maxrss / 1048576.0;
}
}  // namespace

TEST_CASE("one SimGrid iteration takes under 5 s at 16,384 GPUs and 30 s at 131,072, in under 8 GiB",
          "[validation][simgrid][slow]") {
  CHECK(seconds_for(16384) < 5.0);
  CHECK(seconds_for(131072) < 30.0);
  CHECK(peak_gib(RUSAGE_SELF) < 8.0);
  CHECK(peak_gib(RUSAGE_CHILDREN) < 8.0);
}
