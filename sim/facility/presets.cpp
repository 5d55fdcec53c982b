#include "sim/facility/presets.hpp"

#include <stdexcept>

#include "sim/config/params.hpp"
#include "sim/config/resolve.hpp"
#include "sim/config/scenario_builder.hpp"
#include "sim/config/schema.hpp"
#include "sim/config/yaml_source.hpp"

namespace fleetsim::facility {
namespace {

// Resolves {x: name} against a one-field schema whose field is a preset of `kind`.
config::ParamSet resolve_preset(const std::string& kind, const std::string& name,
                                std::shared_ptr<const config::Schema> kind_schema) {
  if (!kind_schema) throw std::logic_error("no schema for preset kind '" + kind + "'");
  config::Field field = config::preset("x", kind, "facility preset");
  field.section = std::move(kind_schema);
  config::Schema wrapper;
  wrapper.name = "facility preset";
  wrapper.fields = {field};
  YAML::Node node(YAML::NodeType::Map);
  node["x"] = name;
  config::Resolver resolver;
  return resolver.resolve(node, wrapper, kind, "<" + kind + " preset " + name + ">").sub("x");
}

std::shared_ptr<const config::Schema> site_schema() {
  const config::Field* facility = config::scenario_schema()->find("facility");
  const config::Field* site = facility && facility->section ? facility->section->find("site") : nullptr;
  return site ? site->section : nullptr;
}

bool has(const config::ParamSet& p, const std::string& key) { return p.values.count(key) > 0; }

}  // namespace

CoolingSpec load_cooling_preset(const std::string& name) {
  return config::build_cooling(resolve_preset("cooling", name, config::kind_schema("cooling")));
}

SiteSpec load_site_preset(const std::string& name) {
  const config::ParamSet p = resolve_preset("sites", name, site_schema());
  SiteSpec s;
  s.name = p.preset_name;
  s.mean_temperature = p.celsius("mean_temperature");
  s.seasonal_amplitude = p.get<Kelvin>("seasonal_amplitude");
  s.diurnal_amplitude = p.get<Kelvin>("diurnal_amplitude");
  if (has(p, "warmest_day_of_year")) s.warmest_day_of_year = p.integer("warmest_day_of_year");
  if (has(p, "start_day_of_year")) s.start_day_of_year = p.integer("start_day_of_year");
  s.hourly_csv = p.text("hourly_csv");
  s.energy_price = p.get<DollarsPerJoule>("energy_price");
  s.carbon_intensity = p.get<KilogramsPerJoule>("carbon_intensity");
  return s;
}

GpuSpec load_gpu_preset(const std::string& name) {
  return config::build_gpu(resolve_preset("gpus", name, config::kind_schema("gpus")));
}

NodeSpec load_node_preset(const std::string& name) {
  return config::build_node(resolve_preset("nodes", name, config::kind_schema("nodes")));
}

FabricSpec load_fabric_preset(const std::string& name) {
  return config::build_fabric(resolve_preset("fabrics", name, config::kind_schema("fabrics")));
}

}  // namespace fleetsim::facility
