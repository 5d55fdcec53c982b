// The catalog: presets under models/<kind>/<name>.yaml and scenarios under scenarios/.
#pragma once

#include <string>
#include <vector>

namespace fleetsim::config {

std::string preset_path(const std::string& kind, const std::string& name);
std::vector<std::string> list_presets(const std::string& kind);   // sorted names
std::vector<std::string> list_scenarios();                        // sorted file names without .yaml
std::string scenarios_dir();

}  // namespace fleetsim::config
