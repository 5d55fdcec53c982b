// Reading YAML safely: the file must exist, be UTF-8 text, not be empty, parse, and hold a
// mapping at the top. Every failure is a ConfigError naming the file (and line when known).
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

namespace fleetsim::config {

// Why `path` cannot be read as a scenario or preset file, or "" when it can: it must exist, be a
// regular file (not a directory, device, FIFO or socket, which could block or never end), have a
// name the system accepts, and be at most kMaxFileBytes long (sim/core/files.hpp).
std::string file_problem(const std::string& path);
inline constexpr std::size_t kMaxFileBytes = 4 * 1024 * 1024;

// Reads and parses a file. `referer`/`key` name who asked for it (for "not found" messages).
YAML::Node read_yaml_file(const std::string& path, const std::string& referer = "",
                          const std::string& key = "");

// Parses text (a --set value or a test document). `origin` names it in messages. CRLF line ends
// are read as LF.
YAML::Node parse_yaml_text(const std::string& text, const std::string& origin);

// Opt-in memo of YAML files, for the fuzz harnesses, which resolve the same presets and `extends:`
// targets millions of times: once on, a file that file_problem found readable and read_yaml_file
// parsed is kept in memory (at most 256 files), and later calls for that exact path answer from
// memory without a system call (read_yaml_file hands out a deep copy, so callers may edit it).
// The catalog's directory listings (catalog.hpp) are kept too. fleetsim itself never turns it
// on: a long-lived process (sweep, search) must see a file edited between two loads.
void keep_files_in_memory(bool on);
bool files_kept_in_memory();

// 1-based line of a node, or 0 when unknown.
int line_of(const YAML::Node& node);

// "list", "mapping", "scalar 'x'", "null" — for messages.
std::string kind_of(const YAML::Node& node);

}  // namespace fleetsim::config
