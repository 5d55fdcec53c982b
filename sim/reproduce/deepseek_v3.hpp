// DeepSeek-V3 pre-training (arXiv:2412.19437, data/validation/other_scale_runs.csv): 180K H800
// GPU-hours per trillion tokens and 2.664M GPU-hours for 14.8T tokens, on
// scenarios/deepseek-v3-2048-h800.yaml (the step model's iteration time x iterations x GPUs, and
// the run level through run_pipeline). Judged, never fitted.
#pragma once

#include <string>
#include <vector>

#include "sim/reproduce/step_case.hpp"

namespace fleetsim::reproduce {

// DeepSeek-V3's published GPU-hours: per trillion tokens and for the 14.8T-token pre-training.
struct GpuHourCase {
  std::string name;
  double published_gpu_hours = 0;
  double tokens = 0;
};
[[nodiscard]] std::vector<GpuHourCase> deepseek_v3_gpu_hour_cases();

// GPU-hours the step model predicts for `tokens` on the scenario (no failures: iteration time x
// ceil(tokens / tokens per iteration) x GPUs).
[[nodiscard]] double predicted_gpu_hours(const Scenario& s, const StepResult& r, double tokens);

// scenarios/deepseek-v3-2048-h800.yaml through the step and run models (run_pipeline: failures,
// restarts and checkpoints with the scenario's failure profile, its replications and seed).
// What the published figures measure is wall-clock GPU-hours of the cluster (arXiv:2412.19437
// §1: "180K H800 GPU hours [per trillion tokens], i.e., 3.7 days on our cluster with 2048 H800
// GPUs"; 2,664K for pre-training, "completed in less than two months"), so the headline
// prediction is the run-level one: step-only GPU-hours / ETTR. The step-only figure is kept
// beside it.
struct DeepSeekV3Run {
  Scenario scenario;
  StepResult step;
  double ettr = 0;             // mean over replications: productive time / wall-clock
  double wall_clock_days = 0;  // mean over replications, for the scenario's train_tokens
};
[[nodiscard]] DeepSeekV3Run deepseek_v3_run();
// Run-level GPU-hours for `tokens`: predicted_gpu_hours / ETTR.
[[nodiscard]] double predicted_run_gpu_hours(const DeepSeekV3Run& run, double tokens);


}  // namespace fleetsim::reproduce
