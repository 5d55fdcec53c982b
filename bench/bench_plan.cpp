// Speed of `fleetsim plan` (issue 26): scenarios/plan-405b-15t.yaml (576 designs: 16 layout searches
// and 576 runs of the run and facility models) must finish in <= 60 s on 2 cores. Prints the wall
// time, the process CPU time (the machine is shared: CPU time is the figure that does not depend
// on the neighbours), designs per second and peak RSS.
//
//   bench_plan [PLAN] [--threads N]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench/peak_memory.hpp"
#include "sim/plan/evaluate.hpp"
#include "sim/plan/plan_load.hpp"
#include "sim/plan/summary.hpp"

using namespace fleetsim;

namespace {
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}
}  // namespace

int main(int argc, char** argv) {
  std::string file = "plan-405b-15t";
  int threads = 2;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) threads = std::atoi(argv[++i]);
    else file = argv[i];
  }
  try {
    const double cpu0 = cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    const plan::PlanSpec p = plan::load_plan(file);
    plan::EvaluateOptions o;
    o.threads = threads;
    const plan::Evaluation ev = plan::evaluate_plan(p, o);
    const plan::Summary s = plan::summarize(p, ev.designs);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = cpu_seconds() - cpu0;
    std::printf("plan %s: %zu designs (%d layout searches, %d runs, %d feasible) in %.2f s wall, %.2f s CPU on %d "
                "threads: %.1f designs/s; target <= 60 s on 2 cores %s\n",
                p.file.c_str(), ev.designs.size(), ev.layout_searches, ev.runs, s.feasible, wall, cpu, threads,
                ev.designs.size() / wall, wall <= 60 ? "ok" : "MISSED");
    std::printf("  peak RSS %.1f MiB\n", bench_util::peak_rss_mib());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_plan: %s\n", e.what());
    return 1;
  }
  return 0;
}
