// Wall time and peak memory of one iteration on the SimGrid tier (DESIGN.md §2), for the default
// scenario (Llama 3 405B, 16,384 H100) and the same model on 131,072 GPUs (DP 1,024, batch x 8).
// Targets: <= 5 s at 16k, <= 30 s at 131k, <= 8 GiB peak. SimGrid runs in child processes, so the
// peak is the larger of this process's and the largest child's resident set.
//
//   bench_simgrid [SCENARIO] [--set K=V]...
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/config/load.hpp"
#include "sim/simgrid/simgrid_tier.hpp"
#include "sim/step/step_model.hpp"

#include "bench/peak_memory.hpp"

using namespace fleetsim;

namespace {

using bench_util::peak_rss_mib;

void bench(const std::string& label, const Scenario& s, const SimgridOptions& o = {}) {
  const auto t0 = std::chrono::steady_clock::now();
  const StepResult a = evaluate_step(s.cluster, s.workload);
  const auto t1 = std::chrono::steady_clock::now();
  const StepResult r = simgrid_evaluate_step(s.cluster, s.workload, o);
  const auto t2 = std::chrono::steady_clock::now();
  std::printf("%-40s %7d GPUs  simgrid %8.4f s (analytical %8.4f s, %+.2f%%)  wall %6.3f s (analytical %.5f s)  "
              "peak RSS self %6.1f MiB, children %6.1f MiB\n",
              label.c_str(), s.cluster.gpus, r.iteration_time.si(), a.iteration_time.si(),
              100 * (r.iteration_time.si() / a.iteration_time.si() - 1), std::chrono::duration<double>(t2 - t1).count(),
              std::chrono::duration<double>(t1 - t0).count(), peak_rss_mib(RUSAGE_SELF), peak_rss_mib(RUSAGE_CHILDREN));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::string scenario;
  std::vector<std::string> sets;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--set" && i + 1 < argc) sets.emplace_back(argv[++i]);
    else scenario = a;
  }
  try {
    const Scenario s16 = config::load_scenario(scenario, sets);
    bench("default scenario", s16);
    SimgridOptions scattered;
    scattered.placement = SimgridPlacement::Scattered;
    bench("default scenario, scattered nodes", s16, scattered);
    auto big = sets;
    big.push_back("cluster.gpus=131072");
    big.push_back("workload.training.global_batch_size=" + std::to_string(s16.workload.training.global_batch_size * 8));
    const Scenario s131 = config::load_scenario(scenario, big);
    bench("x8 GPUs, x8 batch", s131);
    bench("x8 GPUs, x8 batch, scattered nodes", s131, scattered);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_simgrid: %s\n", e.what());
    return 2;
  }
  return 0;
}
