#include "sim/config/yaml_source.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/core/error.hpp"

namespace fleetsim::config {
namespace {

constexpr size_t kMaxFileBytes = 4 * 1024 * 1024;

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

}  // namespace

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

YAML::Node parse_yaml_text(const std::string& text, const std::string& origin) {
  if (size_t bad = first_non_text_byte(text); bad != std::string::npos)
    throw ConfigError(origin, "", "contains non-text bytes at offset " + std::to_string(bad) +
                                      "; a scenario must be UTF-8 text");
  try {
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw ConfigError(origin, "", "YAML syntax error: " + e.msg, e.mark.is_null() ? 0 : e.mark.line + 1);
  }
}

YAML::Node read_yaml_file(const std::string& path, const std::string& referer, const std::string& key) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    if (referer.empty()) throw ConfigError(path, "", "no such file");
    throw ConfigError(referer, key, "file '" + path + "' does not exist");
  }
  if (fs::is_directory(path, ec)) throw ConfigError(path, "", "is a directory, expected a YAML file");
  auto size = fs::file_size(path, ec);
  if (!ec && size > kMaxFileBytes)
    throw ConfigError(path, "", "is " + std::to_string(size) + " bytes; scenario files are limited to 4 MiB");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path, "", "cannot be read");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!has_content(text)) throw ConfigError(path, "", "is empty; expected a YAML mapping of scenario keys");
  YAML::Node node = parse_yaml_text(text, path);
  if (!node.IsMap())
    throw ConfigError(path, "", "top level is " + kind_of(node) + "; expected a mapping of keys", line_of(node));
  return node;
}

}  // namespace fleetsim::config
