// The pool simulator as the commands see it: inputs from a scenario, replications, the summary
// metrics (`pool.*` in JSON, HDF5 and the console) and the HDF5 tables.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/pool/engine.hpp"
#include "sim/results/hdf5_writer.hpp"
#include "sim/results/report.hpp"
#include "sim/scenario.hpp"

namespace fleetsim::pool {

struct PoolResult {
  Topology topology;
  std::vector<PoolReplication> replications;
  bool stragglers = false;              // pool.stragglers.enabled: the straggler shares are reported
  double wall_s = 0.0;                  // host time of the simulation (not in the summary: not deterministic)
  [[nodiscard]] long long events() const;
  [[nodiscard]] Stat allocation_share() const;
};

// Pool size, topology (catalog node and fabric) and the node failure process of the scenario's
// failure profile. Throws ConfigError when the pool cannot run (no pool: section, job larger than
// the pool, ...).
PoolInputs pool_inputs(const Scenario& s);

// Runs pool.replications replications on `threads` threads (0 = all cores); results do not depend
// on the thread count.
PoolResult simulate_pool(const Scenario& s, int threads = 0);

// `pool.*` metrics: allocation_share, fragmentation_share, slo_attainment ({mean, p05, p95} over
// replications), queue_delay_hours and slowdown by job class ({mean, p05, p95} over jobs),
// gpu_hours_lost by cause (over replications), and counters.
void add_pool_metrics(const PoolResult& r, Report& report);

// `annotate` adds to the file before it is committed (the commands' intervals and provenance,
// sim/uncertainty; the model itself knows nothing of them).
void write_pool_results(const std::string& path, const Scenario& s, const PoolResult& r, const std::string& command,
                        const std::function<void(ResultsFile&)>& annotate = {});

}  // namespace fleetsim::pool
