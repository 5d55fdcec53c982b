// The SimGrid tier's memory budget (DESIGN.md §3): peak memory <= 8 GiB for one iteration at 16,384
// and 131,072 GPUs, on Llama 3 405B (TP 8, PP 16) over Llama 3's Clos (1:7 pods), with nodes
// scattered (the most flows and routes). Its time budget (<= 5 s and <= 30 s) is a speed figure,
// measured by bench/bench_simgrid (scripts/bench simgrid), not by this test: wall time on a shared
// CI machine is not a property of the code. The times are printed for information only.
#include <catch2/catch.hpp>

#include <sys/resource.h>

#include <chrono>
#include <cstdio>

#include "sim/simgrid/simgrid_tier.hpp"
#include "tests/unit/simgrid_fixtures.hpp"

using namespace fleetsim;

namespace {
double simulate_and_print(int gpus) {
  const auto c = sgtest::h100_cluster(gpus, FabricTopology::FatTree, 16, 1.0, 3, 3072, 7.0);
  const auto w = sgtest::llama3_405b(gpus, 2048 * gpus / 16384);
  SimgridOptions o;
  o.placement = SimgridPlacement::Scattered;
  const auto t0 = std::chrono::steady_clock::now();
  const StepResult r = simgrid_evaluate_step(c, w, o);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("  %6d GPUs: iteration %.3f s simulated in %.2f s wall\n", gpus, r.iteration_time.si(), wall);
  return r.iteration_time.si();
}
double peak_gib(int who) {
  rusage ru{};
  getrusage(who, &ru);
  return ru.ru_maxrss / 1048576.0;
}
}  // namespace

TEST_CASE("one SimGrid iteration at 16,384 and at 131,072 GPUs stays under 8 GiB",
          "[validation][simgrid][slow]") {
  CHECK(simulate_and_print(16384) > 0.0);
  CHECK(simulate_and_print(131072) > 0.0);
  CHECK(peak_gib(RUSAGE_SELF) < 8.0);
  CHECK(peak_gib(RUSAGE_CHILDREN) < 8.0);
}
