#include "sim/config/resolve.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <string_view>

#include "sim/config/catalog.hpp"
#include "sim/core/limits.hpp"
#include "sim/config/yaml_source.hpp"
#include "sim/core/error.hpp"

namespace fleetsim::config {
namespace {

// Keys every preset file may carry besides its schema fields.
bool is_meta_key(const std::string& key) { return key == "description" || key == "source"; }

std::string child(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string format_bound(double v) {
  char buf[32];
  if (std::fabs(v) < 1e15 && v == std::floor(v)) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// A decimal integer (optionally with '+'). Values beyond what a long long holds come back as
// +-infinity, so the range check refuses them with the limit in its message instead of wrapping.
bool parse_integer(const std::string& s, double& out) {
  std::string_view v = s;
  if (!v.empty() && v.front() == '+') v.remove_prefix(1);
  if (v.empty() || v.front() == '+' || (v.front() == '-' && s.front() == '+')) return false;
  long long n = 0;
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ptr != v.data() + v.size()) return false;
  if (ec == std::errc::result_out_of_range) {
    out = (v.front() == '-' ? -1.0 : 1.0) * std::numeric_limits<double>::infinity();
    return true;
  }
  if (ec != std::errc()) return false;
  out = static_cast<double>(n);
  return true;
}

bool parse_bool(const std::string& s, bool& out) {
  if (s == "true" || s == "True" || s == "yes" || s == "on") { out = true; return true; }
  if (s == "false" || s == "False" || s == "no" || s == "off") { out = false; return true; }
  return false;
}

// Issue 40: an empty value (`key:`, `key: ~`, `key: null`, `--set key=`) once meant the key's
// default, so `--set constraints.facility_power_cap=` silently dropped a file's 30 MW cap. The one
// rule: an empty value is refused naming the key, except where the schema itself documents what
// empty means: a text key whose default is empty (none: no CSV, the base scenario's model), a
// list of integers (no list: pipeline_layer_split even), a table that may be left out (no rows).
bool empty_means_none(const Field& f) {
  switch (f.type) {
    case FieldType::Text: return f.default_text.empty();
    case FieldType::IntList: return true;
    case FieldType::Table: return !f.required;
    default: return false;
  }
}

std::string expected_value(const Field& f) {
  switch (f.type) {
    case FieldType::Quantity: return "a value with a unit such as '" + units::describe(f.dim).example + "'";
    case FieldType::Temperature: return "a temperature such as '25 degC'";
    case FieldType::Integer: return "an integer";
    case FieldType::Real: return "a number";
    case FieldType::Bool: return "true or false";
    case FieldType::Choice: return "one of " + join(f.choices);
    case FieldType::Text: return "text";
    case FieldType::IntList: return "a list of integers";
    case FieldType::Preset: return "a " + f.preset_kind + " preset name or a YAML file";
    case FieldType::Section: return "a mapping of its keys (" + join(f.section->keys()) + ")";
    case FieldType::Table: return "a list of mappings with keys " + join(f.section->keys());
  }
  return "a value";
}

std::string empty_value_message(const Field& f) {
  std::string out = "is empty (nothing after the key); valid: " + expected_value(f);
  // Not giving the key at all keeps what the files say, else the default: say which default.
  if (f.type == FieldType::Section) return out + " (not giving the key keeps its defaults)";
  if (f.required || f.default_text.empty()) return out + " (required: " + f.doc + ")";
  return out + " (not giving the key keeps the file's value, else the default '" + f.default_text + "')";
}

}  // namespace

std::string join(const std::vector<std::string>& words, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) out += (i ? sep : "") + words[i];
  return out;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  // A candidate that starts with what was typed ("h100" -> "h100-sxm-80gb") beats edit distance.
  for (const auto& c : candidates)
    if (word.size() >= 2 && c.size() > word.size() && c.compare(0, word.size(), word) == 0)
      return "did you mean '" + c + "'? ";
  // A shared stem of at least three characters ("gpu_count" -> "gpus").
  std::string stem_best;
  size_t stem_len = 0;
  for (const auto& c : candidates) {
    size_t n = 0;
    while (n < word.size() && n < c.size() && word[n] == c[n]) ++n;
    if (n >= 3 && n * 2 >= c.size() &&
        (n > stem_len || (n == stem_len && c.size() > stem_best.size()))) {  // tie: the longer name
      stem_len = n;
      stem_best = c;
    }
  }
  if (!stem_best.empty()) return "did you mean '" + stem_best + "'? ";
  std::string best;
  size_t best_d = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    size_t d = edit_distance(word, c);
    if (d < best_d) { best_d = d; best = c; }
  }
  return best.empty() ? "" : "did you mean '" + best + "'? ";
}

void Resolver::spend(const std::string& file) {
  if (budget_ == 0)
    throw ConfigError(file, "", "the document expands to too many nodes (YAML aliases nested too deep?); "
                                "scenario files are limited to 200000 nodes after alias expansion");
  --budget_;
}

YAML::Node Resolver::clone(const YAML::Node& node) {
  spend("");
  if (node.IsMap()) {
    YAML::Node out(YAML::NodeType::Map);
    for (const auto& kv : node) out[kv.first.Scalar()] = clone(kv.second);
    return out;
  }
  if (node.IsSequence()) {
    YAML::Node out(YAML::NodeType::Sequence);
    for (const auto& v : node) out.push_back(clone(v));
    return out;
  }
  if (node.IsScalar()) return YAML::Node(node.Scalar());
  return YAML::Node();
}

std::string Resolver::find_preset(const std::string& kind, const std::string& name,
                                  const std::string& referer, const std::string& key) const {
  namespace fs = std::filesystem;
  if (name.empty()) throw ConfigError(referer, key, "expected a " + kind + " preset name, got an empty one");
  bool looks_like_path = name.find('/') != std::string::npos ||
                         (name.size() > 5 && name.substr(name.size() - 5) == ".yaml");
  if (looks_like_path) {
    fs::path p(name);
    if (p.is_relative() && !referer.empty() && referer[0] != '-')
      p = fs::path(referer).parent_path() / p;
    if (const std::string problem = file_problem(p.string()); !problem.empty())
      throw ConfigError(referer, key, "preset file '" + p.string() + "' " + problem);
    return p.string();
  }
  std::string file = preset_path(kind, name);
  if (!file_problem(file).empty()) {
    auto names = list_presets(kind);
    throw ConfigError(referer, key, "unknown " + kind + " preset '" + name + "'; " +
                                        did_you_mean(name, names) + "available: " + join(names) +
                                        " (or a path to a YAML file in the same schema)");
  }
  return file;
}

ParamSet Resolver::resolve(const YAML::Node& node, const Schema& schema, const std::string& path,
                           const std::string& file) {
  return walk(node, schema, path, file, false);
}

void Resolver::check(const YAML::Node& node, const Schema& schema, const std::string& path,
                     const std::string& file) {
  walk(node, schema, path, file, true);
}

ParamSet Resolver::walk(const YAML::Node& node, const Schema& schema, const std::string& path,
                        const std::string& file, bool partial) {
  spend(file);
  if (!node.IsMap())
    throw ConfigError(file, path, "expected a mapping with keys " + join(schema.keys()) + ", got " +
                                      kind_of(node), line_of(node));
  ParamSet out;
  for (const auto& kv : node) {
    spend(file);
    const std::string key = kv.first.Scalar();
    if (schema.find(key) == nullptr && !(is_meta_key(key) && schema.name != "scenario-section")) {
      throw ConfigError(file, child(path, key),
                        "unknown key; " + did_you_mean(key, schema.keys()) + "valid keys here: " +
                            join(schema.keys()), line_of(kv.first));
    }
    if (key == "description" && kv.second.IsScalar()) out.description = kv.second.Scalar();
  }
  for (const Field& f : schema.fields) {
    YAML::Node v = node[f.name];
    if (v.IsDefined() && v.IsNull() && !empty_means_none(f)) {
      const int line = file.rfind("--", 0) == 0 ? 0 : (line_of(v) > 0 ? line_of(v) : line_of(node));
      throw ConfigError(file, child(path, f.name), empty_value_message(f), line);
    }
    if (!v.IsDefined() || v.IsNull()) {
      if (partial) continue;
      if (f.required)
        throw ConfigError(file, child(path, f.name), "missing required key (" + f.doc + ")", line_of(node));
      if (f.type == FieldType::Section) {
        // An absent section takes all its defaults.
        Param p;
        p.sub = std::make_shared<ParamSet>(walk(YAML::Node(YAML::NodeType::Map), *f.section,
                                                child(path, f.name), file, false));
        p.origin = "default";
        out.values[f.name] = std::move(p);
        continue;
      }
      if (f.type == FieldType::Preset && f.default_text.empty())
        throw ConfigError(file, child(path, f.name), "missing required key (" + f.doc + ")", line_of(node));
      if (f.type == FieldType::IntList && f.default_text.empty()) {
        out.values[f.name] = Param{};
        continue;
      }
      YAML::Node def = f.type == FieldType::Table ? YAML::Node(YAML::NodeType::Sequence)
                                                   : YAML::Node(f.default_text);
      Param p = value(def, f, child(path, f.name), "<default of " + schema.name + ">", false);
      p.origin = "default";
      out.values[f.name] = std::move(p);
      continue;
    }
    Param p = value(v, f, child(path, f.name), file, partial);
    p.origin = file;
    out.values[f.name] = std::move(p);
  }
  return out;
}

Param Resolver::value(const YAML::Node& node, const Field& f, const std::string& path,
                      const std::string& file, bool partial) {
  spend(file);
  // {value: V, range: [lo, hi]} or {value: V, distribution: ...} on a plain key (issue 25).
  if (node.IsMap() && f.type != FieldType::Section && f.type != FieldType::Table && f.type != FieldType::Preset &&
      f.type != FieldType::IntList)
    return uncertain_value(node, f, path, file, partial);
  Param p;
  const int line = file.rfind("--", 0) == 0 ? 0 : line_of(node);
  auto need_scalar = [&](const std::string& what) {
    if (!node.IsScalar())
      throw ConfigError(file, path, "expected " + what + ", got " + kind_of(node), line);
    return node.Scalar();
  };
  auto check_range = [&](double v, const std::string& shown, double max, const std::string& max_shown) {
    bool low = f.min_exclusive ? !(v > f.min) : v < f.min;
    if (low)
      throw ConfigError(file, path, "must be " + std::string(f.min_exclusive ? "> " : ">= ") +
                                        format_bound(f.min) + ", got " + shown, line);
    if (v > max) throw ConfigError(file, path, "must be <= " + max_shown + ", got " + shown, line);
  };
  auto check_range_plain = [&](double v, const std::string& shown) {
    check_range(v, shown, f.max, format_bound(f.max));
  };
  switch (f.type) {
    case FieldType::Quantity: {
      std::string s = need_scalar("a value with a unit such as '" + units::describe(f.dim).example + "'");
      if (std::find(f.choices.begin(), f.choices.end(), s) != f.choices.end()) {
        p.text = s;
        break;
      }
      try {
        p.number = units::parse_si(s, f.dim);
      } catch (const units::UnitError& e) {
        std::string alt = f.choices.empty() ? "" : " (or one of: " + join(f.choices) + ")";
        throw ConfigError(file, path, std::string(e.what()) + alt, line);
      }
      if (f.dim == dim<Seconds>() && f.max > limits::kMaxTimeSeconds)
        check_range(p.number, "'" + s + "'", limits::kMaxTimeSeconds,
                    std::string(limits::kMaxTimeText) + " (fleetsim's limit for any time value)");
      else
        check_range(p.number, "'" + s + "'", f.max, units::format(f.max, f.dim));
      break;
    }
    case FieldType::Temperature: {
      std::string s = need_scalar("a temperature such as '25 degC'");
      try {
        p.number = units::parse_celsius(s).value;
      } catch (const units::UnitError& e) {
        throw ConfigError(file, path, e.what(), line);
      }
      break;
    }
    case FieldType::Integer: {
      std::string s = need_scalar("an integer");
      // A word the field accepts instead of a count (run.replications: auto) is kept as text.
      if (std::find(f.choices.begin(), f.choices.end(), s) != f.choices.end()) {
        p.text = s;
        break;
      }
      if (!parse_integer(s, p.number))
        throw ConfigError(file, path, "'" + s + "' is not an integer" +
                                          (f.choices.empty() ? std::string() : " or " + join(f.choices, ", ")), line);
      const double max = std::min(f.max, static_cast<double>(limits::kMaxInteger));
      check_range(p.number, s, max, format_bound(max));
      break;
    }
    case FieldType::Real: {
      std::string s = need_scalar("a number");
      try {
        p.number = units::parse_si(s, units::DimVec{});
      } catch (const units::UnitError&) {
        throw ConfigError(file, path, "'" + s + "' is not a plain number (a ratio such as 0.5 or 50 %)", line);
      }
      check_range_plain(p.number, s);
      break;
    }
    case FieldType::Bool: {
      std::string s = need_scalar("true or false");
      if (!parse_bool(s, p.flag)) throw ConfigError(file, path, "'" + s + "' is not true or false", line);
      break;
    }
    case FieldType::Choice: {
      std::string s = need_scalar("one of " + join(f.choices));
      if (std::find(f.choices.begin(), f.choices.end(), s) == f.choices.end())
        throw ConfigError(file, path, "'" + s + "' is not valid; " + did_you_mean(s, f.choices) +
                                          "choose one of: " + join(f.choices), line);
      p.text = s;
      break;
    }
    case FieldType::Text:
      p.text = need_scalar("text");
      break;
    case FieldType::IntList: {
      if (!node.IsSequence())
        throw ConfigError(file, path, "expected a list of integers such as [7, 8, 8], got " + kind_of(node), line);
      for (const auto& item : node) {
        spend(file);
        const std::string s = item.IsScalar() ? item.Scalar() : "";
        double v = 0;
        if (!parse_integer(s, v) || v < 0)
          throw ConfigError(file, path, "list item " + kind_of(item) + " is not a non-negative integer", line_of(item));
        if (v > static_cast<double>(limits::kMaxInteger))
          throw ConfigError(file, path, "list item " + s + " is larger than " + format_bound(limits::kMaxInteger), line_of(item));
        p.ints.push_back(static_cast<long long>(v));
      }
      break;
    }
    case FieldType::Section:
      p.sub = std::make_shared<ParamSet>(walk(node, *f.section, path, file, partial));
      break;
    case FieldType::Table: {
      if (!node.IsSequence())
        throw ConfigError(file, path, "expected a list of mappings with keys " + join(f.section->keys()) +
                                          ", got " + kind_of(node), line);
      size_t i = 0;
      for (const auto& row : node) p.rows.push_back(walk(row, *f.section, path + "[" + std::to_string(i++) + "]", file, false));
      break;
    }
    case FieldType::Preset:
      p.sub = std::make_shared<ParamSet>(preset(node, f, path, file, partial));
      break;
  }
  return p;
}

ParamSet Resolver::preset(const YAML::Node& node, const Field& f, const std::string& path,
                          const std::string& file, bool partial) {
  const Schema& schema = *f.section;
  std::string name;
  YAML::Node overrides(YAML::NodeType::Map);
  if (node.IsScalar()) {
    name = node.Scalar();
  } else if (node.IsMap()) {
    for (const auto& kv : node) {
      spend(file);
      if (kv.first.Scalar() == f.selector) name = kv.second.IsScalar() ? kv.second.Scalar() : "";
      else overrides[kv.first.Scalar()] = kv.second;
    }
    if (node[f.selector].IsDefined() && name.empty())
      throw ConfigError(file, path + "." + f.selector, "expected a preset name, got " + kind_of(node[f.selector]), line_of(node));
  } else {
    throw ConfigError(file, path, "expected a " + f.preset_kind + " preset name, a path to a YAML file, or a mapping {" +
                                      f.selector + ": NAME, field: value...}; got " + kind_of(node), line_of(node));
  }
  if (partial) {
    if (!name.empty()) find_preset(f.preset_kind, name, file, path + (node.IsMap() ? "." + f.selector : ""));
    walk(overrides, schema, path, file, true);
    return {};
  }
  if (name.empty()) {
    // A complete inline definition.
    ParamSet ps = walk(overrides, schema, path, file, false);
    ps.preset_name = "(inline)";
    ps.preset_file = file;
    return ps;
  }
  std::string preset_file = find_preset(f.preset_kind, name, file, path);
  YAML::Node doc = read_yaml_file(preset_file);
  // Preset files may give a field as {value: X, source: "..."}; flatten and keep the sources.
  YAML::Node flat(YAML::NodeType::Map);
  std::map<std::string, std::string> sources;
  std::string file_source = doc["source"].IsDefined() && doc["source"].IsScalar() ? doc["source"].Scalar() : "";
  for (const auto& kv : doc) {
    spend(preset_file);
    const std::string key = kv.first.Scalar();
    const Field* fld = schema.find(key);
    // ... unless it also declares the value uncertain ({value, range, source}): kept whole.
    const bool declared = kv.second.IsMap() && (kv.second["range"].IsDefined() || kv.second["distribution"].IsDefined());
    if (kv.second.IsMap() && kv.second["value"].IsDefined() && fld && fld->type != FieldType::Section && !declared) {
      flat[key] = kv.second["value"];
      if (kv.second["source"].IsDefined()) sources[key] = kv.second["source"].Scalar();
    } else {
      flat[key] = kv.second;
    }
  }
  ParamSet ps = walk(flat, schema, path, preset_file, false);
  ps.preset_name = name;
  ps.preset_file = preset_file;
  for (auto& [key, param] : ps.values) param.source = sources.count(key) ? sources[key] : file_source;
  if (overrides.size() > 0) {
    ParamSet over = walk(overrides, schema, path, file, true);
    for (auto& [key, param] : over.values) {
      // A section given in part (failures.lemon_retirement.after_failures alone) keeps the
      // preset's (or the defaults') other keys: the override is walked partially.
      const Field* fld = schema.find(key);
      auto base = ps.values.find(key);
      if (fld && fld->type == FieldType::Section && param.sub && base != ps.values.end() && base->second.sub) {
        auto merged = std::make_shared<ParamSet>(*base->second.sub);
        for (auto& [sub_key, sub_param] : param.sub->values) merged->values[sub_key] = sub_param;
        param.sub = merged;
      }
      param.origin = file;
      param.source = "override in " + file;
      ps.values[key] = std::move(param);
    }
  }
  return ps;
}

YAML::Node Resolver::merge(const YAML::Node& base, const YAML::Node& over, const Schema& schema) {
  if (!base.IsMap() || !over.IsMap()) return clone(over);
  YAML::Node out = clone(base);
  for (const auto& kv : over) {
    spend("");
    const std::string key = kv.first.Scalar();
    const Field* f = schema.find(key);
    YAML::Node b = base[key];
    if (f && b.IsDefined() && kv.second.IsMap()) {
      if (f->type == FieldType::Section && b.IsMap()) {
        out[key] = merge(b, kv.second, *f->section);
        continue;
      }
      if (f->type == FieldType::Preset && !kv.second[f->selector].IsDefined()) {
        YAML::Node as_map(YAML::NodeType::Map);
        if (b.IsScalar()) as_map[f->selector] = b.Scalar();
        else as_map = clone(b);
        for (const auto& o : kv.second) as_map[o.first.Scalar()] = clone(o.second);
        out[key] = as_map;
        continue;
      }
    }
    out[key] = clone(kv.second);
  }
  return out;
}

}  // namespace fleetsim::config
