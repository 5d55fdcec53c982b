// Checkpoint interval and cost: Young (1974), Daly (2006), and what one checkpoint costs.
#pragma once

#include "sim/run/specs.hpp"
#include "sim/units/quantity.hpp"

namespace fleetsim::run {

// Young, CACM 17(9) 1974: tau = sqrt(2 delta M), the first-order optimum compute time between
// checkpoints for a dump time delta and a mean time to interrupt M.
[[nodiscard]] Seconds young_interval(Seconds dump, Seconds mtti);

// Daly, FGCS 22(3):303-312, 2006, eq. 37 (higher order):
//   tau = sqrt(2 delta M) [1 + (1/3) sqrt(delta/(2M)) + (1/9) (delta/(2M))] - delta   for delta < 2M
//   tau = M                                                                          for delta >= 2M
// Test cases from Daly's figure captions (R = 10 min, delta = 5 min): M = 24 h, 6 h, 15 min give
// 117, 57 and 9.1 min (research note §2.1, §7 V3).
[[nodiscard]] Seconds daly_interval(Seconds dump, Seconds mtti);

// Daly 2006, eq. 13: expected wall-clock time of a job needing `solve` compute time, with
// exponential interrupts of mean M, restart R, dump delta and compute interval tau:
//   T_w = M e^{R/M} (e^{(tau+delta)/M} - 1) T_s / tau.
[[nodiscard]] Seconds daly_wallclock(Seconds solve, Seconds interval, Seconds dump, Seconds restart,
                                     Seconds mtti);

// What the run engine does for checkpoints.
struct CheckpointPlan {
  Seconds interval;   // compute time between the end of one stall and the start of the next
  Seconds stall;      // blocking part: write_time (+ size / storage bandwidth when synchronous)
  Seconds persist;    // background persist after the stall (async); the checkpoint counts once durable
  Seconds sync_stall; // a checkpoint forced before planned maintenance or an eviction (always durable)
  Seconds load;       // size / load bandwidth on restart
};

// Interval `daly` uses the blocking stall as delta (research note §2.1: with async snapshots the
// waste term is the blocking stall) and is bounded below by the persist time: a new snapshot
// cannot start before the previous one is durable. Throws ConfigError on impossible values.
[[nodiscard]] CheckpointPlan plan_checkpoints(const CheckpointSpec& spec, Bytes size, Seconds mtti);

}  // namespace fleetsim::run
