// Recovery after an interruption: phase durations and the spare pool (research note §2.5-2.7).
//
// One interruption walks RUNNING -> DETECTING -> DIAGNOSING -> RESCHEDULING (spare swap, requeue,
// or waiting for a repaired node) -> RESTART (process launch + communicator init, checkpoint load)
// -> RUNNING; the work since the last durable checkpoint is lost and redone ("catch-up" is that
// redone work, counted as productive when redone and as lost_work the first time).
// Failed nodes go to repair (lognormal, Schroeder & Gibson DSN'06) and come back as spares.
#pragma once

#include <limits>

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "sim/core/checked.hpp"
#include "sim/run/rng.hpp"
#include "sim/run/specs.hpp"
#include "sim/units/quantity.hpp"

namespace fleetsim::run {

using Time = std::int64_t;  // microseconds from the run start
inline constexpr double kTicksPerSecond = 1e6;
// Checked: a time beyond int64 microseconds (292,000 years) once wrapped negative and became an
// index. Scenario times are limited to 100 years at load (sim/config/limits.hpp).
inline Time ticks(Seconds s) { return checked_round<Time>(s.si() * kTicksPerSecond, "a run-model time in microseconds"); }
inline double seconds_of(Time t) { return static_cast<double>(t) / kTicksPerSecond; }

// Launch + communicator init at `gpus`: init_base (gpus / reference)^exponent. MegaScale reports
// init falling from O(n^2) to O(n)-like after optimisation (~5 s at 2k, <30 s at >10k GPUs; [U]).
[[nodiscard]] Seconds init_time(const RecoverySpec& r, int gpus);

// The pool of spare nodes and the nodes in repair.
class SparePool {
 public:
  SparePool(const RecoverySpec& r, const FailureProfile& f, Rng& repair_rng);
  // `nodes` failed at `now`: they go to repair. Returns when `nodes` replacements are available,
  // counted from `ready` (when the job asks for them): `ready` if spares are free, the first
  // repair returns otherwise. Without a pool (spare_nodes = 0) replacements always come from
  // the shared cluster after reschedule_wait, returned as `ready` (the caller adds that time).
  // When the pool is empty, a node from the shared cluster at `fallback` is taken if that is
  // sooner than the next repair (a small pool must never be worse than none).
  Time acquire(int nodes, Time now, Time ready, Time fallback = std::numeric_limits<Time>::max());
  [[nodiscard]] bool has_pool() const { return pool_; }
  [[nodiscard]] int free() const { return free_; }

 private:
  void collect(Time now);
  bool pool_;
  int free_;
  int capacity_;
  double repair_median_s_, repair_sigma_;
  Rng& rng_;
  std::priority_queue<Time, std::vector<Time>, std::greater<>> repairs_;
};

}  // namespace fleetsim::run
