// The `pool:` section of a scenario (issue 14): its schema, the PoolSpec built from it and the
// rules that need the rest of the scenario (job larger than the pool, empty job stream).
#pragma once

#include <memory>
#include <string>

#include "sim/config/params.hpp"
#include "sim/config/schema.hpp"
#include "sim/scenario.hpp"

namespace fleetsim::config {

std::shared_ptr<const Schema> pool_schema();

// Builds s.pool from the resolved section; `present` says whether the scenario wrote `pool:`.
// Throws ConfigError naming the key for a pool that cannot run.
void build_pool(const ParamSet& p, bool present, Scenario& s, const std::string& file);

// `pool.interference:` (sim/config/pool_interference.cpp): its schema, and s.pool.interference
// with the explicit jobs' placements checked against the pool (after the rest of the pool is built).
std::shared_ptr<const Schema> pool_interference_schema();
void build_pool_interference(const ParamSet& p, Scenario& s, const std::string& file, bool present);

}  // namespace fleetsim::config
