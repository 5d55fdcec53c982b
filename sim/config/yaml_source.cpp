#include "sim/config/yaml_source.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/core/files.hpp"

namespace fleetsim::config {
namespace {

// Returns the offset of the first byte that is not valid UTF-8 text (or a NUL), or npos.
size_t first_non_text_byte(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c == 0) return i;
    if (c < 0x80) { ++i; continue; }
    int extra = (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xE ? 2 : (c >> 3) == 0x1E ? 3 : -1;
    if (extra < 0) return i;
    for (int k = 1; k <= extra; ++k) {
      if (i + k >= s.size() || (static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return i;
    }
    i += extra + 1;
  }
  return std::string::npos;
}

bool has_content(const std::string& s) {
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line)) {
    size_t p = line.find_first_not_of(" \t\r");
    if (p != std::string::npos && line[p] != '#' && line.compare(p, 3, "---") != 0) return true;
  }
  return false;
}

// CRLF (Windows) line ends become LF, so no key or value carries a stray carriage return.
std::string without_crlf(const std::string& text) {
  if (text.find('\r') == std::string::npos) return text;
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i)
    if (!(text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n')) out.push_back(text[i]);
  return out;
}

// Reads at most kMaxFileBytes + 1 bytes, so a file that grows while being read cannot exhaust memory.
std::string read_bounded(std::ifstream& in) {
  std::string text;
  char buf[65536];
  while (text.size() <= kMaxFileBytes && in.read(buf, sizeof buf).gcount() > 0)
    text.append(buf, static_cast<size_t>(in.gcount()));
  return text;
}

// keep_files_in_memory: the parsed files, by the path they were asked for.
bool g_keep_files = false;
constexpr std::size_t kMaxKeptFiles = 256;
std::map<std::string, YAML::Node>& kept_files() {
  static std::map<std::string, YAML::Node> files;
  return files;
}

}  // namespace

void keep_files_in_memory(bool on) {
  g_keep_files = on;
  if (!on) kept_files().clear();
}

bool files_kept_in_memory() { return g_keep_files; }

std::string file_problem(const std::string& path) {
  if (g_keep_files && kept_files().count(path)) return "";
  return fleetsim::file_problem(path, kMaxFileBytes, "a YAML file");
}

int line_of(const YAML::Node& node) {
  if (!node.IsDefined()) return 0;
  YAML::Mark m = node.Mark();
  return m.is_null() ? 0 : m.line + 1;
}

std::string kind_of(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing (null)";
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a mapping";
  return "the scalar '" + node.Scalar() + "'";
}

YAML::Node parse_yaml_text(const std::string& raw, const std::string& origin) {
  const std::string text = without_crlf(raw);
  if (size_t bad = first_non_text_byte(text); bad != std::string::npos) {
    const size_t line_start = bad == 0 ? std::string::npos : text.rfind('\n', bad - 1);
    const size_t column = line_start == std::string::npos ? bad + 1 : bad - line_start;
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(bad), '\n'));
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(text[bad]));
    throw ConfigError(origin, "", "byte " + std::string(byte) + " at column " + std::to_string(column) +
                                      " is not UTF-8 text; a scenario must be UTF-8 text", line);
  }
  try {
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw ConfigError(origin, "", "YAML syntax error: " + e.msg, e.mark.is_null() ? 0 : e.mark.line + 1);
  } catch (const YAML::Exception& e) {
    throw ConfigError(origin, "", "YAML error: " + e.msg, e.mark.is_null() ? 0 : e.mark.line + 1);
  }
}

YAML::Node read_yaml_file(const std::string& path, const std::string& referer, const std::string& key) {
  if (g_keep_files) {
    if (auto it = kept_files().find(path); it != kept_files().end()) return YAML::Clone(it->second);
  }
  if (const std::string problem = file_problem(path); !problem.empty()) {
    if (!referer.empty()) throw ConfigError(referer, key, "file '" + path + "' " + problem);
    throw ConfigError(path, "", problem == "does not exist" ? "no such file" : problem);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path, "", "cannot be read");
  const std::string text = read_bounded(in);
  if (in.bad()) throw ConfigError(path, "", "cannot be read (I/O error)");
  if (text.size() > kMaxFileBytes) throw ConfigError(path, "", "grew past 4 MiB while being read");
  if (!has_content(text)) throw ConfigError(path, "", "is empty; expected a YAML mapping of scenario keys");
  YAML::Node node = parse_yaml_text(text, path);
  if (!node.IsMap())
    throw ConfigError(path, "", "top level is " + kind_of(node) + "; expected a mapping of keys", line_of(node));
  if (g_keep_files && kept_files().size() < kMaxKeptFiles) kept_files().emplace(path, YAML::Clone(node));
  return node;
}

}  // namespace fleetsim::config
