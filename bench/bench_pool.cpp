// Speed of the pool simulator (issue 14's target): a 100k-GPU pool, 30 days, about one million
// jobs and 50 inference services (scenarios/pool-100k-mixed.yaml) in <= 30 s and <= 4 GiB on one
// core (with fabric interference on, issue 28: <= 60 s). Prints wall and CPU time (the development machine is shared: CPU time is the steadier
// figure), events per second and peak memory, for each placement and for tidal co-location.
//
// Usage: bench_pool [scenario]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/peak_memory.hpp"
#include "sim/config/load.hpp"
#include "sim/core/paths.hpp"
#include "sim/pool/pool_model.hpp"

namespace {

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec) + 1e-6 * static_cast<double>(u.ru_utime.tv_usec);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string scenario = argc > 1 ? argv[1] : fleetsim::home_dir() + "/scenarios/pool-100k-mixed.yaml";
  const std::vector<std::vector<std::string>> cases = {
      {"pool.replications=1"},
      {"pool.replications=1", "pool.placement=fragmentation-aware"},
      {"pool.replications=1", "pool.placement=first-fit"},
      {"pool.replications=1", "pool.colocation=tidal"},
      // Fabric interference on (issue 28): target 60 s on 2 cores.
      {"pool.replications=1", "pool.interference.enabled=true"},
      {"pool.replications=1", "pool.interference.enabled=true", "pool.interference.all_to_all_share=0.25",
       "pool.interference.routing=adaptive"},
  };
  for (const auto& sets : cases) {
    const auto s = fleetsim::config::load_scenario(scenario, sets);
    const double c0 = cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = fleetsim::pool::simulate_pool(s, 1);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = cpu_seconds() - c0;
    const auto& rep = r.replications.front();
    const double target = rep.interference.enabled ? 60.0 : 30.0;
    std::string label = sets.size() > 1 ? "" : "pool-100k-mixed (topology, none)";
    for (size_t k = 1; k < sets.size(); ++k) label += (k > 1 ? " " : "") + sets[k].substr(sets[k].rfind("pool.", 0) == 0 ? 5 : 0);
    std::printf("%-40s %8lld jobs %6.1f d %7lld GPUs | %6.2f s wall %6.2f s CPU  %9.0f events  %8.3g events/s (CPU)  "
                "target %.0f s %s | allocation %.3f | peak RSS %.0f MiB (target 4096)\n",
                label.c_str(), rep.submitted,
                (s.pool.duration_s + s.pool.warmup_s) / 86400.0, static_cast<long long>(r.topology.nodes) * r.topology.gpus_per_node, wall,
                cpu, static_cast<double>(rep.events), static_cast<double>(rep.events) / cpu,
                target, cpu <= target ? "ok" : "SLOW", rep.allocation_share, fleetsim::bench_util::peak_rss_mib());
  }
  return 0;
}
