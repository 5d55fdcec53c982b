// The features of a step prediction (features.hpp).
#include "sim/uncertainty/features.hpp"

#include "sim/workload/parameters.hpp"

namespace fleetsim::uncertainty {

std::string precision_name(Precision p) {
  switch (p) {
    case Precision::Bf16: return "bf16";
    case Precision::Fp16: return "fp16";
    case Precision::Fp8: return "fp8";
    case Precision::Nvfp4: return "nvfp4";
  }
  return "bf16";
}

StepFeatures step_features(const Scenario& s) {
  const auto& p = s.workload.parallel;
  StepFeatures f;
  f.gpu = s.cluster.gpu.name;
  f.precision = precision_name(s.workload.training.precision);
  // The regime says which mechanisms dominate the error: pure data parallelism (GEMMs and one
  // gradient all-reduce), model parallelism (TP collectives on the critical path, pipeline
  // bubbles: the Hopper TP/PP gap of issue 24), or experts (all-to-all, routing imbalance).
  if (s.workload.model.num_experts > 0)
    f.regime = "moe";
  else if (p.tensor_model_parallel_size == 1 && p.pipeline_model_parallel_size == 1 && p.context_parallel_size == 1)
    f.regime = "dense-dp";
  else
    f.regime = "dense-mp";
  f.gpus = s.cluster.gpus;
  f.params_b = parameter_count(s.workload.model) / 1e9;
  return f;
}

StepFeatures with_layout(StepFeatures f, int tp, int pp, int cp) {
  if (f.regime != "moe") f.regime = tp == 1 && pp == 1 && cp == 1 ? "dense-dp" : "dense-mp";
  return f;
}

}  // namespace fleetsim::uncertainty
