// A small JSON reader for profiler traces (RFC 8259): a whole document into a tree, with the byte
// offset of the first error. Enough for Kineto's Chrome-trace files; the project's JSON writer
// (sim/results/json.hpp) only writes.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fleetsim::calibrate {

struct JsonNode {
  enum class Type { Null, Bool, Number, String, Array, Object };
  Type type = Type::Null;
  bool boolean = false;
  double number = 0;
  std::string text;
  std::vector<JsonNode> items;                          // Array
  std::vector<std::pair<std::string, JsonNode>> fields;  // Object, in file order
  // The field `key` of an object, or null (not an object, or no such field).
  [[nodiscard]] const JsonNode* find(std::string_view key) const;
  [[nodiscard]] bool is_number() const { return type == Type::Number; }
};

// Parses `text`; throws ConfigError naming `file` and the byte offset of a malformed or truncated
// document (nesting deeper than 512 is refused as malformed).
[[nodiscard]] JsonNode parse_json(std::string_view text, const std::string& file);

}  // namespace fleetsim::calibrate
