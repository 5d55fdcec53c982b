#include "sim/uncertainty/serving_interval.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "sim/core/csv.hpp"
#include "sim/core/error.hpp"
#include "sim/core/paths.hpp"

namespace fleetsim::uncertainty {
namespace {

const std::vector<ServingResidual>& shipped() {
  static std::once_flag once;
  static std::vector<ServingResidual> rows;
  std::call_once(once, [] { rows = read_serving_residuals(serving_residuals_file()); });
  return rows;
}

// The conformal rank ceil((n + 1) level) of |x|, capped at the largest.
double conformal(std::vector<double> v, double level) {
  if (v.empty()) return 0;
  for (double& x : v) x = std::fabs(x);
  std::sort(v.begin(), v.end());
  const size_t k = static_cast<size_t>(std::ceil((static_cast<double>(v.size()) + 1) * level));
  return v[std::min(v.size(), std::max<size_t>(k, 1)) - 1];
}

}  // namespace

const char* serving_metric_name(ServingMetric m) {
  return m == ServingMetric::Ttft ? "ttft" : m == ServingMetric::Tpot ? "tpot" : "throughput";
}

std::string serving_residuals_file() { return home_dir() + "/sim/uncertainty/data/serving_residuals.csv"; }

std::vector<ServingResidual> read_serving_residuals(const std::string& path) {
  const CsvTable t = read_csv(path);
  t.require_columns({"source", "case", "gpu", "metric", "log_ratio"});
  std::vector<ServingResidual> out;
  for (size_t i = 0; i < t.size(); ++i) {
    ServingResidual r;
    r.source = t.at(i, "source");
    r.case_name = t.at(i, "case");
    r.gpu = t.at(i, "gpu");
    const std::string& m = t.at(i, "metric");
    if (m == "throughput") r.metric = ServingMetric::Throughput;
    else if (m == "ttft") r.metric = ServingMetric::Ttft;
    else if (m == "tpot") r.metric = ServingMetric::Tpot;
    else
      throw ConfigError(path + ":" + std::to_string(t.row_lines[i]), "metric",
                        "'" + m + "' is not a serving metric; valid: throughput, ttft, tpot");
    r.log_ratio = t.num(i, "log_ratio");
    out.push_back(r);
  }
  return out;
}

ServingUncertainty serving_uncertainty(const std::string& gpu, const ServingSpec& spec, double level) {
  ServingUncertainty u;
  u.level = level;
  const auto& rows = shipped();
  bool all_same_gpu = true;
  int n_same = 0;
  for (int mi = 0; mi < 3; ++mi) {
    const auto m = static_cast<ServingMetric>(mi);
    std::vector<double> same, any;
    for (const auto& r : rows) {
      if (r.metric != m) continue;
      any.push_back(r.log_ratio);
      if (r.gpu == gpu) same.push_back(r.log_ratio);
    }
    if (m == ServingMetric::Throughput) n_same = static_cast<int>(same.size());
    const bool own = static_cast<int>(same.size()) >= kMinGroup;
    all_same_gpu = all_same_gpu && own;
    u.half_width[mi] = conformal(own ? same : any, level);
  }
  std::vector<std::string> sources;
  for (const auto& r : rows)
    if (std::find(sources.begin(), sources.end(), r.source) == sources.end()) sources.push_back(r.source);
  u.provenance.sources = sources;
  const bool judged_precision = spec.precision == ServingPrecision::Fp8 || spec.precision == ServingPrecision::Bf16 ||
                                spec.precision == ServingPrecision::Fp16;
  if (n_same >= kMinGroup && judged_precision && spec.pp == 1) {
    u.provenance.grade = all_same_gpu ? Grade::Calibrated : Grade::Transferred;
    u.provenance.why = std::to_string(n_same) + " judged " + gpu + " serving throughput cases (TensorRT-LLM v0.17, TP 1-8)" +
                       (all_same_gpu ? "" : "; latency intervals from every GPU's cases");
  } else if (spec.pp > 1) {
    u.provenance.grade = Grade::Extrapolated;
    u.provenance.why = "no judged case with pipeline parallelism; intervals of the TP cases";
  } else {
    u.provenance.grade = Grade::Transferred;
    u.provenance.why = "no judged serving case on " + gpu + "; intervals from the other GPUs' cases";
  }
  return u;
}

Interval serving_interval(double value, ServingMetric m, const ServingUncertainty& u) {
  const double q = u.half_width[static_cast<int>(m)];
  return {value * std::exp(-q), value * std::exp(q), u.level};
}

}  // namespace fleetsim::uncertainty
