// The step model's case machinery (step_case.hpp): overrides as text, loading a case's scenario,
// and comparing the step model's prediction with the published figure.
#include "sim/reproduce/step_case.hpp"

#include <cmath>
#include <sstream>

#include "sim/config/load.hpp"
#include "sim/step/flops.hpp"

namespace fleetsim::reproduce {

using step::megatron_iteration_flops;

std::string num(double v) {
  std::ostringstream os;
  os.precision(12);
  os << v;
  return os.str();
}
std::string set(const std::string& key, double v) { return key + "=" + num(v); }
std::string set(const std::string& key, const std::string& v) { return key + "=" + v; }

void load(StepCase& c) {
  c.scenario = config::load_scenario(c.base, c.sets);
  c.scenario.workload.training.use_flash_attn = c.use_flash_attn;
  c.scenario.workload.parallel.rank_order = c.rank_order;
  if (c.virtual_pipeline_override > 0)
    c.scenario.workload.parallel.virtual_pipeline_model_parallel_size = c.virtual_pipeline_override;
}

// Settings of published runs that their tables omit (sim/reproduce/data/README.md).
std::string step_settings_dir() { return config::home_dir() + "/sim/reproduce/data"; }

double predicted_metric(const StepCase& c, const StepResult& r) {
  switch (c.metric) {
    case CaseMetric::MegatronTflops: {
      const auto& w = c.scenario.workload;
      const Flops f = megatron_iteration_flops(w.model, w.training.global_batch_size);
      return f.si() / (r.iteration_time.si() * c.scenario.cluster.gpus) / 1e12;
    }
    case CaseMetric::MfuPercent: return 100.0 * r.mfu;
    case CaseMetric::IterationMs: return 1e3 * r.iteration_time.si();
    case CaseMetric::TokensPerGpuSecond:
      return r.tokens_per_iteration.si() / (r.iteration_time.si() * c.scenario.cluster.gpus);
  }
  return 0;
}

ValidationCase compare(const StepCase& c, const StepResult& r) {
  ValidationCase v;
  v.source = c.source;
  v.case_name = c.name;
  v.published = c.published;
  v.predicted = predicted_metric(c, r);
  v.tolerance = c.tolerance;
  switch (c.metric) {
    case CaseMetric::MegatronTflops: v.metric = "achieved TFLOP/s per GPU (eq. 3)"; break;
    case CaseMetric::MfuPercent: v.metric = "BF16 MFU (%)"; break;
    case CaseMetric::IterationMs: v.metric = "iteration time (ms)"; break;
    case CaseMetric::TokensPerGpuSecond: v.metric = "tokens/s per GPU"; break;
  }
  v.error_is_absolute = c.metric == CaseMetric::MfuPercent;
  v.role = c.calibration ? CaseRole::Calibration : CaseRole::Judged;
  v.scenario = c.base;
  v.overrides = c.sets;
  v.error = v.error_is_absolute ? v.predicted - v.published : (v.predicted - v.published) / v.published;
  v.pass = std::fabs(v.error) <= v.tolerance;
  return v;
}

ValidationCase compare(const StepCase& c) {
  return compare(c, evaluate_step(c.scenario.cluster, c.scenario.workload));
}

}  // namespace fleetsim::reproduce
