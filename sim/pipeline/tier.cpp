#include "sim/pipeline/tier.hpp"

#include <cstdio>

#include "sim/core/error.hpp"

namespace fleetsim {
namespace {
StepTierFn& simgrid_fn() {
  static StepTierFn fn;
  return fn;
}
}  // namespace

void set_simgrid_tier(StepTierFn fn) { simgrid_fn() = std::move(fn); }
bool simgrid_tier_available() { return static_cast<bool>(simgrid_fn()); }

StepResult evaluate_step_on_tier(const Scenario& s, const StepOptions& options) {
  if (s.tier == StepTier::Analytical) return evaluate_step(s.cluster, s.workload, options);
  if (!simgrid_fn())
    throw ConfigError(s.file, "step.tier", "the simgrid tier is not available in this build; use 'analytical'");
  // DualPipe is timed in closed form by the analytical tier only (sim/step/dualpipe.hpp).
  if (s.workload.parallel.pipeline_schedule == PipelineScheduleKind::DualPipe)
    throw ConfigError(s.file, "workload.parallel.pipeline_schedule",
                      "dualpipe is modelled by the analytical tier only; use step.tier analytical");
  return simgrid_fn()(s.cluster, s.workload, options);
}

std::string memory_error_message(const Scenario& s, const StepResult& step) {
  const auto& p = s.workload.parallel;
  const double need = step.memory_per_gpu.si() / 1073741824.0;
  const double have = (s.cluster.gpu.memory - s.cluster.gpu.usable_memory_reserve).si() / 1073741824.0;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%s: the layout does not fit in GPU memory: %s with TP %d, PP %d, VPP %d, CP %d, EP %d, DP %d, "
                "micro-batch %d, recompute %s, ZeRO stage %d needs %.1f GiB per GPU on its fullest pipeline stage; "
                "%s has %.1f GiB usable. Try more TP/PP, recomputation, a distributed optimizer or a smaller micro-batch.",
                s.file.c_str(), s.workload.model.name.c_str(), p.tensor_model_parallel_size,
                p.pipeline_model_parallel_size, p.virtual_pipeline_model_parallel_size, p.context_parallel_size,
                p.expert_model_parallel_size, p.data_parallel_size, s.workload.training.micro_batch_size,
                p.recompute_granularity == Recompute::Full ? "full"
                : p.recompute_granularity == Recompute::Selective ? "selective" : "none",
                p.zero_stage, need, s.cluster.gpu.name.c_str(), have);
  return buf;
}

}  // namespace fleetsim
