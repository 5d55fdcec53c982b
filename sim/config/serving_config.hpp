// The `serving:` section of a scenario (issue 39): its schema, the ServingSpec built from it, and
// the request checks the pool's inference groups share.
#pragma once

#include <memory>
#include <string>

#include "sim/config/params.hpp"
#include "sim/config/schema.hpp"
#include "sim/scenario.hpp"

namespace fleetsim::config {

std::shared_ptr<const Schema> serving_schema();
std::shared_ptr<const Schema> serving_slo_schema();     // {ttft_p99, tpot_p99}
std::shared_ptr<const Schema> serving_layout_schema();  // TP, PP, EP, precision, kv_cache_precision (pool.inference[].layout)
ServingPrecision parse_serving_precision(const std::string& word);
// A workload preset as the served model (its seq_length is the context window); `key` names it in errors.
ModelSpec load_serving_model(const std::string& name, const std::string& file, const std::string& key);
// The replica of a pool.inference row with a model (its layout, request shape and slo); keys
// under `prefix` ("pool.inference[0]") in errors.
ServingSpec serving_spec_for_group(const ParamSet& row, const std::string& file, const std::string& prefix);

// Builds s.serving from the resolved section (after the workload, whose model is the default);
// `present`: the scenario wrote `serving:`. Throws ConfigError naming the key.
void build_serving(const ParamSet& p, bool present, Scenario& s, const std::string& file);

// Input length within the model's context, a layout that divides the model; keys under `prefix`.
void check_serving_request(const ServingSpec& o, const std::string& file, const std::string& prefix,
                           const std::string& layout_prefix = "");

}  // namespace fleetsim::config
