// One metric catalog (name, unit, description) feeds the JSON summary, the HDF5 file and the
// console table (STYLE.md, habit 6). Models fill a Report with values by catalog name; a name that
// is not in the catalog is a programming error and throws std::logic_error.
//
// Names are dotted paths that become nested JSON objects: "breakdown_s.compute" is written as
// {"breakdown_s": {"compute": ...}}. A statistic over replications is written as
// {"mean": .., "p05": .., "p95": ..}.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sim/results/json.hpp"

namespace fleetsim {

struct MetricDef {
  std::string_view name;         // dotted path; a trailing ".*" matches any one key (by-cause maps)
  std::string_view unit;         // "s", "GiB", "1" for ratios, "count", ...
  std::string_view description;  // one line
};

// Each module declares its metrics next to its model and returns them here.
const std::vector<MetricDef>& step_metric_defs();
const std::vector<MetricDef>& run_metric_defs();
const std::vector<MetricDef>& facility_metric_defs();
const std::vector<MetricDef>& pool_metric_defs();
const std::vector<MetricDef>& power_dynamics_metric_defs();  // facility.power_dynamics.* (issue #29)
// All of the above; looked up by name.
const MetricDef& metric_def(std::string_view name);

struct Stat {
  double mean = 0.0, p05 = 0.0, p95 = 0.0;
};
// Mean and 5th/95th percentiles (linear interpolation between order statistics).
Stat summarize(std::vector<double> samples);

class Report {
 public:
  using Value = std::variant<double, Stat, bool, std::string>;
  struct Entry {
    std::string name;
    Value value;
    const MetricDef* def;
  };

  void add(std::string_view name, double value);
  void add(std::string_view name, Stat value);
  void add(std::string_view name, bool value);
  void add(std::string_view name, std::string value);
  // Prefixes every name added after it (e.g. "step." when a run nests the step summary).
  void set_prefix(std::string prefix) { prefix_ = std::move(prefix); }

  [[nodiscard]] const std::vector<Entry>& entries() const { return entries_; }
  [[nodiscard]] Json to_json() const;
  // A readable two-column table: description, value with unit; only names starting with `prefix`.
  void print_table(std::ostream& out, std::string_view prefix = "") const;

 private:
  void push(std::string_view name, Value v);
  std::string prefix_;
  std::vector<Entry> entries_;
};

}  // namespace fleetsim
