// Inference demand read from a trace (pool.inference[i].demand_trace): a CSV of time and replicas
// or GPUs needed, checked like every data file (sim/core/csv.hpp: file, line and column in each
// error, exit 2).
#pragma once

#include <string>

#include "sim/pool/specs.hpp"

namespace fleetsim::config {

// Fills g.trace_t / trace_value / trace_period_s / trace_scale / trace_in_gpus and sets
// g.peak_replicas to the trace's largest need. A relative path is taken from the working
// directory if it exists there, else from the scenario's folder. Throws ConfigError naming the
// file, line and column (or `key` in `scenario` when the file cannot be found).
void read_demand_trace(InferenceGroup& g, const std::string& time_column, const std::string& value_column, bool in_gpus,
                       double scale, const std::string& scenario, const std::string& key);

}  // namespace fleetsim::config
