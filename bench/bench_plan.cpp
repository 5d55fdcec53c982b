// Speed of `fleetsim plan` (issues 26, 40): scenarios/plan-405b-15t.yaml (576 designs) and
// scenarios/plan-30k-designs.yaml (30,720 designs: a planner's grid), each of which must finish in
// <= 60 s on 2 cores. Prints per plan the wall time, the process CPU time (the machine is
// shared: CPU time is the figure that does not depend on the neighbours), designs per second, the
// load average before and after, and the peak RSS.
//
//   bench_plan [PLAN...] [--threads N]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

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
std::string load_average() {
  std::ifstream in("/proc/loadavg");
  double one = 0;
  in >> one;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", one);
  return in ? buf : "?";
}
}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  int threads = 2;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) threads = std::atoi(argv[++i]);
    else files.emplace_back(argv[i]);
  }
  if (files.empty()) files = {"plan-405b-15t", "plan-30k-designs"};
  try {
    for (const auto& file : files) {
      const std::string load_before = load_average();
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
                  "threads: %.1f designs/s; load average %s before, %s after; target <= 60 s on 2 cores %s\n",
                  p.file.c_str(), ev.designs.size(), ev.layout_searches, ev.runs, s.feasible, wall, cpu, threads,
                  ev.designs.size() / wall, load_before.c_str(), load_average().c_str(), wall <= 60 ? "ok" : "MISSED");
      std::fflush(stdout);
    }
    std::printf("  peak RSS %.1f MiB\n", bench_util::peak_rss_mib());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_plan: %s\n", e.what());
    return 1;
  }
  return 0;
}
