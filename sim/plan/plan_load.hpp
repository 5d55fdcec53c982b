// Reading a plan file: the schema check (unknown keys, missing units, unknown presets: ConfigError,
// exit 2), the price catalog with its overrides, and the checks a plan needs beyond the schema
// (a non-empty candidate space, a price for every system).
#pragma once

#include <string>
#include <vector>

#include "sim/plan/plan_spec.hpp"

namespace fleetsim::plan {

// `path` is a plan file or a name in scenarios/ (with or without .yaml); `sets` are
// "key.path=value" overrides of the plan, as for scenarios. Throws ConfigError.
[[nodiscard]] PlanSpec load_plan(const std::string& path, const std::vector<std::string>& sets = {});

// The same from text, as if read from `path` (tests).
[[nodiscard]] PlanSpec load_plan_text(const std::string& text, const std::string& path,
                                      const std::vector<std::string>& sets = {});

// A price catalog entry alone (models/prices/<name>.yaml or a path). Throws ConfigError.
[[nodiscard]] Prices load_prices(const std::string& name);

}  // namespace fleetsim::plan
