// `fleetsim list [KIND]` and `fleetsim describe KIND NAME`: the catalog and its fields.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <yaml-cpp/yaml.h>

#include "sim/app/command.hpp"
#include "sim/config/catalog.hpp"
#include "sim/config/declared_inputs.hpp"
#include "sim/config/load.hpp"
#include "sim/config/plan_schema.hpp"
#include "sim/plan/plan_load.hpp"
#include "sim/config/resolve.hpp"
#include "sim/config/yaml_source.hpp"
#include "sim/core/error.hpp"

namespace fleetsim::app {
namespace {

std::string description_of(const std::string& file) {
  try {
    YAML::Node doc = config::read_yaml_file(file);
    if (doc["description"].IsScalar()) return doc["description"].Scalar();
  } catch (const ConfigError&) {
  }
  return "";
}

void check_kind(const std::string& kind) {
  for (const auto& k : config::catalog_kinds())
    if (k == kind) return;
  if (kind == "scenarios" || kind == "plan") return;
  auto kinds = config::catalog_kinds();
  kinds.push_back("scenarios");
  kinds.push_back("plan");
  throw ConfigError("", "KIND", "unknown kind '" + kind + "'; " + config::did_you_mean(kind, kinds) +
                                    "choose one of: " + config::join(kinds));
}

void list(const std::string& kind) {
  auto show = [](const std::string& k) {
    std::cout << k << ":\n";
    auto names = k == "scenarios" ? config::list_scenarios() : config::list_presets(k);
    size_t w = 0;
    for (const auto& n : names) w = std::max(w, n.size());
    for (const auto& n : names) {
      std::string file = k == "scenarios" ? config::scenarios_dir() + "/" + n + ".yaml" : config::preset_path(k, n);
      std::cout << "  " << n << std::string(w + 2 - n.size(), ' ') << description_of(file) << "\n";
    }
  };
  if (!kind.empty()) {
    check_kind(kind);
    show(kind);
    return;
  }
  for (const auto& k : config::catalog_kinds()) show(k);
  show("scenarios");
}

std::string shown_value(const config::Field& f, const config::Param& p) {
  char buf[64];
  switch (f.type) {
    case config::FieldType::Quantity:
      return p.text.empty() ? units::format(p.number, f.dim) : p.text;
    case config::FieldType::Temperature:
      std::snprintf(buf, sizeof buf, "%g degC", p.number);
      return buf;
    case config::FieldType::Integer:
      if (!p.text.empty()) return p.text;  // a word such as auto
      [[fallthrough]];
    case config::FieldType::Real:
      std::snprintf(buf, sizeof buf, "%g", p.number);
      return buf;
    case config::FieldType::Bool:
      return p.flag ? "true" : "false";
    case config::FieldType::IntList: {
      std::string s = "[";
      for (size_t i = 0; i < p.ints.size(); ++i) s += (i ? ", " : "") + std::to_string(p.ints[i]);
      return s + "]";
    }
    case config::FieldType::Table:
      return std::to_string(p.rows.size()) + " rows";
    case config::FieldType::Section: {  // a nested mapping, e.g. failures.lemon_retirement
      std::string s = "{";
      for (size_t i = 0; p.sub && i < f.section->fields.size(); ++i)
        s += (i ? ", " : "") + f.section->fields[i].name + ": " + shown_value(f.section->fields[i], p.sub->at(f.section->fields[i].name));
      return s + "}";
    }
    default:
      return p.text;
  }
}

std::string unit_of(const config::Field& f) {
  switch (f.type) {
    case config::FieldType::Quantity: return units::describe(f.dim).name;
    case config::FieldType::Temperature: return "temperature";
    case config::FieldType::Integer: return f.choices.empty() ? "integer" : "integer|" + config::join(f.choices, "|");
    case config::FieldType::Real: return "ratio";
    case config::FieldType::Bool: return "bool";
    case config::FieldType::Choice: return config::join(f.choices, "|");
    case config::FieldType::IntList: return "list of integers";
    case config::FieldType::Table: return "list of mappings";
    case config::FieldType::Section: return "mapping";
    default: return "text";
  }
}

// "[min, max]" of a numeric field ("(" when the minimum is excluded); empty when unbounded.
std::string bound_of(const config::Field& f) {
  const bool numeric = f.type == config::FieldType::Quantity || f.type == config::FieldType::Integer ||
                       f.type == config::FieldType::Real;
  if (!numeric || (std::isinf(f.min) && std::isinf(f.max))) return "";
  auto shown = [&](double x) {
    if (std::isinf(x)) return std::string(x < 0 ? "-inf" : "inf");
    if (f.type == config::FieldType::Quantity) return units::format(x, f.dim);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", x);
    return std::string(buf);
  };
  return std::string(f.min_exclusive ? "(" : "[") + shown(f.min) + ", " + shown(f.max) + "]";
}

// `fleetsim describe plan NAME`: every key of a plan file (sim/config/plan_schema.cpp), nested
// sections indented; then NAME (a plan file or a name in scenarios/) is loaded and checked.
void describe_schema(const config::Schema& schema, const std::string& indent) {
  for (const auto& f : schema.fields) {
    std::cout << indent << f.name << ": " << f.doc << "\n"
              << indent << "    unit: " << unit_of(f)
              << "   default: " << (f.required ? "(required)" : f.default_text.empty() ? "(none)" : f.default_text) << "\n";
    if ((f.type == config::FieldType::Section || f.type == config::FieldType::Table) && f.section)
      describe_schema(*f.section, indent + "  ");
  }
}

// How a scenario says how sure it is (issue 25; sim/uncertainty/README.md): the declared-input
// form, the run keys of adaptive replications (their docs from the schema) and --level; then the
// inputs this scenario declares uncertain.
void describe_uncertainty(const Scenario& s) {
  std::cout << "uncertainty (sim/uncertainty/README.md):\n"
               "  any quantity, ratio or temperature key may be declared uncertain (not integers, words or flags):\n"
               "    KEY: {value: V, range: [lo, hi]}                             uniform on [lo, hi]\n"
               "    KEY: {value: V, range: [lo, hi], distribution: triangular}   mode V\n"
               "    KEY: {value: V, distribution: normal, sd: S}                 mean V; S in the key's unit\n"
               "    KEY: {value: V, distribution: lognormal, sigma: s}           median V; s = standard deviation of ln x\n"
               "    (normal and lognormal take an optional range that truncates them; a source: may be added)\n"
               "  V is what the headline number uses. step draws the inputs N times (--draws, default 1000, seeded by\n"
               "  run.seed) and widens its intervals; run draws them once per replication. JSON: uncertain_inputs.\n";
  const config::Field* run = config::scenario_schema()->find("run");
  for (const char* key : {"replications", "precision"}) {
    const config::Field* f = run && run->section ? run->section->find(key) : nullptr;
    if (f) std::cout << "  run." << key << ": " << f->doc << " (default " << f->default_text << ")\n";
  }
  std::cout << "  --level (step, run, search): level of the intervals beside the headline numbers, in (0, 1); default 0.8\n";
  std::cout << "declared uncertain in this scenario:";
  if (!s.declared_inputs) std::cout << " none\n";
  else {
    std::cout << "\n";
    for (const auto& in : s.declared_inputs->inputs) std::cout << "  " << in.key << ": " << in.spec.shown << "\n";
  }
}

void describe(const std::string& kind, const std::string& name) {
  check_kind(kind);
  if (kind == "plan") {
    std::cout << "plan: " << config::plan_schema()->doc << "\n\n";
    describe_schema(*config::plan_schema(), "  ");
    const plan::PlanSpec p = plan::load_plan(name);
    std::cout << "\n" << p.file << ": valid (" << p.systems.size() << " systems x " << p.gpus.size() << " GPU counts)\n";
    return;
  }
  if (kind == "scenarios") {
    Scenario s = config::load_scenario(name);
    std::cout << s.file << "\n" << s.description << "\n\nresolved:\n" << s.resolved_yaml << "\n\n";
    describe_uncertainty(s);
    return;
  }
  config::Resolver r;
  auto schema = config::kind_schema(kind);
  config::Field f = config::preset("x", kind, "");
  std::string file = r.find_preset(kind, name, "", "NAME");
  YAML::Node node(name);
  config::Param p;
  config::ParamSet ps = [&] {
    YAML::Node doc(YAML::NodeType::Map);
    doc["x"] = name;
    config::Schema wrapper;
    wrapper.name = "wrapper";
    wrapper.fields.push_back(f);
    return r.resolve(doc, wrapper, "", "").sub("x");
  }();
  std::cout << kind << "/" << name << " (" << file << ")\n";
  if (!ps.description.empty()) std::cout << ps.description << "\n";
  std::cout << "\n";
  for (const auto& field : schema->fields) {
    const config::Param& v = ps.at(field.name);
    std::cout << "  " << field.name << ": " << shown_value(field, v) << "\n"
              << "      " << field.doc << "\n"
              << "      unit: " << unit_of(field)
              << "   default: " << (field.required ? "(required)" : field.default_text.empty() ? "(none)" : field.default_text);
    if (const std::string b = bound_of(field); !b.empty()) std::cout << "   bound: " << b;
    std::cout << "\n";
    if (!v.source.empty() && v.origin != "default") std::cout << "      source: " << v.source << "\n";
    if (field.type == config::FieldType::Section)
      for (const auto& sf : field.section->fields)
        std::cout << "      " << sf.name << ": " << sf.doc << " (unit: " << unit_of(sf) << ", default: " << sf.default_text << ")\n";
    if (field.type == config::FieldType::Table) {
      for (const auto& row : v.rows) {
        std::cout << "      -";
        for (const auto& rf : field.section->fields) std::cout << " " << rf.name << "=" << shown_value(rf, row.at(rf.name));
        std::cout << "\n";
      }
    }
  }
}

}  // namespace

void add_catalog_commands(CLI::App& app) {
  auto* l = app.add_subcommand("list", "list the catalog: gpus, nodes, fabrics, cooling, failures, workloads, scenarios");
  auto kind = std::make_shared<std::string>();
  l->add_option("KIND", *kind, "one kind; all when omitted");
  l->callback([kind] { list(*kind); });

  auto* d = app.add_subcommand("describe", "every field of a preset: value, unit, default, doc, source");
  auto dkind = std::make_shared<std::string>();
  auto dname = std::make_shared<std::string>();
  d->add_option("KIND", *dkind, "gpus, nodes, fabrics, cooling, sites, failures, workloads, prices, software, scenarios, or plan (the plan schema, then NAME checked)")->required();
  d->add_option("NAME", *dname, "preset name or path to a YAML file")->required();
  d->callback([dkind, dname] { describe(*dkind, *dname); });
}

}  // namespace fleetsim::app
