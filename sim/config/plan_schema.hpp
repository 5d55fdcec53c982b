// The schema of a plan file (`fleetsim plan PLAN.yaml`, sim/plan/) and of a price catalog entry
// (models/prices/). Declared here, next to the scenario schema, so `fleetsim describe` and the
// resolver treat them like every other kind: units required, unknown keys refused.
#pragma once

#include <memory>

#include "sim/config/schema.hpp"

namespace fleetsim::config {

std::shared_ptr<const Schema> plan_schema();
std::shared_ptr<const Schema> price_schema();

}  // namespace fleetsim::config
