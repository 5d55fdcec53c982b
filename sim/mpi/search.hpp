// `fleetsim search` on MPI ranks: rank r searches the layout groups g with g % ranks == r (each
// with its own bound pruning), rank 0 gathers every rank's best layouts and counts and keeps the
// best K in the search's total order (time, then the simpler layout). The best K of the union of
// each part's best K are the best K of the whole, so the layouts equal the one-process search's.
// The counts of timed and pruned layouts are the ranks' sums: each rank prunes with its own K-th
// best time, so they differ from one process's.
#pragma once

#include "sim/search/search.hpp"

namespace fleetsim::mpi {

// run_search over every rank of the world (a collective). The full result on rank 0; the other
// ranks return their part's result, which the caller discards.
search::SearchResult run_search_on_ranks(const Scenario& s, search::SearchOptions options);

}  // namespace fleetsim::mpi
