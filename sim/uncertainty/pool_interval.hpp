// Intervals and provenance of `fleetsim pool`'s headline numbers (issue 25; sim/uncertainty/README.md,
// "Pool intervals").
//
// Interval: the central `level` range of the pool replications' values (sample_interval, the same
// quantile convention as run's ETTR): the spread of one pool period's outcome under the
// scenario's arrival, size, run-time and failure draws. The pool model's model-form error is not
// estimated from residuals (its published checks are bounds and one mean, too few to fit a
// spread); the provenance grade says how far the scenario sits from them.
//
// Provenance grade (a priori rules, README): the judged pool sources are Helios Earth (allocation
// share; a workload fitted on Venus), FGD on Alibaba openb (fragmentation by placement policy) and
// Lyra-like tidal co-location (bounds). Their pool sizes are read from their inputs, not typed in.
//   extrapolated - more GPUs than the largest judged pool or fewer than the smallest;
//   calibrated   - inside that range and the scenario is one of the judged configurations
//                  (scenarios/pool-helios-earth.yaml, scenarios/pool-lyra-colocation.yaml);
//   transferred  - inside that range with another workload or scheduler than the judged ones.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/pool/pool_model.hpp"
#include "sim/results/hdf5_writer.hpp"
#include "sim/results/json.hpp"
#include "sim/scenario.hpp"
#include "sim/uncertainty/annotate.hpp"

namespace fleetsim::uncertainty {

// (key under pool., dotted: "gpu_hours_lost.failure"; its interval) for every headline the pool
// reports over replications: allocation, fragmentation, SLO attainment, GPU-hours lost by cause,
// the compact-placement share and, with pool.stragglers, the straggler shares.
[[nodiscard]] std::vector<std::pair<std::string, Interval>> pool_intervals(const pool::PoolResult& r, double level);

// The judged pool sources' sizes (GPUs), read from their inputs.
struct JudgedPool {
  std::string source;  // as `fleetsim validate --only pool` names it
  std::string judges;  // what it judges, a few words
  long long gpus = 0;
};
[[nodiscard]] std::vector<JudgedPool> judged_pools();

[[nodiscard]] Provenance pool_provenance(const Scenario& s, const pool::PoolResult& r, double level);

// The `pool` JSON section with `<key>_interval` beside each headline (nested keys in their object)
// and `provenance` at its end.
[[nodiscard]] Json annotate_pool_json(const Json& pool_section, const std::vector<std::pair<std::string, Interval>>& intervals,
                                      const Provenance& p);
// HDF5: interval_lo, interval_hi, interval_level on each headline under /metrics/pool;
// provenance_grade, provenance_why, provenance_sources on /metrics/pool.
void annotate_pool_results(ResultsFile& f, const std::vector<std::pair<std::string, Interval>>& intervals,
                           const Provenance& p);

}  // namespace fleetsim::uncertainty
