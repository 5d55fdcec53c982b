#include "sim/run/recovery.hpp"

#include <algorithm>
#include <cmath>

namespace fleetsim::run {

Seconds init_time(const RecoverySpec& r, int gpus) {
  const double ref = std::max(1, r.init_reference_gpus);
  return r.init_base * std::pow(static_cast<double>(gpus) / ref, r.init_scaling_exponent);
}

SparePool::SparePool(const RecoverySpec& r, const FailureProfile& f, Rng& repair_rng)
    : pool_(r.policy != RestartPolicy::FullRestart && r.spare_nodes > 0),
      free_(r.spare_nodes),
      capacity_(r.spare_nodes),
      repair_median_s_(f.repair_median.si() > 0 ? f.repair_median.si() : 7200.0),
      repair_sigma_(f.repair_sigma),
      rng_(repair_rng) {}

void SparePool::collect(Time now) {
  while (!repairs_.empty() && repairs_.top() <= now) {
    repairs_.pop();
    // A repaired node refills the pool; beyond its size it goes back to the shared cluster
    // (it replaced a node borrowed from there).
    free_ = std::min(free_ + 1, capacity_);
  }
}

Time SparePool::acquire(int nodes, Time now, Time ready, Time fallback) {
  if (!pool_ || nodes <= 0) return ready;
  for (int i = 0; i < nodes; ++i)
    repairs_.push(now + static_cast<Time>(rng_.lognormal(repair_median_s_, repair_sigma_) * kTicksPerSecond));
  collect(ready);
  Time available = ready;
  for (int i = 0; i < nodes; ++i) {
    if (free_ > 0) {
      --free_;
    } else if (fallback < repairs_.top()) {
      // The pool is empty: take a node from the shared cluster, as a job without spares does,
      // when that is sooner than the next repair.
      available = std::max(available, fallback);
    } else {  // wait for the next repaired node (there is one: this failure's own)
      available = std::max(available, repairs_.top());
      repairs_.pop();
    }
  }
  return available;
}

}  // namespace fleetsim::run
