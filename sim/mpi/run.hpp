// `fleetsim run` on MPI ranks: rank r computes the replications i with i % ranks == r (their
// random streams depend only on (seed, i), sim/run/rng.hpp), and rank 0 gathers them into their
// slots, so the merged result is the one-process result bit for bit; rank 0 alone then runs the
// facility model, prints and writes the results file.
#pragma once

#include "sim/run/run_model.hpp"

namespace fleetsim::mpi {

// Collects every rank's share of `result.replications` on rank 0 (a collective: every rank calls
// it once). Returns true on rank 0, which then holds them all; false on the others.
bool gather_replications(RunResult& result);

}  // namespace fleetsim::mpi
