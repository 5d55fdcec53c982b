// What `fleetsim search` prints: the JSON document (stable keys; host timings only under
// "host", so the rest is byte-identical for the same inputs), the console table, and the
// re-ranking of the top layouts on the SimGrid tier (--verify simgrid).
#pragma once

#include <ostream>
#include <string>

#include "sim/results/json.hpp"
#include "sim/search/search.hpp"

namespace fleetsim::search {

// Megatron-LM argument names: tensor_model_parallel_size, ..., micro_batch_size, zero_stage,
// pipeline_layer_split, chunked_loss.
[[nodiscard]] Json layout_json(const Candidate& c);

[[nodiscard]] Json to_json(const SearchResult& r, const Scenario& s);

// `scenario_arg` is how the user named the scenario (for the reproduce line).
void print_table(const SearchResult& r, const Scenario& s, const std::string& scenario_arg, std::ostream& out);

// Re-ranks the top layouts (and times the baseline) on the SimGrid tier. Throws ConfigError when
// this binary does not carry the SimGrid tier.
void verify_on_simgrid(const Scenario& s, SearchResult& r);

}  // namespace fleetsim::search
