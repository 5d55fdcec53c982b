#include "sim/serve/client_input.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>

#include "sim/config/catalog.hpp"
#include "sim/config/yaml_source.hpp"
#include "sim/core/error.hpp"

namespace fleetsim::serve {
namespace {

bool ends_with_ci(const std::string& s, const std::string& tail) {
  if (s.size() < tail.size()) return false;
  return std::equal(tail.rbegin(), tail.rend(), s.rbegin(),
                    [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b)); });
}

bool is_number_char(char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'; }

// The '/' at `slash` is a unit's ("TB/s", "833 /h") when what comes before it is a number, then
// the unit's letters or a space (or both), and the number starts the value or follows '(', ',' or
// a space. "1/2" and "h100/x" are not.
bool slash_is_in_unit(const std::string& v, size_t slash) {
  size_t i = slash;
  while (i > 0 && (std::isalpha(static_cast<unsigned char>(v[i - 1])) || v[i - 1] == '%')) --i;
  const bool letters = i != slash;
  bool space = false;
  if (i > 0 && v[i - 1] == ' ') {
    --i;
    space = true;
  }
  if (!letters && !space) return false;
  const size_t number_end = i;
  while (i > 0 && is_number_char(v[i - 1])) --i;
  if (i == number_end || !std::any_of(v.begin() + static_cast<long>(i), v.begin() + static_cast<long>(number_end),
                                      [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return false;
  return i == 0 || v[i - 1] == '(' || v[i - 1] == ',' || v[i - 1] == ' ';
}

// Keys whose value is a file to read: refused from a client whatever the value.
bool is_file_key(const std::string& key) {
  const size_t dot = key.rfind('.');
  const std::string last = dot == std::string::npos ? key : key.substr(dot + 1);
  return last == "extends" || last == "hourly_csv" || last == "trace" || ends_with_ci(last, "_csv") ||
         ends_with_ci(last, "_file") || ends_with_ci(last, "_path");
}

// Free text that the loader never opens.
bool is_text_key(const std::string& key) {
  const size_t dot = key.rfind('.');
  const std::string last = dot == std::string::npos ? key : key.substr(dot + 1);
  return last == "description" || last == "source" || last == "sources" || last == "notes" || last == "name";
}

void check_scalar(const std::string& key, const std::string& value, const std::string& origin) {
  if (is_text_key(key)) return;
  if (looks_like_path(value))
    throw ConfigError(origin, key, "'" + value + "' reads as a file path; the studio takes catalog names only "
                                   "(`fleetsim list` shows them), or upload the file's text as a scenario");
}

// Aliases make a small text a huge tree (a "billion laughs"): the walk visits at most kMaxNodes
// nodes and kMaxDepth levels, far above any scenario (the default one has about 400 nodes).
constexpr size_t kMaxNodes = 50000;
constexpr int kMaxDepth = 64;

void walk(const YAML::Node& node, const std::string& key, const std::string& origin, size_t& budget, int depth = 0) {
  if (budget == 0 || depth > kMaxDepth)
    throw ConfigError(origin, key, "more than " + std::to_string(kMaxNodes) + " values or " + std::to_string(kMaxDepth) +
                                       " levels (aliases expanded); a scenario has a few hundred");
  --budget;
  if (node.IsMap()) {
    for (const auto& kv : node) {
      const std::string k = kv.first.IsScalar() ? kv.first.Scalar() : std::string("?");
      if (depth == 0 && k == "extends") continue;  // checked by the caller: a shipped scenario's name
      const std::string path = key.empty() ? k : key + "." + k;
      if (is_file_key(path))
        throw ConfigError(origin, path, "names a file to read; the studio takes no file from a client");
      walk(kv.second, path, origin, budget, depth + 1);
    }
  } else if (node.IsSequence()) {
    for (const auto& item : node) walk(item, key, origin, budget, depth + 1);
  } else if (node.IsScalar()) {
    check_scalar(key, node.Scalar(), origin);
  }
}

void walk_value(const YAML::Node& node, const std::string& key, const std::string& origin) {
  size_t budget = kMaxNodes;
  walk(node, key, origin, budget, 1);
}

}  // namespace

bool looks_like_path(const std::string& v) {
  if (v.empty()) return false;
  if (v[0] == '/' || v[0] == '~' || (v[0] == '.' && !(v.size() > 1 && std::isdigit(static_cast<unsigned char>(v[1])))))
    return true;
  if (v.find("..") != std::string::npos || v.find('\\') != std::string::npos || v.find('\0') != std::string::npos) return true;
  for (const char* ext : {".yaml", ".yml", ".csv", ".json", ".h5", ".txt", ".tsv"})
    if (ends_with_ci(v, ext)) return true;
  for (size_t i = v.find('/'); i != std::string::npos; i = v.find('/', i + 1))
    if (!slash_is_in_unit(v, i)) return true;
  return false;
}

bool is_catalog_name(const std::string& name) {
  if (name.empty() || name.size() > 100 || name.find("..") != std::string::npos || name[0] == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

void check_client_set(const std::string& set) {
  const std::string origin = "--set " + set.substr(0, 200);
  if (set.size() > kMaxSetBytes)
    throw ConfigError(origin, "", "longer than " + std::to_string(kMaxSetBytes) + " bytes");
  const size_t eq = set.find('=');
  if (eq == std::string::npos || eq == 0) throw ConfigError(origin, "", "expected key.path=value, e.g. cluster.gpus=8192");
  const std::string key = set.substr(0, eq);
  if (is_file_key(key)) throw ConfigError(origin, key, "names a file to read; the studio takes no file from a client");
  walk_value(config::parse_yaml_text(set.substr(eq + 1), origin), key, origin);
}

void check_client_scenario_text(const std::string& text, const std::string& origin) {
  if (text.size() > kMaxUploadBytes)
    throw ConfigError(origin, "", "the upload is " + std::to_string(text.size()) + " bytes; the limit is " +
                                      std::to_string(kMaxUploadBytes));
  const YAML::Node doc = config::parse_yaml_text(text, origin);
  if (!doc.IsMap()) throw ConfigError(origin, "", "expected a scenario (a YAML mapping)");
  if (const YAML::Node ext = doc["extends"]; ext.IsDefined()) {
    std::string name = ext.IsScalar() ? ext.Scalar() : std::string();
    if (ends_with_ci(name, ".yaml")) name = name.substr(0, name.size() - 5);
    const auto shipped = config::list_scenarios();
    if (!is_catalog_name(name) || std::find(shipped.begin(), shipped.end(), name) == shipped.end())
      throw ConfigError(origin, "extends", "an uploaded scenario may extend a shipped scenario by name only (" +
                                                std::string("`fleetsim list` shows them)"));
  }
  size_t budget = kMaxNodes;
  walk(doc, "", origin, budget);
}

}  // namespace fleetsim::serve
