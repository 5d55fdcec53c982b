// A small JSON value with ordered keys and a deterministic writer.
//
// Numbers are printed in the shortest form that reads back to the same double, so the same
// scenario and seed give byte-identical output (DESIGN.md §5). Non-finite numbers are refused:
// a NaN in a result is a bug upstream, never something to print.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace fleetsim {

class Json {
 public:
  using Object = std::vector<std::pair<std::string, Json>>;
  using Array = std::vector<Json>;

  Json() = default;                                   // null
  Json(std::nullptr_t) {}
  Json(bool b) : v_(b) {}
  Json(int i) : v_(static_cast<double>(i)) {}
  Json(long i) : v_(static_cast<double>(i)) {}
  Json(long long i) : v_(static_cast<double>(i)) {}
  Json(unsigned long long i) : v_(static_cast<double>(i)) {}
  Json(double d) : v_(d) {}
  Json(const char* s) : v_(std::string(s)) {}
  Json(std::string s) : v_(std::move(s)) {}
  Json(Array a) : v_(std::move(a)) {}
  Json(Object o) : v_(std::move(o)) {}

  static Json object() { return Json(Object{}); }
  static Json array() { return Json(Array{}); }

  // Object access: inserts the key (keeping insertion order) when missing.
  Json& operator[](const std::string& key);
  // Sets a value at a dotted path ("run.ettr.mean"), creating objects on the way.
  void set_path(const std::string& dotted, Json value);
  void push_back(Json value);

  [[nodiscard]] bool is_object() const { return std::holds_alternative<Object>(v_); }
  [[nodiscard]] bool is_null() const { return std::holds_alternative<std::monostate>(v_); }
  [[nodiscard]] const Object& as_object() const { return std::get<Object>(v_); }
  [[nodiscard]] bool is_array() const { return std::holds_alternative<Array>(v_); }
  [[nodiscard]] Array& as_array() { return std::get<Array>(v_); }  // to annotate elements in place

  [[nodiscard]] std::string dump(int indent = 2) const;

 private:
  void write(std::string& out, int indent, int depth) const;
  std::variant<std::monostate, bool, double, std::string, Array, Object> v_;
};

std::string json_escape(const std::string& s);
std::string json_number(double d);

}  // namespace fleetsim
