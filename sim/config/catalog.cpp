#include "sim/config/catalog.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "sim/config/load.hpp"
#include "sim/config/yaml_source.hpp"
#include "sim/core/paths.hpp"

namespace fleetsim::config {
namespace fs = std::filesystem;

std::string home_dir() { return fleetsim::home_dir(); }

std::string scenarios_dir() { return home_dir() + "/scenarios"; }

std::string default_scenario_path() { return scenarios_dir() + "/llama3-405b-16k.yaml"; }

std::string preset_path(const std::string& kind, const std::string& name) {
  return home_dir() + "/models/" + kind + "/" + name + ".yaml";
}

namespace {
std::vector<std::string> yaml_names(const std::string& dir) {
  // Kept with the files when keep_files_in_memory is on (yaml_source.hpp); `dir` is always one of
  // the catalog's few folders, so the memo stays small.
  static std::map<std::string, std::vector<std::string>> kept;
  if (files_kept_in_memory()) {
    if (auto it = kept.find(dir); it != kept.end()) return it->second;
  } else {
    kept.clear();
  }
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  if (files_kept_in_memory()) kept[dir] = names;
  return names;
}
}  // namespace

std::vector<std::string> list_presets(const std::string& kind) {
  return yaml_names(home_dir() + "/models/" + kind);
}

std::vector<std::string> list_scenarios() { return yaml_names(scenarios_dir()); }

}  // namespace fleetsim::config
