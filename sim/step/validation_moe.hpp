// Published mixture-of-experts runs for the step model (issue 17), kept apart from the dense
// tables of validation.hpp so that adding MoE presets does not move the dense splits.
//
// - DeepSeek-V3 pre-training (arXiv:2412.19437, data/validation/other_scale_runs.csv): 180K H800
//   GPU-hours per trillion tokens and 2.664M GPU-hours for 14.8T tokens, on
//   scenarios/deepseek-v3-2048-h800.yaml (the step model's iteration time x iterations x GPUs).
// - NVIDIA's MoE rows (data/validation/nemo_perf_summary.csv): DeepSeek-V3 and Mixtral 8x7B on
//   DGX-H100 / DGX-B200 with a modelled FP8 recipe, tokens/s per GPU. All judged: the GPU presets
//   are the dense calibration's (sim/step/README.md), except fp8_blockwise_gemm_ratio, fitted on
//   the ratio of one H100 pair (nemo_h100_fp8_blockwise_pair below). Skipped with a reason:
//   GB200/GB300/B300 (no preset), the 25.09 alternate-granularity rows, Mixtral
//   8x22B (the page's GBS / MBS cells are inconsistent, see the CSV note), Qwen3 (no preset).
#pragma once

#include <string>
#include <vector>

#include "sim/step/validation.hpp"

namespace fleetsim::step {

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

// The MoE cases of `fleetsim validate --only step`: DeepSeek-V3's GPU-hours (run-level, and the
// step-only figure beside it) at the 10% target, then the NeMo MoE rows on DGX-H100 and
// DGX-B200 at 15% per row, each table followed by its mean absolute error.
[[nodiscard]] std::vector<ValidationCase> moe_validation_cases();

// The NeMo MoE rows on `system` (DGX-H100, DGX-B200), deduplicated as nemo_cases does.
std::vector<StepCase> nemo_moe_cases(const std::string& system, std::vector<std::string>* skipped = nullptr);

// The calibration pair of the H100 blockwise-FP8 GEMM ratio (GpuSpec::fp8_blockwise_gemm_ratio):
// Megatron-Bridge 25.09's DeepSeek-V3 (dropless) on 1,024 DGX-H100 with per-tensor FP8 (the
// table's value) and, in parentheses on the same layout, "128x128 weights, 1x128 activations as
// in DeepSeek-V3 pre-training": model TFLOP/s 338 and 330. Only their ratio is used (fitted by
// `scripts/calibrate --gpu h100 --fp8-blockwise`); the per-tensor row stays a judged MoE row
// (its level is not fitted), and DeepSeek-V3's own GPU-hours are judged, never fitted.
struct Fp8BlockwisePair {
  StepCase per_tensor;      // the nemo_moe_cases row, its own recipe
  Scenario blockwise;       // the same sets with fp8_recipe: blockwise
  double published_ratio = 0;  // blockwise over per-tensor model TFLOP/s
  Seconds per_tensor_iteration;  // the step model's iteration of `per_tensor` (the ratio does not touch it)
};
[[nodiscard]] Fp8BlockwisePair nemo_h100_fp8_blockwise_pair();
// The step model's blockwise over per-tensor throughput of the pair with `ratio` as the GPU's
// fp8_blockwise_gemm_ratio (what the calibration bisects and its test checks).
[[nodiscard]] double predicted_blockwise_ratio(const Fp8BlockwisePair& p, double ratio);

}  // namespace fleetsim::step
