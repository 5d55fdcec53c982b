#include "sim/sweep/grid.hpp"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <set>

#include "sim/core/error.hpp"
#include "sim/core/limits.hpp"

namespace fleetsim::sweep {
namespace {

// Bad --vary / --zip arguments. Out of line: GCC 12 reports a false -Wrestrict when it inlines
// ConfigError's message composition with a constant empty file name.
[[noreturn, gnu::noinline]] void bad_argument(const std::string& option, const std::string& message) {
  static const std::string command_line;  // no file: the error names the option
  throw ConfigError(command_line, option, message);
}

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

// FNV-1a, 32 bits: stable across platforms and runs (std::hash is not).
std::uint32_t fnv1a(const std::string& s) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : s) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}

// Keeps letters, digits, '.', '-' and '+'; anything else becomes one '_'.
std::string slug(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '.' || c == '-' || c == '+') out += static_cast<char>(c);
    else if (out.empty() || out.back() != '_') out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  while (!out.empty() && out.front() == '_') out.erase(out.begin());
  return out.empty() ? "x" : out;
}

std::string last_component(const std::string& key) {
  size_t dot = key.rfind('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

}  // namespace

std::vector<std::string> split_values(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      if (c == quote) quote = 0;
      cur += c;
      continue;
    }
    if (c == '"' || c == '\'') quote = c;
    else if (c == '[' || c == '{') ++depth;
    else if ((c == ']' || c == '}') && depth > 0) --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
      continue;
    }
    cur += c;
  }
  out.push_back(trim(cur));
  for (const auto& v : out)
    if (v.empty()) bad_argument("--vary", "empty value in '" + text + "' (values are separated by commas)");
  return out;
}

Axis parse_axis(const std::string& text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos)
    bad_argument("--vary", "expected key=v1,v2,... but got '" + text + "'");
  Axis a;
  a.key = trim(text.substr(0, eq));
  if (a.key.empty()) bad_argument("--vary", "missing key before '=' in '" + text + "'");
  if (trim(text.substr(eq + 1)).empty())
    bad_argument("--vary", "no values for '" + a.key + "' (expected " + a.key + "=v1,v2,...)");
  a.values = split_values(text.substr(eq + 1));
  return a;
}

std::vector<std::string> Point::sets() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : values) out.push_back(k + "=" + v);
  return out;
}

std::string Point::label() const {
  std::string out;
  for (const auto& [k, v] : values) {
    if (!out.empty()) out += ' ';
    out += last_component(k);
    out += '=';
    out += v;
  }
  return out;
}

std::string point_file_name(const std::vector<std::pair<std::string, std::string>>& values,
                            const GridBase& base) {
  std::string canonical = "scenario=" + base.scenario + "\nreplications=" + std::to_string(base.replications) +
                          "\nseed=" + std::to_string(base.seed) + "\n";
  for (const auto& s : base.sets) canonical += "set " + s + "\n";
  if (!base.level.empty()) canonical += "level=" + base.level + "\n";
  std::string name;
  for (const auto& [k, v] : values) {
    canonical += "vary " + k + "=" + v + "\n";
    if (!name.empty()) name += '_';
    name += slug(last_component(k));
    name += '-';
    name += slug(v);
  }
  if (name.size() > 96) name.resize(96);
  if (name.empty()) name = "base";
  char hash[16];
  std::snprintf(hash, sizeof hash, "%08x", static_cast<unsigned>(fnv1a(canonical)));
  return name + "_" + hash + ".h5";
}

void attach_companion(std::vector<Axis>& axes, const std::string& text) {
  const size_t eq = text.find('=');
  const size_t colon = text.find(':');
  if (colon == std::string::npos || (eq != std::string::npos && colon > eq))
    bad_argument("--with", "expected LEADER:KEY=v1,v2,... (KEY moves with the --vary axis LEADER) but got '" +
                               text + "'");
  const std::string leader = trim(text.substr(0, colon));
  Axis companion = parse_axis(text.substr(colon + 1));
  for (auto& a : axes) {
    if (a.key != leader) continue;
    if (companion.values.size() != a.values.size())
      bad_argument("--with", "'" + companion.key + "' has " + std::to_string(companion.values.size()) +
                                 " values but its leader '" + leader + "' has " + std::to_string(a.values.size()));
    a.with.push_back(std::move(companion));
    return;
  }
  bad_argument("--with", "no --vary axis '" + leader + "' for '" + companion.key + "' to move with");
}

std::vector<Axis> zip_axes(std::vector<Axis> axes) {
  if (axes.size() <= 1) return axes;
  Axis lead = std::move(axes.front());
  for (size_t i = 1; i < axes.size(); ++i) {
    if (axes[i].values.size() != lead.values.size())
      bad_argument("--zip", "zipped axes need the same number of values: '" + lead.key + "' has " +
                                std::to_string(lead.values.size()) + ", '" + axes[i].key + "' has " +
                                std::to_string(axes[i].values.size()));
    Axis c = std::move(axes[i]);
    for (auto& w : c.with) lead.with.push_back(std::move(w));
    c.with.clear();
    lead.with.push_back(std::move(c));
  }
  return {std::move(lead)};
}

std::vector<std::string> all_keys(const std::vector<Axis>& axes) {
  std::vector<std::string> keys;
  for (const auto& a : axes) {
    keys.push_back(a.key);
    for (const auto& w : a.with) keys.push_back(w.key);
  }
  return keys;
}

std::vector<Point> expand_grid(const std::vector<Axis>& given, bool zip, const GridBase& base) {
  const std::vector<Axis> axes = zip ? zip_axes(given) : given;
  std::set<std::string> keys;
  for (const auto& k : all_keys(axes))
    if (!keys.insert(k).second) bad_argument("--vary", "'" + k + "' is varied twice");
  for (const auto& a : axes) {
    if (a.values.empty()) bad_argument("--vary", "no values for '" + a.key + "'");
    for (const auto& w : a.with)
      if (w.values.size() != a.values.size())
        bad_argument("--with", "'" + w.key + "' needs as many values as '" + a.key + "'");
  }
  double product = 1;  // in floating point: the product of a few long axes would wrap an integer
  for (const auto& a : axes) product *= static_cast<double>(a.values.size());
  if (product > limits::kMaxSweepPoints) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "the grid has %.6g points; the limit is %.0f (split the study into several sweeps)",
                  product, limits::kMaxSweepPoints);
    bad_argument("--vary", buf);
  }
  using Values = std::vector<std::pair<std::string, std::string>>;
  std::vector<Values> combos(1);
  for (const auto& a : axes) {
    std::vector<Values> next;
    for (const auto& c : combos)
      for (size_t i = 0; i < a.values.size(); ++i) {
        next.push_back(c);
        next.back().emplace_back(a.key, a.values[i]);
        for (const auto& w : a.with) next.back().emplace_back(w.key, w.values[i]);
      }
    combos = std::move(next);
  }
  std::vector<Point> points;
  std::set<std::string> files;
  for (size_t i = 0; i < combos.size(); ++i) {
    Point p;
    p.index = static_cast<int>(i);
    p.values = std::move(combos[i]);
    p.file = point_file_name(p.values, base);
    if (!files.insert(p.file).second)
      bad_argument("--vary", "two points of the grid are identical: " + p.label());
    points.push_back(std::move(p));
  }
  return points;
}

}  // namespace fleetsim::sweep
