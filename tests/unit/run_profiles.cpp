// The failure presets in models/failures/*.yaml say the same as the built-in copies the
// validation cases use (sim/run/profiles.hpp), and the Llama 3 preset adds up to Table 5.
#include <catch2/catch.hpp>

#include <yaml-cpp/yaml.h>

#include "sim/run/profiles.hpp"
#include "sim/units/parse.hpp"
#include "tests/test_paths.hpp"

using namespace fleetsim;

namespace {

std::string preset_path(const std::string& name) {
  return fleetsim::testing::source_dir() + "/models/failures/" + name + ".yaml";
}

const char* scope_name(ComponentScope s) {
  switch (s) {
    case ComponentScope::Gpu: return "gpu";
    case ComponentScope::Node: return "node";
    case ComponentScope::Nic: return "nic";
    case ComponentScope::LeafSwitch: return "leaf_switch";
    case ComponentScope::SpineSwitch: return "spine_switch";
    case ComponentScope::Link: return "link";
    case ComponentScope::Job: return "job";
    case ComponentScope::Domain: return "domain";
  }
  return "?";
}

}  // namespace

TEST_CASE("each failure preset file matches its built-in copy field by field", "[unit][run]") {
  for (const auto& name : run::builtin_profile_names()) {
    INFO(name);
    const YAML::Node y = YAML::LoadFile(preset_path(name));
    const FailureProfile p = run::builtin_profile(name);
    CHECK(y["description"].as<std::string>().size() > 10);
    CHECK(y["source"].as<std::string>().size() > 10);
    CHECK(y["lemon_fraction"].as<double>() == Approx(p.lemon_fraction));
    CHECK(y["lemon_multiplier"].as<double>() == Approx(p.lemon_multiplier));
    CHECK(units::parse<PerSecond>(y["planned_rate_per_job"].as<std::string>()).si() ==
          Approx(p.planned_rate_per_job.si()).epsilon(1e-3));
    CHECK(y["rate_scale"].as<double>() == Approx(p.rate_scale));
    CHECK(units::parse<Seconds>(y["repair_median"].as<std::string>()).si() == Approx(p.repair_median.si()));
    CHECK(y["repair_sigma"].as<double>() == Approx(p.repair_sigma));
    const YAML::Node comps = y["components"];
    REQUIRE(comps.size() == p.components.size());
    for (size_t i = 0; i < p.components.size(); ++i) {
      const auto& c = p.components[i];
      const YAML::Node n = comps[i];
      INFO(c.name);
      CHECK(n["name"].as<std::string>() == c.name);
      CHECK(n["category"].as<std::string>() == c.category);
      CHECK(n["scope"].as<std::string>() == scope_name(c.scope));
      CHECK(units::parse<PerSecond>(n["rate"].as<std::string>()).si() == Approx(c.rate.si()).epsilon(1e-4));
      CHECK(n["weibull_shape"].as<double>() == Approx(c.weibull_shape));
      CHECK(n["mode"].as<std::string>() == (c.mode == FailureMode::Hang ? "hang" : "crash"));
      CHECK(n["needs_repair"].as<bool>() == c.needs_repair);
      CHECK((n["correlated_node_loss"] ? n["correlated_node_loss"].as<bool>() : false) == c.correlated_node_loss);
    }
  }
}

TEST_CASE("the llama3-h100 preset adds up to Table 5's 419 interruptions on 16,384 GPUs in 54 days", "[unit][run]") {
  const YAML::Node y = YAML::LoadFile(preset_path("llama3-h100"));
  const double exposure_s = 54 * 86400.0;
  const std::map<std::string, double> count = {{"gpu", 16384}, {"node", 2048}, {"nic", 16384},
                                               {"link", 16384}, {"leaf_switch", 1024}};
  double total = 0;
  for (const auto& n : y["components"])
    total += units::parse<PerSecond>(n["rate"].as<std::string>()).si() * count.at(n["scope"].as<std::string>()) * exposure_s;
  CHECK(total == Approx(419).margin(0.1));
}
