// A small JSON reader (json_reader.hpp): recursive descent over RFC 8259's grammar.
#include "sim/calibrate/json_reader.hpp"

#include <cctype>
#include <cstdlib>

#include "sim/core/error.hpp"

namespace fleetsim::calibrate {
namespace {

constexpr int kMaxDepth = 512;

struct Parser {
  std::string_view s;
  const std::string& file;
  size_t i = 0;

  [[noreturn]] void fail(const std::string& what) const {
    throw ConfigError(file, "", (i >= s.size() ? "truncated JSON at byte " : "malformed JSON at byte ") +
                                    std::to_string(i) + ": " + what + " (an empty, cut-off or corrupt trace)");
  }
  void ws() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) ++i;
  }
  char peek() {
    ws();
    if (i >= s.size()) fail("unexpected end");
    return s[i];
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++i;
  }
  void literal(std::string_view w) {
    if (s.substr(i, w.size()) != w) fail("expected " + std::string(w));
    i += w.size();
  }
  void utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) out += static_cast<char>(cp);
    else if (cp < 0x800) out += static_cast<char>(0xC0 | (cp >> 6)), out += static_cast<char>(0x80 | (cp & 0x3F));
    else if (cp < 0x10000)
      out += static_cast<char>(0xE0 | (cp >> 12)), out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F)),
          out += static_cast<char>(0x80 | (cp & 0x3F));
    else
      out += static_cast<char>(0xF0 | (cp >> 18)), out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F)),
          out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F)), out += static_cast<char>(0x80 | (cp & 0x3F));
  }
  unsigned hex4() {
    if (i + 4 > s.size()) fail("truncated \\u escape");
    unsigned v = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s[i++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<unsigned>(c - 'A' + 10);
      else fail("bad \\u escape");
    }
    return v;
  }
  std::string string() {
    expect('"');
    std::string out;
    while (true) {
      if (i >= s.size()) fail("unterminated string");
      const char c = s[i++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i >= s.size()) fail("unterminated escape");
      switch (const char e = s[i++]) {
        case '"': case '\\': case '/': out += e; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && s.substr(i, 2) == "\\u") {
            i += 2;
            const unsigned lo = hex4();
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          utf8(out, cp);
          break;
        }
        default: fail("bad escape");
      }
    }
  }
  JsonNode value(int depth) {
    if (depth > kMaxDepth) fail("nesting deeper than 512");
    JsonNode n;
    const char c = peek();
    if (c == '{') {
      n.type = JsonNode::Type::Object;
      ++i;
      if (peek() == '}') return ++i, n;
      while (true) {
        std::string key = string();
        expect(':');
        n.fields.emplace_back(std::move(key), value(depth + 1));
        if (peek() == ',') { ++i; continue; }
        expect('}');
        return n;
      }
    }
    if (c == '[') {
      n.type = JsonNode::Type::Array;
      ++i;
      if (peek() == ']') return ++i, n;
      while (true) {
        n.items.push_back(value(depth + 1));
        if (peek() == ',') { ++i; continue; }
        expect(']');
        return n;
      }
    }
    if (c == '"') {
      n.type = JsonNode::Type::String;
      n.text = string();
      return n;
    }
    if (c == 't') return literal("true"), n.type = JsonNode::Type::Bool, n.boolean = true, n;
    if (c == 'f') return literal("false"), n.type = JsonNode::Type::Bool, n;
    if (c == 'n') return literal("null"), n;
    // A number: strtod on a bounded copy (the view is not NUL-terminated).
    size_t j = i;
    while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '-' || s[j] == '+' ||
                            s[j] == '.' || s[j] == 'e' || s[j] == 'E'))
      ++j;
    if (j == i) fail(std::string("unexpected '") + c + "'");
    const std::string num(s.substr(i, j - i));
    char* end = nullptr;
    n.number = std::strtod(num.c_str(), &end);
    if (end != num.c_str() + num.size()) fail("bad number '" + num + "'");
    n.type = JsonNode::Type::Number;
    i = j;
    return n;
  }
};

}  // namespace

const JsonNode* JsonNode::find(std::string_view key) const {
  if (type != Type::Object) return nullptr;
  for (const auto& [k, v] : fields)
    if (k == key) return &v;
  return nullptr;
}

JsonNode parse_json(std::string_view text, const std::string& file) {
  Parser p{text, file};
  JsonNode root = p.value(0);
  p.ws();
  if (p.i != text.size()) p.fail("text after the document");
  return root;
}

}  // namespace fleetsim::calibrate
