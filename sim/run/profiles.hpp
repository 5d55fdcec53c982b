// Built-in copies of the failure presets shipped in models/failures/*.yaml, for the validation
// cases and the benchmark (which must not depend on the YAML loader). A unit test checks that
// each YAML file says the same thing (tests/unit/run_profiles.cpp).
#pragma once

#include <string>
#include <vector>

#include "sim/run/specs.hpp"

namespace fleetsim::run {

// "llama3-h100", "meta-rsc1", "meta-rsc2". Throws ConfigError for another name.
[[nodiscard]] FailureProfile builtin_profile(const std::string& name);
[[nodiscard]] std::vector<std::string> builtin_profile_names();

}  // namespace fleetsim::run
