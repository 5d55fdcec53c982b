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
ServingPrecision parse_serving_precision(const std::string& word);

// Builds s.serving from the resolved section (after the workload, whose model is the default);
// `present`: the scenario wrote `serving:`. Throws ConfigError naming the key.
void build_serving(const ParamSet& p, bool present, Scenario& s, const std::string& file);

// Input length within the model's context, a layout that divides the model; keys under `prefix`.
void check_serving_request(const ServingSpec& o, const std::string& file, const std::string& prefix);

}  // namespace fleetsim::config
