// The results file: one HDF5 file per run, written to a temporary name and renamed when
// complete, so an interrupted run never leaves a truncated result (OMNeT++'s habit: every result
// file records its config, seed and version).
//
// Schema (version 1):
//   /meta              attributes: schema_version, fleetsim_version, git_revision, scenario_file,
//                      seed, replications, command; dataset resolved_scenario (the merged YAML)
//   /metrics/...       one scalar dataset per summary metric (nested groups follow the dotted
//                      name); statistics as a 3-vector [mean, p05, p95]; attributes unit, description
//                      (and, from `fleetsim run`, interval_lo/_hi/_level on the headline values and
//                      provenance_grade/_why/_sources on the step and run groups: sim/uncertainty)
//   /<table>/<column>  1-D datasets of equal length (replications, events, timeseries, ...),
//                      each with unit and description attributes
#pragma once

#include "sim/core/atomic_file.hpp"

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "sim/results/report.hpp"

namespace fleetsim {

struct Column {
  std::string name;
  std::string unit;
  std::string description;
  std::variant<std::vector<double>, std::vector<std::string>> values;
};

struct RunMeta {
  std::string scenario_file;
  std::string resolved_scenario;
  unsigned long long seed = 0;
  int replications = 0;
  std::string command;
};

class ResultsFile {
 public:
  // `option` names the path in messages ("-o"); the path is checked and written as
  // sim/core/atomic_file.hpp says (never renamed over a FIFO, device or directory).
  explicit ResultsFile(std::string path, std::string option = "-o");
  ~ResultsFile();
  ResultsFile(const ResultsFile&) = delete;
  ResultsFile& operator=(const ResultsFile&) = delete;

  void write_meta(const RunMeta& meta);
  void write_metrics(const Report& report);
  void write_table(const std::string& table, const std::vector<Column>& columns, const std::string& description);
  // Attributes on a metric written by write_metrics (dotted name: a dataset, or a group such as
  // "step"), e.g. its interval beside the value (sim/uncertainty): number, or text.
  void metric_attribute(const std::string& dotted, const std::string& name, double value);
  void metric_attribute(const std::string& dotted, const std::string& name, const std::string& value);
  // Closes the file and renames it into place. Without commit() the temporary file is removed.
  void commit();

  static constexpr int kSchemaVersion = 1;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::unique_ptr<AtomicFile> file_;
};

}  // namespace fleetsim
