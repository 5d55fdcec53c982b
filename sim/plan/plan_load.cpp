#include "sim/plan/plan_load.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "sim/config/catalog.hpp"
#include "sim/config/load.hpp"
#include "sim/config/plan_schema.hpp"
#include "sim/config/resolve.hpp"
#include "sim/config/yaml_source.hpp"
#include "sim/core/error.hpp"
#include "sim/core/limits.hpp"

namespace fleetsim::plan {
namespace {

using config::ParamSet;

std::string locate(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) return path;
  for (const std::string& c : {config::scenarios_dir() + "/" + path, config::scenarios_dir() + "/" + path + ".yaml"})
    if (std::filesystem::exists(c, ec)) return c;
  if (const std::string problem = config::file_problem(path); problem != "does not exist")
    throw ConfigError(path, "", problem);
  throw ConfigError(path, "", "no such plan file (a path, or a name in scenarios/ such as plan-405b-15t)");
}

// "a.b.c=value" -> {a: {b: {c: value}}} (as load.cpp does for scenarios).
YAML::Node override_tree(const std::string& set) {
  const std::string origin = "--set " + set;
  const size_t eq = set.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError(origin, "", "expected key.path=value, e.g. --set constraints.deadline='60 d'");
  const std::string key = set.substr(0, eq);
  YAML::Node tree = config::parse_yaml_text(set.substr(eq + 1), origin);
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    const size_t dot = key.find('.', start);
    parts.push_back(key.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    if (it->empty()) throw ConfigError(origin, key, "empty component in the key path");
    YAML::Node m(YAML::NodeType::Map);
    m[*it] = tree;
    tree = m;
  }
  return tree;
}

Prices build_prices(const ParamSet& p, const std::string& file) {
  Prices out;
  out.name = p.preset_name;
  const std::string where = p.preset_file.empty() ? file : p.preset_file;
  for (const auto& row : p.at("systems").rows) {
    SystemPrice s;
    s.gpu = row.text("gpu");
    s.node = row.text("node");
    s.server_price = row.get<Dollars>("server_price");
    s.rental_price = row.get<DollarsPerSecond>("rental_price");
    s.source = row.text("server_source");
    if (s.gpu.empty() || s.node.empty())
      throw ConfigError(where, "systems", "every row needs gpu and node preset names");
    out.systems.push_back(s);
  }
  out.nic_price = p.get<Dollars>("nic_price");
  out.switch_port_price = p.get<Dollars>("switch_port_price");
  out.optics_price = p.get<Dollars>("optics_price");
  for (const auto& row : p.at("facility").rows)
    out.facility.emplace_back(row.text("kind"), row.get<DollarsPerWatt>("capex_per_it_power"));
  out.amortization = p.get<Seconds>("amortization");
  out.facility_amortization = p.get<Seconds>("facility_amortization");
  out.cost_of_capital = p.num("cost_of_capital");
  out.operations_share = p.num("operations_share");
  return out;
}

std::string shown(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// Keeps the first of equal entries (same(a, b)) and notes each repeated one: a candidate listed
// twice is one design, evaluated and listed once.
template <class T, class Same, class Show>
void drop_duplicates(std::vector<T>& list, const std::string& key, Same same, Show show, std::vector<std::string>& notes) {
  std::vector<T> kept;
  std::vector<int> count;
  for (const auto& x : list) {
    size_t k = 0;
    while (k < kept.size() && !same(kept[k], x)) ++k;
    if (k == kept.size()) kept.push_back(x), count.push_back(0);
    ++count[k];
  }
  for (size_t k = 0; k < kept.size(); ++k)
    if (count[k] > 1)
      notes.push_back(key + ": " + show(kept[k]) + " is listed " + std::to_string(count[k]) + " times; evaluated and listed once");
  list = std::move(kept);
}

bool same_checkpoint(const CheckpointChoice& a, const CheckpointChoice& b) {
  return a.daly == b.daly && (a.daly || a.interval.si() == b.interval.si()) && a.async == b.async &&
         a.write_time.si() == b.write_time.si() && a.storage_bandwidth.si() == b.storage_bandwidth.si() &&
         a.load_bandwidth.si() == b.load_bandwidth.si() && a.in_memory == b.in_memory &&
         (!a.in_memory || a.in_memory_bandwidth_per_node.si() == b.in_memory_bandwidth_per_node.si());
}

// Repeated candidates are dropped (with a note); two different checkpoint policies under one
// name would make the tables ambiguous, so that is an error.
void drop_duplicate_candidates(PlanSpec& s, const std::string& file) {
  auto& notes = s.duplicates;
  const std::string K = "candidates.";
  drop_duplicates(s.systems, K + "systems", [](const auto& a, const auto& b) { return a.gpu == b.gpu && a.node == b.node; },
                  [](const auto& a) { return "{gpu: " + a.gpu + ", node: " + a.node + "}"; }, notes);
  drop_duplicates(s.gpus, K + "gpus", [](int a, int b) { return a == b; }, [](int a) { return std::to_string(a); }, notes);
  drop_duplicates(s.fabrics, K + "fabrics",
                  [](const auto& a, const auto& b) { return a.fabric == b.fabric && a.oversubscription == b.oversubscription; },
                  [](const auto& a) { return "{fabric: " + a.fabric + ", oversubscription: " + shown(a.oversubscription) + "}"; }, notes);
  drop_duplicates(s.cooling, K + "cooling", [](const auto& a, const auto& b) { return a.cooling == b.cooling && a.site == b.site; },
                  [](const auto& a) { return "{cooling: " + a.cooling + ", site: " + a.site + "}"; }, notes);
  drop_duplicates(s.spares, K + "spares", [](double a, double b) { return a == b; },
                  [](double a) { return "share " + shown(100 * a) + " %"; }, notes);
  for (size_t i = 0; i < s.checkpoints.size(); ++i)
    for (size_t j = i + 1; j < s.checkpoints.size(); ++j)
      if (s.checkpoints[i].name == s.checkpoints[j].name && !same_checkpoint(s.checkpoints[i], s.checkpoints[j]))
        throw ConfigError(file, K + "checkpoint.name", "two different checkpoint policies are named '" + s.checkpoints[i].name +
                                                          "'; give each its own name (the tables list designs by it)");
  drop_duplicates(s.checkpoints, K + "checkpoint", same_checkpoint,
                  [](const auto& a) { return "policy '" + a.name + "'"; }, notes);
  drop_duplicates(s.failures, K + "failures",
                  [](const auto& a, const auto& b) { return a.profile == b.profile && a.rate_scale == b.rate_scale; },
                  [](const auto& a) { return "{profile: " + a.profile + ", rate_scale: " + shown(a.rate_scale) + "}"; }, notes);
  drop_duplicates(s.precisions, K + "precision", [](const auto& a, const auto& b) { return a.precision == b.precision; },
                  [](const auto& a) { return a.precision; }, notes);
}

// The design product is bounded before anything is enumerated (limits.hpp): a plan of millions
// of designs would exhaust memory before its first answer.
void check_design_count(const PlanSpec& s, const std::string& file) {
  auto n = [](size_t k) { return static_cast<double>(std::max<size_t>(1, k)); };
  const std::pair<const char*, size_t> lists[] = {{"systems", s.systems.size()},   {"gpus", s.gpus.size()},
                                                  {"precision", s.precisions.size()}, {"fabrics", s.fabrics.size()},
                                                  {"cooling", s.cooling.size()},   {"spares", s.spares.size()},
                                                  {"checkpoint", s.checkpoints.size()}, {"failures", s.failures.size()}};
  double total = 1;
  std::string product;
  for (const auto& [name, size] : lists) {
    total *= n(size);
    if (size == 0) continue;
    product += (product.empty() ? "" : " x ") + std::to_string(size) + " " + name;
  }
  if (total <= limits::kMaxPlanDesigns) return;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", total);
  throw ConfigError(file, "candidates",
                    std::string(buf) + " designs (" + product + ") exceed the bound of " + shown(limits::kMaxPlanDesigns) +
                        " designs per plan (sim/core/limits.hpp); shorten a candidate list or split the plan");
}

PlanSpec build(const ParamSet& p, const std::string& file) {
  PlanSpec s;
  s.file = file;
  s.description = p.text("description");
  s.base = p.text("base");
  const ParamSet& w = p.sub("workload");
  s.model = w.text("model");
  s.tokens = w.get<Tokens>("tokens");
  if (s.tokens.si() <= 0) throw ConfigError(file, "workload.tokens", "must be a positive token count such as 15.6T");
  const ParamSet& c = p.sub("constraints");
  s.deadline = c.get<Seconds>("deadline");
  s.facility_power_cap = c.get<Watts>("facility_power_cap");
  s.budget = c.get<Dollars>("budget");
  s.gpus_max = c.integer("gpus_max");
  const ParamSet& k = p.sub("candidates");
  for (const auto& row : k.at("systems").rows)
    s.systems.push_back({row.sub("gpu").preset_name, row.sub("node").preset_name});
  for (long long g : k.at("gpus").ints) {
    if (g < 1 || g > (1LL << 30)) throw ConfigError(file, "candidates.gpus", "GPU counts must be positive, got " + std::to_string(g));
    s.gpus.push_back(static_cast<int>(g));
  }
  for (const auto& row : k.at("fabrics").rows)
    s.fabrics.push_back({row.sub("fabric").preset_name, row.num("oversubscription")});
  for (const auto& row : k.at("cooling").rows)
    s.cooling.push_back({row.sub("cooling").preset_name, row.sub("site").preset_name});
  for (const auto& row : k.at("spares").rows) s.spares.push_back(row.num("share"));
  for (const auto& row : k.at("checkpoint").rows) {
    CheckpointChoice ck;
    ck.name = row.text("name");
    ck.daly = row.at("interval").text == "daly";
    ck.interval = row.get<Seconds>("interval");
    ck.async = row.flag("async");
    ck.write_time = row.get<Seconds>("write_time");
    ck.storage_bandwidth = row.get<BytesPerSecond>("storage_bandwidth");
    ck.load_bandwidth = row.get<BytesPerSecond>("load_bandwidth");
    ck.in_memory = row.flag("in_memory");
    ck.in_memory_bandwidth_per_node = row.get<BytesPerSecond>("in_memory_bandwidth_per_node");
    if (!ck.daly && ck.interval.si() <= 0)
      throw ConfigError(file, "candidates.checkpoint.interval", "must be a positive time or 'daly'");
    s.checkpoints.push_back(ck);
  }
  for (const auto& row : k.at("failures").rows) s.failures.push_back({row.sub("profile").preset_name, row.num("rate_scale")});
  for (const auto& row : k.at("precision").rows) {
    s.precisions.push_back({row.text("precision")});
    if (s.precisions.back().precision.empty())
      throw ConfigError(file, "candidates.precision.precision", "every row names a workload.training.precision value, e.g. {precision: fp8}");
  }
  // An empty space is an error, not an empty answer: say which list is empty.
  if (s.systems.empty())
    throw ConfigError(file, "candidates.systems", "the candidate space is empty: list at least one {gpu, node} pair, "
                                                  "e.g. [{gpu: h100-sxm-80gb, node: dgx-h100}]");
  if (s.gpus.empty())
    throw ConfigError(file, "candidates.gpus", "the candidate space is empty: list at least one GPU count, e.g. [8192, 16384]");
  drop_duplicate_candidates(s, file);
  check_design_count(s, file);
  s.prices = build_prices(p.sub("prices"), file);
  // Every system needs a price before any work is done.
  for (const auto& sys : s.systems) (void)s.prices.system(sys.gpu, sys.node);
  const ParamSet& e = p.sub("evaluation");
  s.replications = e.integer("replications");
  s.seed = e.integer("seed");
  s.rental_basis = e.text("cost_basis") == "rental";
  s.search_top = e.integer("search_top");
  s.search_layout = e.text("layout") == "search";
  return s;
}

PlanSpec resolve_plan(YAML::Node doc, const std::string& path, const std::vector<std::string>& sets) {
  if (!doc.IsMap())
    throw ConfigError(path, "", "top level is " + config::kind_of(doc) + "; expected a mapping of keys", config::line_of(doc));
  config::Resolver r;
  const auto& schema = *config::plan_schema();
  r.check(doc, schema, "", path);
  YAML::Node merged = r.clone(doc);
  for (const auto& set : sets) {
    YAML::Node over = override_tree(set);
    r.check(over, schema, "", "--set " + set);
    merged.reset(r.merge(merged, over, schema));
  }
  return build(r.resolve(merged, schema, "", path), path);
}

}  // namespace

const SystemPrice& Prices::system(const std::string& gpu, const std::string& node) const {
  std::string have;
  for (const auto& s : systems) {
    if (s.gpu == gpu && s.node == node) return s;
    have += (have.empty() ? "" : ", ") + s.gpu + "/" + s.node;
  }
  throw ConfigError("models/prices/" + name + ".yaml", "systems",
                    "no price for gpu " + gpu + " on node " + node + "; priced systems: " + have +
                        " (add a row, or override prices.systems in the plan)");
}

DollarsPerWatt Prices::facility_capex(const std::string& kind) const {
  for (const auto& [k, v] : facility)
    if (k == kind) return v;
  throw ConfigError("models/prices/" + name + ".yaml", "facility",
                    "no facility capex for cooling kind " + kind + "; add a row {kind: " + kind + ", capex_per_it_power: ...}");
}

Prices load_prices(const std::string& name) {
  config::Resolver r;
  config::Schema wrapper;
  wrapper.name = "prices wrapper";
  wrapper.fields.push_back(config::preset("prices", "prices", "price catalog"));
  YAML::Node doc(YAML::NodeType::Map);
  doc["prices"] = name;
  return build_prices(r.resolve(doc, wrapper, "", "--prices").sub("prices"), "--prices");
}

PlanSpec load_plan(const std::string& path, const std::vector<std::string>& sets) {
  const std::string file = locate(path);
  return resolve_plan(config::read_yaml_file(file), file, sets);
}

PlanSpec load_plan_text(const std::string& text, const std::string& path, const std::vector<std::string>& sets) {
  return resolve_plan(config::parse_yaml_text(text, path), path, sets);
}

}  // namespace fleetsim::plan
