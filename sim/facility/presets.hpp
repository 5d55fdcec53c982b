// Catalog presets of the facility model, loaded through the scenario resolver (sim/config) so
// that they are checked exactly as in a scenario: models/cooling/<name>.yaml and
// models/sites/<name>.yaml. Used by the facility validation cases and tests; scenarios get the
// same structs from config::load_scenario.
#pragma once

#include <string>

#include "sim/facility/specs.hpp"
#include "sim/hardware/specs.hpp"

namespace fleetsim::facility {

// `name` is a preset name or a path to a YAML file. Throws ConfigError.
CoolingSpec load_cooling_preset(const std::string& name);
SiteSpec load_site_preset(const std::string& name);
GpuSpec load_gpu_preset(const std::string& name);
NodeSpec load_node_preset(const std::string& name);
FabricSpec load_fabric_preset(const std::string& name);

}  // namespace fleetsim::facility
