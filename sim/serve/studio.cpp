#include "sim/serve/studio.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <sstream>

#include "sim/config/catalog.hpp"
#include "sim/config/load.hpp"
#include "sim/config/yaml_source.hpp"
#include "sim/core/error.hpp"
#include "sim/core/paths.hpp"
#include "sim/pipeline/run_summary.hpp"
#include "sim/plan/evaluate.hpp"
#include "sim/plan/plan_load.hpp"
#include "sim/plan/plan_report.hpp"
#include "sim/plan/summary.hpp"
#include "sim/results/json.hpp"
#include "sim/search/report.hpp"
#include "sim/search/search.hpp"
#include "sim/serve/client_input.hpp"

namespace fleetsim::serve {
namespace {

constexpr double kLevel = 0.8;  // `fleetsim run`'s default --level: the page shows the same intervals
constexpr size_t kMaxSeriesPoints = 4000;  // the power timeline drawn in the page, evenly thinned

// An upload is read as if it lay in scenarios/, so that `extends: NAME` (a checked catalog name)
// finds the shipped file and nothing else.
std::string upload_path() { return config::scenarios_dir() + "/uploaded.yaml"; }

bool is_plan_name(const std::string& n) { return n.rfind("plan-", 0) == 0; }

void check_request(const ScenarioRequest& r) {
  if (r.sets.size() > kMaxSets)
    throw ConfigError("", "set", "at most " + std::to_string(kMaxSets) + " overrides in one request");
  for (const auto& s : r.sets) check_client_set(s);
  if (r.upload) {
    check_client_scenario_text(*r.upload, "uploaded.yaml");
  } else if (!r.scenario.empty()) {
    const auto names = config::list_scenarios();
    if (!is_catalog_name(r.scenario) || std::find(names.begin(), names.end(), r.scenario) == names.end() ||
        is_plan_name(r.scenario)) {
      std::string shown;
      for (const auto& n : names)
        if (!is_plan_name(n)) shown += (shown.empty() ? "" : ", ") + n;
      throw ConfigError("", "scenario", "'" + r.scenario.substr(0, 100) + "' is not a catalog scenario; choose one of " + shown);
    }
  }
}

// A POSIX shell word: bare when it holds only safe characters, else single-quoted.
std::string shell_word(const std::string& w) {
  const bool safe = !w.empty() && std::all_of(w.begin(), w.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("-_.,:=/+%@").find(c) != std::string_view::npos;
  });
  if (safe) return w;
  std::string out = "'";
  for (char c : w) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// {a: {b: v}} from "a.b=v", merged into `into` (a later set replaces an earlier value; a scalar
// preset name under a map of overrides becomes {preset: name, ...}, the preset form the loader takes).
void merge_set(YAML::Node into, const std::string& set) {
  const size_t eq = set.find('=');
  const std::string key = set.substr(0, eq);
  const YAML::Node value = config::parse_yaml_text(set.substr(eq + 1), "--set " + set);
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    const size_t dot = key.find('.', start);
    parts.push_back(key.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  YAML::Node node = into;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node child = node[parts[i]];
    if (!child.IsMap()) {
      YAML::Node m(YAML::NodeType::Map);
      if (child.IsScalar()) m["preset"] = child.Scalar();
      node[parts[i]] = m;
    }
    node.reset(node[parts[i]]);
  }
  node[parts.back()] = YAML::Clone(value);
}

Json series_json(const std::vector<TimeSeries>& list, double dt) {
  Json out = Json::array();
  for (const auto& ts : list) {
    Json j = Json::object();
    j["name"] = ts.name;
    j["unit"] = ts.unit;
    const size_t stride = std::max<size_t>(1, (ts.values.size() + kMaxSeriesPoints - 1) / kMaxSeriesPoints);
    j["dt_s"] = dt * static_cast<double>(stride);
    Json values = Json::array();
    for (size_t i = 0; i < ts.values.size(); i += stride) values.push_back(ts.values[i]);
    j["values"] = values;
    out.push_back(j);
  }
  return out;
}

Json strings(const std::vector<std::string>& v) {
  Json a = Json::array();
  for (const auto& s : v) a.push_back(s);
  return a;
}

}  // namespace

std::string client_message(const std::string& message) {
  std::string out = message;
  const std::string home = home_dir() + "/";
  for (size_t i = out.find(home); i != std::string::npos; i = out.find(home, i)) out.erase(i, home.size());
  const std::string up = "scenarios/uploaded.yaml";
  for (size_t i = out.find(up); i != std::string::npos; i = out.find(up, i + 1)) out.replace(i, up.size(), "uploaded.yaml");
  return out;
}

Studio::Studio(int threads, size_t cache_entries) : threads_(threads), capacity_(std::max<size_t>(1, cache_entries)) {}

PreparedRun Studio::prepare(const ScenarioRequest& r) const {
  std::lock_guard load(load_);
  check_request(r);
  Scenario s = r.upload ? config::load_scenario_text(*r.upload, upload_path(), r.sets) : config::load_scenario(r.scenario, r.sets);
  std::string key = s.file + "\n" + s.resolved_yaml;
  return PreparedRun{r, std::move(s), std::move(key)};
}

std::shared_ptr<const std::string> Studio::cached(const std::string& key) const {
  std::lock_guard lock(cache_mutex_);
  auto it = cache_.find(key);
  if (it == cache_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second.second);
  return it->second.first;
}

void Studio::remember(const std::string& key, std::shared_ptr<const std::string> value) {
  std::lock_guard lock(cache_mutex_);
  if (auto it = cache_.find(key); it != cache_.end()) {
    lru_.erase(it->second.second);
    cache_.erase(it);
  }
  lru_.push_front(key);
  cache_.emplace(key, std::make_pair(std::move(value), lru_.begin()));
  while (cache_.size() > capacity_) {
    cache_.erase(lru_.back());
    lru_.pop_back();
  }
}

std::shared_ptr<const std::string> Studio::run(const PreparedRun& p, const ProgressFn& progress) {
  std::lock_guard lane(lane_);
  if (auto hit = cached(p.key)) return hit;  // computed while this request waited for the lane
  const auto start = std::chrono::steady_clock::now();
  PipelineOptions opt;
  opt.threads = threads_;
  if (progress)
    opt.progress = [&progress](int done, int total) {
      if (!progress(done, total)) throw Cancelled{};
    };
  const RunOutcome outcome = run_with_replications(p.scenario, opt, kLevel);
  const RunUncertainty u = run_uncertainty(outcome.scenario, outcome.result, kLevel);
  Json result = run_summary_json(outcome, u, kLevel);
  result["host"]["wall_time_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  Json env = Json::object();
  env["result"] = result;
  env["cli"] = cli_command(p.request);
  // What the page's derived knobs need (checkpoint in memory: nodes x 25 GB/s).
  env["inputs"]["gpus"] = outcome.scenario.cluster.gpus;
  env["inputs"]["gpus_per_node"] = outcome.scenario.cluster.node.gpus_per_node;
  // The power timeline's series (the run command writes them to its HDF5 file, not to --json).
  if (outcome.result.power) {
    const double dt = outcome.scenario.facility.power.resolution.si();
    env["series"]["power_steady"] = series_json(outcome.result.power->steady, dt);
    env["series"]["power_window"] = series_json(outcome.result.power->window, 1.0);
  }
  auto text = std::make_shared<const std::string>(env.dump(0));
  remember(p.key, text);
  return text;
}

std::shared_ptr<const std::string> Studio::best_layout(const PreparedRun& p) {
  const std::string key = "search:" + p.key;
  std::lock_guard lane(lane_);
  if (auto hit = cached(key)) return hit;
  search::SearchOptions opt;
  opt.top = 1;
  opt.threads = threads_;
  opt.space = search::default_space(p.scenario);
  const search::SearchResult r = search::run_search(p.scenario, opt);
  Json j = search::to_json(r, p.scenario);
  Json env = Json::object();
  if (r.top.empty()) throw InfeasibleError("fleetsim search found no layout that fits: " + r.explanation);
  for (const auto& [k, v] : j["top"].as_array()[0].as_object())
    if (k == "set") env["set"] = v;
  env["cli"] = cli_command(p.request).replace(0, std::string("fleetsim run").size(), "fleetsim search") ;
  auto text = std::make_shared<const std::string>(env.dump(0));
  remember(key, text);
  return text;
}

std::string Studio::plan_key(const PlanRequest& r) const {
  std::string key = "plan:" + r.plan;
  for (const auto& s : r.sets) key += "\n" + s;
  return key;
}

std::shared_ptr<const std::string> Studio::plan(const PlanRequest& r, const ProgressFn& progress) {
  std::unique_lock load(load_);
  if (r.sets.size() > kMaxSets) throw ConfigError("", "set", "at most " + std::to_string(kMaxSets) + " overrides in one request");
  for (const auto& s : r.sets) check_client_set(s);
  const auto names = config::list_scenarios();
  if (!is_catalog_name(r.plan) || !is_plan_name(r.plan) || std::find(names.begin(), names.end(), r.plan) == names.end()) {
    std::string shown;
    for (const auto& n : names)
      if (is_plan_name(n)) shown += (shown.empty() ? "" : ", ") + n;
    throw ConfigError("", "plan", "'" + r.plan.substr(0, 100) + "' is not a catalog plan; choose one of " + shown);
  }
  const plan::PlanSpec spec = plan::load_plan(r.plan, r.sets);
  load.unlock();
  const std::string key = plan_key(r);
  std::lock_guard lane(lane_);
  if (auto hit = cached(key)) return hit;
  plan::EvaluateOptions opt;
  opt.threads = threads_;
  // Throwing from the progress callback stops the evaluation: sim/plan/evaluate.cpp calls it
  // inside its workers' try (parallel_for) or between groups on the calling thread.
  if (progress)
    opt.progress = [&progress](const plan::Progress& p) {
      if (!progress(p.designs_done, p.designs)) throw Cancelled{};
    };
  const plan::Evaluation ev = plan::evaluate_plan(spec, opt);
  plan::require_some_valid_design(spec, ev);  // as fleetsim plan: no design can run is bad input
  const plan::Summary s = plan::summarize(spec, ev.designs);
  Json env = Json::object();
  env["result"] = plan::to_json(spec, ev, s);
  env["cli"] = plan_cli_command(r);
  auto text = std::make_shared<const std::string>(env.dump(0));
  remember(key, text);
  return text;
}

std::string Studio::scenario_yaml(const PreparedRun& p) const {
  std::lock_guard load(load_);
  YAML::Node doc;
  std::string head = "# Reproduces the fleetsim studio's numbers: fleetsim run THIS_FILE --json\n";
  if (p.request.upload) {
    doc = YAML::Clone(config::parse_yaml_text(*p.request.upload, "uploaded.yaml"));
  } else {
    doc = YAML::Node(YAML::NodeType::Map);
    const std::string name = p.request.scenario.empty() ? std::string("llama3-405b-16k") : p.request.scenario;
    doc["extends"] = name + ".yaml";
  }
  for (const auto& set : p.request.sets) merge_set(doc, set);
  YAML::Emitter e;
  e << doc;
  const std::string text = head + e.c_str() + "\n";
  // The file must give the same resolved scenario, or it is not offered.
  const Scenario again = config::load_scenario_text(text, p.request.upload ? upload_path() : config::scenarios_dir() + "/studio.yaml");
  if (again.resolved_yaml != p.scenario.resolved_yaml)
    throw ConfigError("", "set", "these overrides cannot be written as one scenario file; use the CLI command");
  return text;
}

std::string Studio::cli_command(const ScenarioRequest& r) {
  std::string cmd = "fleetsim run " + (r.upload ? std::string("uploaded.yaml") : shell_word(r.scenario.empty() ? "llama3-405b-16k" : r.scenario));
  for (const auto& s : r.sets) cmd += " --set " + shell_word(s);
  return cmd + " --json";
}

std::string Studio::plan_cli_command(const PlanRequest& r) {
  std::string cmd = "fleetsim plan " + shell_word(r.plan);
  for (const auto& s : r.sets) cmd += " --set " + shell_word(s);
  return cmd + " --json";
}

std::string Studio::catalog_json() const {
  std::lock_guard load(load_);
  Json j = Json::object();
  std::vector<std::string> scenarios, plans;
  for (const auto& n : config::list_scenarios()) (is_plan_name(n) ? plans : scenarios).push_back(n);
  j["default_scenario"] = "llama3-405b-16k";
  j["scenarios"] = strings(scenarios);
  j["plans"] = strings(plans);
  // "software": the stacks of issue 37 (models/software/), offered once that folder exists.
  for (const char* kind : {"gpus", "nodes", "fabrics", "cooling", "sites", "failures", "workloads", "software"})
    j["presets"][kind] = strings(config::list_presets(kind));
  return j.dump(0);
}

}  // namespace fleetsim::serve
