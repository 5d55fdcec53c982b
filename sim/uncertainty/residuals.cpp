// The step model's residuals on the judged published cases (residuals.hpp).
#include "sim/uncertainty/residuals.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "sim/config/load.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/csv.hpp"
#include "sim/core/error.hpp"
#include "sim/core/paths.hpp"

namespace fleetsim::uncertainty {
namespace {

// The metrics sim/reproduce/step_case.cpp writes: one time metric, three rates proportional to 1/T.
bool is_time_metric(const std::string& m) { return m == "iteration time (ms)"; }
bool is_rate_metric(const std::string& m) {
  return m == "achieved TFLOP/s per GPU (eq. 3)" || m == "BF16 MFU (%)" || m == "tokens/s per GPU";
}

// Quotes a CSV field when it holds a comma or a quote (sim/core/csv.hpp reads it back).
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

bool is_judged_step_case(const ValidationCase& c) {
  return c.role == CaseRole::Judged && !c.scenario.empty() && c.published > 0 && c.predicted > 0 &&
         (is_time_metric(c.metric) || is_rate_metric(c.metric));
}

StepResidual step_residual(const ValidationCase& c) {
  StepResidual r;
  r.source = c.source;
  r.case_name = c.case_name;
  r.features = step_features(config::load_scenario(c.scenario, c.overrides));
  r.log_ratio = is_time_metric(c.metric) ? std::log(c.published / c.predicted) : std::log(c.predicted / c.published);
  return r;
}

std::vector<StepResidual> step_residuals(const std::vector<ValidationCase>& cases) {
  std::vector<StepResidual> out;
  for (const auto& c : cases)
    if (is_judged_step_case(c)) out.push_back(step_residual(c));
  return out;
}

std::string step_residuals_file() { return home_dir() + "/sim/uncertainty/data/step_residuals.csv"; }

std::vector<StepResidual> read_step_residuals(const std::string& path) {
  const CsvTable t = read_csv(path);
  t.require_columns({"source", "case", "gpu", "precision", "regime", "gpus", "params_b", "log_ratio"});
  std::vector<StepResidual> out;
  for (size_t i = 0; i < t.size(); ++i) {
    StepResidual r;
    r.source = t.at(i, "source");
    r.case_name = t.at(i, "case");
    r.features.gpu = t.at(i, "gpu");
    r.features.precision = t.at(i, "precision");
    r.features.regime = t.at(i, "regime");
    r.features.gpus = t.integer(i, "gpus");
    r.features.params_b = t.num(i, "params_b");
    r.log_ratio = t.num(i, "log_ratio");
    out.push_back(std::move(r));
  }
  return out;
}

const std::vector<StepResidual>& shipped_step_residuals() {
  static std::once_flag once;
  static std::vector<StepResidual> rows;
  std::call_once(once, [] { rows = read_step_residuals(step_residuals_file()); });
  return rows;
}

void write_step_residuals(const std::string& path, const std::vector<StepResidual>& rows) {
  write_file_atomically(path, "--write-residuals", "the residual table", [&](std::ostream& out) {
    out << "source,case,gpu,precision,regime,gpus,params_b,log_ratio\n";
    for (const auto& r : rows)
      out << csv_field(r.source) << ',' << csv_field(r.case_name) << ',' << csv_field(r.features.gpu) << ','
          << r.features.precision << ',' << r.features.regime << ',' << r.features.gpus << ','
          << number(r.features.params_b) << ',' << number(r.log_ratio) << '\n';
  });
}

}  // namespace fleetsim::uncertainty
