#include "sim/config/load.hpp"

#include <filesystem>
#include <set>

#include "sim/config/catalog.hpp"
#include "sim/config/declared_inputs.hpp"
#include "sim/config/resolve.hpp"
#include "sim/config/scenario_tree.hpp"
#include "sim/config/scenario_builder.hpp"
#include "sim/config/software_file.hpp"
#include "sim/config/yaml_source.hpp"
#include "sim/core/error.hpp"

namespace fleetsim::config {
namespace fs = std::filesystem;
namespace {

constexpr int kMaxExtendsDepth = 16;

bool exists(const std::string& path) {
  std::error_code ec;  // a name the system refuses (too long, a bad component) does not exist
  return fs::exists(path, ec);
}

std::string locate_scenario(const std::string& scenario) {
  if (scenario.empty()) return default_scenario_path();
  if (exists(scenario)) return scenario;
  for (const std::string& candidate : {scenarios_dir() + "/" + scenario, scenarios_dir() + "/" + scenario + ".yaml"})
    if (exists(candidate)) return candidate;
  if (const std::string problem = file_problem(scenario); problem != "does not exist")
    throw ConfigError(scenario, "", problem);
  auto names = list_scenarios();
  throw ConfigError(scenario, "", "no such scenario file; " + did_you_mean(scenario, names) +
                                      "shipped scenarios: " + join(names));
}

// Loads a file and everything it extends, each checked on its own (so errors name the right
// file), then merged base-first.
// `text_doc`: the already parsed top document (load_scenario_text), or null to read `path`.
YAML::Node load_chain(Resolver& r, const std::string& path, std::set<std::string>& seen, int depth,
                      const YAML::Node* text_doc = nullptr) {
  std::error_code ec;
  std::string canonical = fs::weakly_canonical(path, ec).string();
  if (ec) canonical = path;
  if (seen.count(canonical)) throw ConfigError(path, "extends", "extends itself (a cycle through " + canonical + ")");
  if (depth > kMaxExtendsDepth) throw ConfigError(path, "extends", "more than 16 levels of extends");
  seen.insert(canonical);
  YAML::Node doc = text_doc ? *text_doc : read_yaml_file(path);
  YAML::Node base;
  if (YAML::Node ext = doc["extends"]; ext.IsDefined()) {
    if (!ext.IsScalar()) throw ConfigError(path, "extends", "expected a file name, got " + kind_of(ext), line_of(ext));
    fs::path target(ext.Scalar());
    if (target.is_relative()) target = fs::path(path).parent_path() / target;
    if (!exists(target.string())) {
      // Allow naming a shipped scenario.
      fs::path shipped = fs::path(scenarios_dir()) / ext.Scalar();
      if (exists(shipped.string())) target = shipped;
      else throw ConfigError(path, "extends", "file '" + target.string() + "' " + file_problem(target.string()), line_of(ext));
    }
    if (const std::string problem = file_problem(target.string()); !problem.empty())
      throw ConfigError(path, "extends", "file '" + target.string() + "' " + problem, line_of(ext));
    base = load_chain(r, target.string(), seen, depth + 1);
    doc.remove("extends");
  }
  r.check(doc, *scenario_schema(), "", path);
  return base.IsDefined() ? r.merge(base, doc, *scenario_schema()) : r.clone(doc);
}

// "a.b.c=value" -> {a: {b: {c: value}}}
YAML::Node override_tree(const std::string& set) {
  const std::string origin = "--set " + set;
  size_t eq = set.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError(origin, "", "expected key.path=value, e.g. --set cluster.gpus=8192");
  std::string key = set.substr(0, eq);
  YAML::Node value = parse_yaml_text(set.substr(eq + 1), origin);
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = key.find('.', start);
    parts.push_back(key.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  for (const auto& p : parts)
    if (p.empty()) throw ConfigError(origin, key, "empty component in the key path");
  YAML::Node tree = value;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    YAML::Node m(YAML::NodeType::Map);
    m[*it] = tree;
    tree = m;
  }
  return tree;
}

ScenarioTree read_tree(const std::string& path, const YAML::Node* doc) {
  Resolver r;
  r.allow_uncertain_values(true);
  std::set<std::string> seen;
  YAML::Node merged = load_chain(r, path, seen, 0, doc);
  return ScenarioTree{path, merged, r.budget_left()};
}

}  // namespace

ScenarioTree read_scenario_tree(const std::string& scenario) { return read_tree(locate_scenario(scenario), nullptr); }

Scenario apply_sets(const ScenarioTree& tree, const std::vector<std::string>& given) {
  const std::string& path = tree.path;
  // `--set software=FILE`: a fleetsim calibrate file's fitted values as overrides (software_file.hpp).
  std::vector<std::string> sets = given;
  std::shared_ptr<const SoftwareCalibration> software = expand_software_sets(sets);
  Resolver r(tree.node_budget);
  r.allow_uncertain_values(true);
  // merge() builds a fresh tree, and resolve() and the emitter only read, so `tree` stays as it
  // was. reset(), not `=`: yaml-cpp's assignment writes through the handle into the shared node.
  YAML::Node merged = tree.merged;
  for (const auto& set : sets) {
    YAML::Node over = override_tree(set);
    r.check(over, *scenario_schema(), "", "--set " + set);
    merged.reset(r.merge(merged, over, *scenario_schema()));
  }
  ParamSet params = r.resolve(merged, *scenario_schema(), "", path);
  YAML::Emitter emit;
  emit << merged;
  try {
    Scenario s = build_scenario(params, path, emit.c_str());
    s.declared_inputs = collect_declared_inputs(std::move(params), path, s.resolved_yaml);
    remember_software(s, std::move(software));
    return s;
  } catch (const ConfigError& e) {
    if (sets.empty()) throw;
    // The offending value may have come from the command line: say so.
    throw ConfigError(e.file(), e.key(), e.message() + " (after --set " + join(sets, ", --set ") + ")", e.line());
  }
}

Scenario load_scenario(const std::string& scenario, const std::vector<std::string>& sets) {
  return apply_sets(read_scenario_tree(scenario), sets);
}

Scenario load_scenario_text(const std::string& text, const std::string& path, const std::vector<std::string>& sets) {
  YAML::Node doc = parse_yaml_text(text, path);
  if (!doc.IsMap())
    throw ConfigError(path, "", "top level is " + kind_of(doc) + "; expected a mapping of keys", line_of(doc));
  return apply_sets(read_tree(path, &doc), sets);
}

}  // namespace fleetsim::config
