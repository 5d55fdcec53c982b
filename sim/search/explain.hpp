// Why the search's pick differs from the scenario's own layout, in words with numbers: which
// layout fields changed, and which parts of the iteration (pipeline bubble, each kind of
// communication, compute and recomputation, optimizer) and of the memory moved, largest first.
#pragma once

#include <string>

#include "sim/search/search.hpp"

namespace fleetsim::search {

[[nodiscard]] std::string explain(const SearchResult& result);

// "TP 8 -> 4, VPP 1 -> 2, micro-batch 1 -> 2"; empty when equal.
[[nodiscard]] std::string layout_changes(const Candidate& from, const Candidate& to);

}  // namespace fleetsim::search
