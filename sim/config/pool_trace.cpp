#include "sim/config/pool_trace.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "sim/core/checked.hpp"
#include "sim/core/csv.hpp"
#include "sim/core/error.hpp"
#include "sim/core/limits.hpp"
#include "sim/pool/workload.hpp"

namespace fleetsim::config {

void read_demand_trace(InferenceGroup& g, const std::string& time_column, const std::string& value_column, bool in_gpus,
                       double scale, const std::string& scenario, const std::string& key) {
  namespace fs = std::filesystem;
  fs::path p(g.trace);
  std::error_code ec;
  if (p.is_relative() && !fs::exists(p, ec) && !scenario.empty() && scenario[0] != '-')
    p = fs::path(scenario).parent_path() / p;
  if (!fs::exists(p, ec))
    throw ConfigError(scenario, key, "demand trace '" + g.trace + "' not found (looked in the working directory and at '" +
                                         p.string() + "')");
  const CsvTable t = read_csv(p.string());
  t.require_columns({time_column, value_column});
  if (t.size() < 2)
    throw ConfigError(t.path, time_column, "a demand trace needs at least 2 rows (its step sets the repeat period)",
                      t.row_lines.empty() ? 1 : t.row_lines[0]);
  g.trace_t.clear();
  g.trace_value.clear();
  for (size_t r = 0; r < t.size(); ++r) {
    const double time = t.num(r, time_column), v = t.num(r, value_column);
    if (time < 0 || (r > 0 && time <= g.trace_t.back()))
      throw ConfigError(t.path, time_column, "times must start at >= 0 s and increase row by row, got " + t.at(r, time_column),
                        t.row_lines[r]);
    if (v < 0)
      throw ConfigError(t.path, value_column, "demand must be >= 0 " + std::string(in_gpus ? "GPUs" : "replicas") + ", got " +
                                                  t.at(r, value_column), t.row_lines[r]);
    // Checked here, once, so that replicas_needed's conversion to int cannot overflow (issue 40).
    (void)input_integer<int>(std::ceil(v * scale / (in_gpus ? std::max(1, g.replica_gpus) : 1) - 1e-9), t.path, value_column,
                             std::string("the demand x demand_scale in replicas (") + t.at(r, value_column) + ")", 0,
                             static_cast<double>(limits::kMaxGpus));
    g.trace_t.push_back(time);
    g.trace_value.push_back(v);
  }
  const size_t n = g.trace_t.size();
  g.trace_period_s = g.trace_t[n - 1] + (g.trace_t[n - 1] - g.trace_t[n - 2]);
  g.trace_scale = scale;
  g.trace_in_gpus = in_gpus;
  g.trace = p.string();
  // Shift so the trace starts at 0 (its first row holds until the second).
  const double t0 = g.trace_t[0];
  for (double& x : g.trace_t) x -= t0;
  g.trace_period_s -= t0;
  int peak = 0;
  for (double time : g.trace_t) peak = std::max(peak, pool::replicas_needed(g, time));
  g.peak_replicas = peak;
}

}  // namespace fleetsim::config
