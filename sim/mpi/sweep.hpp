// A sweep spread over MPI ranks with dynamic load balancing (points differ in cost by orders of
// magnitude, so a static split would leave ranks idle): rank 0 is the dispatcher and also runs
// points; every rank keeps `jobs` points in flight and asks rank 0 for the next one each time one
// finishes. A point is run by the rank that got it, through the same runner as a local sweep, so
// it writes its results file atomically itself and reads its headline figures back; they travel
// to rank 0 with the "next, please" message, and rank 0 alone rewrites DIR/index.csv
// (sim/sweep/runner.hpp), so the directory is the same as a one-process sweep's while rank 0
// opens no file per point of another rank (its per-point cost is what caps the sweep's rate).
//
// Ranks poll for messages with short sleeps rather than blocking in MPI: a blocking Open MPI
// receive spins a core, which would steal it from the point processes when ranks share cores.
#pragma once

#include <string>
#include <vector>

#include "sim/sweep/grid.hpp"
#include "sim/sweep/runner.hpp"

namespace fleetsim::mpi {

// Rank 0's executor for run_sweep: `jobs` local threads plus every other rank's requests.
// Prints points done / total, rate and ETA on stderr when it is a terminal.
sweep::PointExecutor sweep_dispatcher(int jobs);

// Every other rank: asks rank 0 for points until it says stop; runs each with `runner` into
// DIR/<point file> with `threads` threads, `jobs` at a time. Returns the number it ran.
int sweep_worker(const std::vector<sweep::Point>& points, const sweep::PointRunner& runner, const std::string& dir,
                 int jobs, int threads);

}  // namespace fleetsim::mpi
