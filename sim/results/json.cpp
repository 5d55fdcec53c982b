#include "sim/results/json.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace fleetsim {

Json& Json::operator[](const std::string& key) {
  if (is_null()) v_ = Object{};
  auto& obj = std::get<Object>(v_);
  for (auto& [k, v] : obj)
    if (k == key) return v;
  obj.emplace_back(key, Json());
  return obj.back().second;
}

void Json::set_path(const std::string& dotted, Json value) {
  Json* node = this;
  size_t start = 0;
  while (true) {
    size_t dot = dotted.find('.', start);
    if (dot == std::string::npos) {
      (*node)[dotted.substr(start)] = std::move(value);
      return;
    }
    node = &(*node)[dotted.substr(start, dot - start)];
    start = dot + 1;
  }
}

void Json::push_back(Json value) {
  if (is_null()) v_ = Array{};
  std::get<Array>(v_).push_back(std::move(value));
}

std::string json_escape(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string json_number(double d) {
  if (!std::isfinite(d)) throw std::logic_error("non-finite number in a JSON result");
  if (d == std::floor(d) && std::fabs(d) < 1e15) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", d);
    return buf;
  }
  char buf[32];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, d);
  return std::string(buf, ptr);
}

void Json::write(std::string& out, int indent, int depth) const {
  auto newline = [&](int d) {
    if (indent <= 0) return;
    out += '\n';
    out.append(static_cast<size_t>(indent * d), ' ');
  };
  if (std::holds_alternative<std::monostate>(v_)) {
    out += "null";
  } else if (auto* b = std::get_if<bool>(&v_)) {
    out += *b ? "true" : "false";
  } else if (auto* d = std::get_if<double>(&v_)) {
    out += json_number(*d);
  } else if (auto* s = std::get_if<std::string>(&v_)) {
    out += json_escape(*s);
  } else if (auto* a = std::get_if<Array>(&v_)) {
    out += '[';
    for (size_t i = 0; i < a->size(); ++i) {
      if (i) out += ',';
      newline(depth + 1);
      (*a)[i].write(out, indent, depth + 1);
    }
    if (!a->empty()) newline(depth);
    out += ']';
  } else {
    const auto& o = std::get<Object>(v_);
    out += '{';
    for (size_t i = 0; i < o.size(); ++i) {
      if (i) out += ',';
      newline(depth + 1);
      out += json_escape(o[i].first);
      out += indent > 0 ? ": " : ":";
      o[i].second.write(out, indent, depth + 1);
    }
    if (!o.empty()) newline(depth);
    out += '}';
  }
}

std::string Json::dump(int indent) const {
  std::string out;
  write(out, indent, 0);
  return out;
}

}  // namespace fleetsim
