// A user's measured runs as resolved scenarios (measurements.hpp).
#include "sim/calibrate/measurements.hpp"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>

#include "sim/config/scenario_tree.hpp"
#include "sim/core/cli_guards.hpp"
#include "sim/core/csv.hpp"
#include "sim/core/error.hpp"
#include "sim/step/step_model.hpp"
#include "sim/workload/parameters.hpp"

namespace fleetsim::calibrate {
namespace {

const char* const kMeasuredColumns[] = {"step_time_s", "tokens_per_s_per_gpu", "mfu"};
constexpr const char* kValidMeasured = "step_time_s (s), tokens_per_s_per_gpu or mfu (a fraction, 0 < mfu <= 1)";

struct RawCsv {
  std::vector<std::string> header;
  int header_line = 0;
  std::vector<std::vector<std::string>> rows;
  std::vector<int> lines;
};

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

// The file as rows of fields: '#' lines and blank lines skipped, a field-count mismatch refused.
RawCsv read_raw(const std::string& path) {
  guards::input_file(path, "MEASUREMENTS.csv", "a measurements CSV file", 16u << 20);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path, "", "cannot read the measurements file");
  RawCsv t;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (n == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    auto fields = split_csv_line(line);
    for (auto& f : fields) f = trim(f);
    if (t.header.empty()) {
      t.header = std::move(fields);
      t.header_line = n;
      continue;
    }
    if (fields.size() != t.header.size())
      throw ConfigError(path, "", "row " + std::to_string(t.rows.size() + 1) + " has " + std::to_string(fields.size()) +
                                      " fields but the header has " + std::to_string(t.header.size()) +
                                      " (a truncated or misquoted row)",
                        n);
    if (t.rows.size() >= static_cast<size_t>(kMaxMeasuredRows))
      throw ConfigError(path, "", "more than " + std::to_string(kMaxMeasuredRows) + " measured rows", n);
    t.rows.push_back(std::move(fields));
    t.lines.push_back(n);
  }
  if (t.header.empty())
    throw ConfigError(path, "", "the measurements file is empty; expected a header of scenario keys and one measured "
                                "column (" + std::string(kValidMeasured) + "), then one row per measured run");
  if (t.rows.empty()) throw ConfigError(path, "", "the measurements file has a header but no measured rows", t.header_line);
  return t;
}

// A strictly positive finite number, the whole cell.
bool positive_number(const std::string& s, double& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(out) && out > 0;
}

// The column a ConfigError from resolving a row is about: the key it names, or the `--set` it
// came from, matched against the row's columns; "" when the message concerns no single column.
std::string column_of(const ConfigError& e, const std::vector<std::string>& columns) {
  std::string key = e.key();
  const std::string& file = e.file();
  if (file.rfind("--set ", 0) == 0) key = file.substr(6, file.find('=') - 6);
  std::string best;
  for (const auto& c : columns)
    if ((key == c || key.rfind(c + ".", 0) == 0 || c.rfind(key + ".", 0) == 0) && c.size() > best.size()) best = c;
  return best.empty() ? key : best;
}

}  // namespace

const char* measured_name(Measured m) {
  switch (m) {
    case Measured::StepTime: return "step_time_s";
    case Measured::TokensPerGpuSecond: return "tokens_per_s_per_gpu";
    case Measured::Mfu: return "mfu";
  }
  return "step_time_s";
}

int Measurements::calibration_rows() const {
  int n = 0;
  for (const auto& r : rows) n += r.judged ? 0 : 1;
  return n;
}
int Measurements::judged_rows() const { return static_cast<int>(rows.size()) - calibration_rows(); }

Measurements read_measurements(const std::string& path, const std::string& base) {
  const RawCsv raw = read_raw(path);
  Measurements m;
  m.path = path;
  m.base = base;
  int measured_col = -1, role_col = -1;
  std::set<std::string> seen;
  for (size_t k = 0; k < raw.header.size(); ++k) {
    const std::string& h = raw.header[k];
    if (h.empty()) throw ConfigError(path, "", "column " + std::to_string(k + 1) + " has no name", raw.header_line);
    if (!seen.insert(h).second) throw ConfigError(path, h, "the column appears twice", raw.header_line);
    bool is_measured = false;
    for (int j = 0; j < 3; ++j)
      if (h == kMeasuredColumns[j]) {
        if (measured_col >= 0)
          throw ConfigError(path, h, "a second measured column (the first is '" + raw.header[measured_col] +
                                         "'); give one of " + kValidMeasured + " per file",
                            raw.header_line);
        measured_col = static_cast<int>(k);
        m.metric = static_cast<Measured>(j);
        is_measured = true;
      }
    if (is_measured) continue;
    if (h == "role") role_col = static_cast<int>(k);
    else m.columns.push_back(h);
  }
  if (measured_col < 0)
    throw ConfigError(path, "", "no measured column; add one of " + std::string(kValidMeasured) +
                                    " (the other columns are scenario keys as --set takes them)",
                      raw.header_line);

  const config::ScenarioTree tree = config::read_scenario_tree(base);
  for (size_t i = 0; i < raw.rows.size(); ++i) {
    const auto& f = raw.rows[i];
    MeasuredRow r;
    r.number = static_cast<int>(i) + 1;
    r.line = raw.lines[i];
    const std::string where = "row " + std::to_string(r.number) + ": ";
    const std::string& mv = f[static_cast<size_t>(measured_col)];
    if (!positive_number(mv, r.measured))
      throw ConfigError(path, raw.header[static_cast<size_t>(measured_col)],
                        where + "measured value '" + mv + "' is not a positive number", r.line);
    if (m.metric == Measured::Mfu && r.measured > 1)
      throw ConfigError(path, "mfu", where + "MFU " + mv + " is above 1; give it as a fraction (0.42, not 42)", r.line);
    if (role_col >= 0) {
      const std::string& role = f[static_cast<size_t>(role_col)];
      if (role == "judged") r.judged = true;
      else if (role != "calibration" && !role.empty())
        throw ConfigError(path, "role", where + "role '" + role + "' is neither calibration nor judged", r.line);
    }
    for (size_t k = 0; k < raw.header.size(); ++k) {
      if (static_cast<int>(k) == measured_col || static_cast<int>(k) == role_col) continue;
      if (f[k].empty()) throw ConfigError(path, raw.header[k], where + "empty value", r.line);
      r.sets.push_back(raw.header[k] + "=" + f[k]);
    }
    try {
      r.scenario = config::apply_sets(tree, r.sets);
      // The measured figure as an iteration time: tokens per iteration and model FLOPs do not depend
      // on the fitted efficiencies, so one evaluation at the preset converts it.
      const StepResult at_preset = evaluate_step(r.scenario.cluster, r.scenario.workload);
      const double gpus = r.scenario.cluster.gpus;
      switch (m.metric) {
        case Measured::StepTime: r.measured_time_s = r.measured; break;
        case Measured::TokensPerGpuSecond: r.measured_time_s = at_preset.tokens_per_iteration.si() / (r.measured * gpus); break;
        case Measured::Mfu: r.measured_time_s = at_preset.iteration_time.si() * at_preset.mfu / r.measured; break;
      }
      if (!(r.measured_time_s > 0) || !std::isfinite(r.measured_time_s))
        throw InfeasibleError("the row's iteration does no work (no tokens or FLOPs to convert the measured value)");
    } catch (const ConfigError& e) {
      const std::string col = column_of(e, m.columns);
      throw ConfigError(path, col, where + e.message(), r.line);
    } catch (const InfeasibleError& e) {
      throw ConfigError(path, "", where + "the layout cannot run: " + e.what(), r.line);
    }
    r.params_b = parameter_count(r.scenario.workload.model) / 1e9;
    m.rows.push_back(std::move(r));
  }
  if (m.calibration_rows() == 0)
    throw ConfigError(path, "role", "every row is judged; at least one row must have role calibration (or no role)");
  return m;
}

}  // namespace fleetsim::calibrate
