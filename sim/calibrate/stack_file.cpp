// The software file `fleetsim calibrate` writes (stack_file.hpp).
#include "sim/calibrate/stack_file.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "sim/core/error.hpp"
#include "sim/uncertainty/features.hpp"

namespace fleetsim::calibrate {
namespace {

Json pair(double a, double b) {
  Json j = Json::array();
  j.push_back(a);
  j.push_back(b);
  return j;
}

// The measured range of the calibration rows: what a prediction made with the file is inside of.
Json range_json(const Measurements& m) {
  int gmin = 0, gmax = 0;
  double pmin = 0, pmax = 0;
  std::set<std::string> precisions;
  bool first = true;
  for (const auto& r : m.rows) {
    if (r.judged) continue;
    const int g = r.scenario.cluster.gpus;
    gmin = first ? g : std::min(gmin, g);
    gmax = first ? g : std::max(gmax, g);
    pmin = first ? r.params_b : std::min(pmin, r.params_b);
    pmax = first ? r.params_b : std::max(pmax, r.params_b);
    precisions.insert(uncertainty::precision_name(r.scenario.workload.training.precision));
    first = false;
  }
  Json j = Json::object();
  j["gpu"] = m.rows.front().scenario.cluster.gpu.name;
  j["gpus"] = pair(gmin, gmax);
  j["params_b"] = pair(pmin, pmax);
  Json p = Json::array();
  for (const auto& s : precisions) p.push_back(s);
  j["precision"] = p;
  return j;
}

// Block YAML from the JSON tree: maps as blocks, a list of maps as "- {flow map}", scalars and
// lists of scalars in flow style (JSON's scalars and flow collections are valid YAML).
void emit(std::string& out, const Json& j, int depth) {
  const std::string pad(static_cast<size_t>(2 * depth), ' ');
  for (const auto& [k, v] : j.as_object()) {
    if (v.is_object() && !v.as_object().empty()) {
      out += pad + k + ":\n";
      emit(out, v, depth + 1);
    } else if (v.is_array() && !const_cast<Json&>(v).as_array().empty() && const_cast<Json&>(v).as_array().front().is_object()) {
      out += pad + k + ":\n";
      for (const auto& e : const_cast<Json&>(v).as_array()) out += pad + "  - " + e.dump(0) + "\n";
    } else {
      out += pad + k + ": " + v.dump(0) + "\n";
    }
  }
}

}  // namespace

Json stack_json(const Measurements& m, const Calibration& c, const StackInputs& in) {
  Json j = Json::object();
  j["kind"] = "software";
  j["description"] = "fitted by fleetsim calibrate on " + std::to_string(c.calibration_count) + " measured rows of " + m.path;
  Json params = Json::object();
  for (const auto& f : c.parameters) {
    Json p = Json::object();
    p["value"] = f.p.with_unit(f.value);
    p["si"] = f.value;
    p["unit"] = f.p.unit.empty() ? "1" : f.p.unit;
    p["key"] = f.p.key;
    p["status"] = status_name(f.status);
    p["why"] = f.why;
    p["preset"] = f.preset;
    p["bounds"] = pair(f.p.lo, f.p.hi);
    p["bounds_source"] = f.p.bound_source;
    p["bootstrap"] = pair(f.lo, f.hi);
    p["sensitivity"] = f.sensitivity;
    params[f.p.name] = p;
  }
  j["parameters"] = params;

  Json cal = Json::object();
  cal["grade"] = "calibrated (user data)";
  cal["measurements"] = m.path;
  cal["base"] = m.base.empty() ? "(default scenario)" : m.base;
  cal["measured"] = measured_name(m.metric);
  cal["calibration_rows"] = c.calibration_count;
  cal["judged_rows"] = c.judged_count;
  cal["fitted_parameters"] = c.fitted_count();
  cal["min_rows"] = c.min_rows;
  cal["range"] = range_json(m);
  Json err = Json::object();
  err["calibration_preset"] = c.calibration_preset;
  err["calibration_fitted"] = c.calibration_fitted;
  err["held_out"] = c.calibration_held_out;
  err["held_out_method"] = c.cross_validation;
  if (c.judged_count > 0) {
    err["judged_preset"] = c.judged_preset;
    err["judged_fitted"] = c.judged_fitted;
  }
  cal["mean_abs_error"] = err;
  Json iv = Json::object();
  iv["level"] = c.level;
  iv["half_width_log"] = c.interval_half_width;
  iv["from"] = "split conformal on the held-out log residuals of the calibration rows";
  cal["interval"] = iv;
  Json held = Json::array();
  for (size_t i = 0; i < m.rows.size(); ++i)
    if (!m.rows[i].judged) held.push_back(std::log(c.rows[i].held_out_s / c.rows[i].measured_s));
  cal["held_out_log_residuals"] = held;
  cal["condition_number"] = c.condition_number;
  Json boot = Json::object();
  boot["method"] = c.bootstrap_method;
  boot["draws"] = c.draws;
  boot["seed"] = static_cast<unsigned long long>(in.seed);
  boot["level"] = c.level;
  cal["bootstrap"] = boot;
  cal["evaluations"] = static_cast<long long>(c.evaluations);
  Json traces = Json::array();
  for (const auto& t : in.trace_summaries) {
    Json e = Json::object();
    e["file"] = t.file;
    e["device"] = t.device;
    e["gpu_kernels"] = t.kernels;
    e["gpu_time_us"] = t.gpu_time_us;
    e["shaped_gemm_share"] = 1 - t.unmatched_share();
    e["unmatched_share"] = t.unmatched_share();
    e["nccl_time_us"] = t.nccl_time_us;
    Json gemms = Json::array();
    for (const auto& g : t.gemms) {
      Json q = Json::object();
      q["op"] = g.op;
      q["b"] = static_cast<long long>(g.b);
      q["m"] = static_cast<long long>(g.m);
      q["n"] = static_cast<long long>(g.n);
      q["k"] = static_cast<long long>(g.k);
      q["dtype"] = g.dtype;
      q["count"] = g.count;
      q["tflops_mean"] = g.tflops_mean;
      q["gpu_time_us_mean"] = g.gpu_time_us_mean;
      gemms.push_back(q);
    }
    e["gemms"] = gemms;
    traces.push_back(e);
  }
  cal["traces"] = traces;
  if (in.trace_fit.shapes > 0) {
    Json tf = Json::object();
    tf["gemm_efficiency"] = in.trace_fit.gemm_efficiency;
    tf["gemm_half_efficiency_work"] = in.trace_fit.gemm_half_efficiency_work;
    tf["shapes"] = in.trace_fit.shapes;
    tf["error_preset"] = in.trace_fit.error_preset;
    tf["error_fit"] = in.trace_fit.error_fit;
    cal["trace_gemm_fit"] = tf;
  }
  Json nccl = Json::array();
  for (const auto& t : in.nccl_tests) nccl.push_back(t);
  cal["nccl_tests"] = nccl;
  j["calibration"] = cal;

  Json rows = Json::array();
  for (size_t i = 0; i < m.rows.size(); ++i) {
    const auto& r = m.rows[i];
    const auto& f = c.rows[i];
    Json e = Json::object();
    e["row"] = r.number;
    e["line"] = r.line;
    e["role"] = r.judged ? "judged" : "calibration";
    e["measured_s"] = f.measured_s;
    e["preset_s"] = f.preset_s;
    e["fitted_s"] = f.fitted_s;
    if (!r.judged) e["held_out_s"] = f.held_out_s;
    e["error_fitted"] = f.error_fitted();
    rows.push_back(e);
  }
  j["rows"] = rows;
  return j;
}

std::string stack_yaml(const Measurements& m, const Calibration& c, const StackInputs& in) {
  std::string out =
      "# A fleetsim software stack, written by `fleetsim calibrate` (sim/calibrate/README.md).\n"
      "# parameters: the efficiencies the step model reads, each with its scenario key, value (si: in SI units),\n"
      "#   status (fitted, or why it stays at the preset), physical bounds and their source, and bootstrap range.\n"
      "# calibration: the rows it was fitted on, its held-out error and the measured range that grades a\n"
      "#   prediction made with it `calibrated (user data)` inside and `extrapolated` outside.\n"
      "# Use it: fleetsim step SCENARIO --set software=THIS_FILE (also run, search, sweep, pool, plan).\n";
  emit(out, stack_json(m, c, in), 0);
  return out;
}

void write_stack_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw ConfigError("", "-o", "cannot write '" + path + "'");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw ConfigError("", "-o", "cannot write '" + path + "'");
  }
}

}  // namespace fleetsim::calibrate
