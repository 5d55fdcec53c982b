// Speed of `fleetsim search` (issue 8): at least 10,000 candidate layouts of Llama 3 405B on
// 16,384 H100 (the default scenario), at >= 5,000 candidates per second of wall time on a 2-core
// machine. Prints candidates evaluated, wall time, candidates/s and peak RSS; also how the
// candidates were decided (divisibility rules, memory, timed by the step model, pruned by the
// bound, dominated) and, with --full, the same search without bound pruning (every feasible
// layout timed) for comparison with Calculon's exhaustive search (~176 layouts/s, peers.md §2).
//
//   bench_search [SCENARIO] [--set K=V]... [--threads N] [--full]
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "sim/config/load.hpp"
#include "sim/search/search.hpp"

#include "bench/peak_memory.hpp"

using namespace fleetsim;

namespace {

using bench_util::peak_rss_mib;

void report(const char* label, const search::SearchResult& r) {
  long long rules = 0, memory = 0;
  for (const auto& [k, v] : r.rejected) (k == "out_of_memory" || k == "balanced_split_same_as_default" ? memory : rules) += v;
  const double per_s = static_cast<double>(r.candidates_evaluated) / r.wall_s;
  std::printf("%s\n  candidates evaluated %lld in %.3f s wall on %d threads: %.0f candidates/s (target >= 5000/s, "
              ">= 10000 candidates) %s\n",
              label, r.candidates_evaluated, r.wall_s, r.threads, per_s,
              per_s >= 5000 && r.candidates_evaluated >= 10000 ? "ok" : "MISSED");
  std::printf("  decided by: divisibility rules %lld, memory %lld (rejected) + %lld (feasible); of the feasible "
              "%lld timed by the step model, %lld pruned by the bound, %lld dominated\n",
              rules, memory, r.feasible, r.timed, r.pruned_by_bound, r.dominated);
  if (!r.top.empty())
    std::printf("  pick: %s: MFU %.1f%%, %.3f s per iteration, %.1f GiB per GPU\n",
                search::describe(r.top.front().layout).c_str(), 100 * r.top.front().step.mfu,
                r.top.front().step.iteration_time.si(), units::to_gib(r.top.front().step.memory_per_gpu));
  std::printf("  peak RSS %.1f MiB\n", peak_rss_mib());
}

}  // namespace

int main(int argc, char** argv) {
  std::string scenario;
  std::vector<std::string> sets;
  int threads = 0;
  bool full = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--set") && i + 1 < argc) sets.push_back(argv[++i]);
    else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) threads = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--full")) full = true;
    else scenario = argv[i];
  }
  try {
    const Scenario s = config::load_scenario(scenario, sets);
    search::SearchOptions o;
    o.threads = threads;
    o.progress = false;
    report(("fleetsim search, " + s.description).c_str(), search::run_search(s, o));
    if (full) {
      o.prune = false;
      report("the same without bound pruning (every feasible, non-dominated layout timed)", search::run_search(s, o));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_search: %s\n", e.what());
    return 1;
  }
  return 0;
}
