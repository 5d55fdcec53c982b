// The scenario schema: every key a scenario or preset may hold, with its type, unit dimension,
// default, range and one-line doc (SST's habit: parameters are declared next to their model and
// a command prints them all — `fleetsim describe`).
#pragma once

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "sim/units/parse.hpp"

namespace fleetsim::config {

enum class FieldType {
  Quantity,     // number with a unit of `dim`; `choices` may list words accepted instead ("daly")
  Temperature,  // "25 degC"
  Integer,
  Real,         // dimensionless; "50 %" accepted
  Bool,
  Choice,       // one of `choices`
  Text,
  IntList,      // [7, 8, 8]
  Preset,       // a catalog entry of `preset_kind`: name, path, or {preset: name, overrides...}
  Section,      // a nested mapping of `section` fields
  Table,        // a list of mappings, each with the fields of `section`
};

struct Schema;

struct Field {
  std::string name;
  FieldType type = FieldType::Text;
  units::DimVec dim{};
  std::string default_text;                 // as a user would write it; empty + required = must be given
  bool required = false;
  std::string doc;
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;               // value must be > min (e.g. bandwidth > 0)
  std::vector<std::string> choices;
  std::string preset_kind;                  // catalog folder under models/: gpus, nodes, ...
  std::string selector = "preset";          // the key that names the preset inside a mapping
  std::shared_ptr<const Schema> section;    // for Section and Table; for Preset the kind's schema
};

struct Schema {
  std::string name;                         // "gpu", "scenario", ...
  std::string doc;
  std::vector<Field> fields;
  [[nodiscard]] const Field* find(const std::string& key) const;
  [[nodiscard]] std::vector<std::string> keys() const;
};

// Builders that keep schema declarations one line per field.
Field quantity(std::string name, units::DimVec dim, std::string def, std::string doc,
               double min = 0.0, bool min_exclusive = true);
Field temperature(std::string name, std::string def, std::string doc);
Field integer(std::string name, std::string def, std::string doc, double min = 1,
              double max = std::numeric_limits<double>::infinity());
Field real(std::string name, std::string def, std::string doc, double min = 0.0,
           double max = std::numeric_limits<double>::infinity(), bool min_exclusive = false);
Field boolean(std::string name, std::string def, std::string doc);
Field choice(std::string name, std::vector<std::string> choices, std::string def, std::string doc);
Field text(std::string name, std::string def, std::string doc);
Field int_list(std::string name, std::string doc);
Field preset(std::string name, std::string kind, std::string doc, std::string selector = "preset");
Field section(std::string name, std::shared_ptr<const Schema> schema, std::string doc);
Field table(std::string name, std::shared_ptr<const Schema> row, std::string doc);

template <class Q>
units::DimVec dim() { return units::dim_of<Q>(); }

// The schema of each catalog kind (gpus, nodes, fabrics, cooling, failures, workloads) and of a
// whole scenario. Defined in scenario_schema.cpp.
std::shared_ptr<const Schema> kind_schema(const std::string& kind);
std::shared_ptr<const Schema> scenario_schema();
std::shared_ptr<const Schema> software_schema();  // software_schema.cpp
const std::vector<std::string>& catalog_kinds();

}  // namespace fleetsim::config
