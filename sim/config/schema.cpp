#include "sim/config/schema.hpp"

namespace fleetsim::config {

const Field* Schema::find(const std::string& key) const {
  for (const auto& f : fields)
    if (f.name == key) return &f;
  return nullptr;
}

std::vector<std::string> Schema::keys() const {
  std::vector<std::string> out;
  for (const auto& f : fields) out.push_back(f.name);
  return out;
}

namespace {
Field make(std::string name, FieldType type, std::string def, std::string doc) {
  Field f;
  f.name = std::move(name);
  f.type = type;
  f.default_text = std::move(def);
  f.required = f.default_text.empty();
  f.doc = std::move(doc);
  return f;
}
}  // namespace

Field quantity(std::string name, units::DimVec d, std::string def, std::string doc, double min,
               bool min_exclusive) {
  Field f = make(std::move(name), FieldType::Quantity, std::move(def), std::move(doc));
  f.dim = d;
  f.min = min;
  f.min_exclusive = min_exclusive;
  return f;
}
Field temperature(std::string name, std::string def, std::string doc) {
  return make(std::move(name), FieldType::Temperature, std::move(def), std::move(doc));
}
Field integer(std::string name, std::string def, std::string doc, double min, double max) {
  Field f = make(std::move(name), FieldType::Integer, std::move(def), std::move(doc));
  f.min = min;
  f.max = max;
  return f;
}
Field real(std::string name, std::string def, std::string doc, double min, double max, bool min_exclusive) {
  Field f = make(std::move(name), FieldType::Real, std::move(def), std::move(doc));
  f.min = min;
  f.max = max;
  f.min_exclusive = min_exclusive;
  return f;
}
Field boolean(std::string name, std::string def, std::string doc) {
  return make(std::move(name), FieldType::Bool, std::move(def), std::move(doc));
}
Field choice(std::string name, std::vector<std::string> choices, std::string def, std::string doc) {
  Field f = make(std::move(name), FieldType::Choice, std::move(def), std::move(doc));
  f.choices = std::move(choices);
  return f;
}
Field text(std::string name, std::string def, std::string doc) {
  Field f = make(std::move(name), FieldType::Text, std::move(def), std::move(doc));
  f.required = false;
  return f;
}
Field int_list(std::string name, std::string doc) {
  Field f = make(std::move(name), FieldType::IntList, "", std::move(doc));
  f.required = false;
  return f;
}
Field preset(std::string name, std::string kind, std::string doc, std::string selector) {
  Field f = make(std::move(name), FieldType::Preset, "", std::move(doc));
  f.preset_kind = kind;
  f.selector = std::move(selector);
  f.section = kind_schema(kind);
  return f;
}
Field section(std::string name, std::shared_ptr<const Schema> schema, std::string doc) {
  Field f = make(std::move(name), FieldType::Section, "", std::move(doc));
  f.required = false;
  f.section = std::move(schema);
  return f;
}
Field table(std::string name, std::shared_ptr<const Schema> row, std::string doc) {
  Field f = make(std::move(name), FieldType::Table, "", std::move(doc));
  f.section = std::move(row);
  return f;
}

}  // namespace fleetsim::config
