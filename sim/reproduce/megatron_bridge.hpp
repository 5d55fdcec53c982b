// NVIDIA's Megatron-Bridge performance summary, NeMo containers 25.11 to 26.08
// (data/validation/megatron_bridge_perf_2025_2026.csv with SOURCES_megatron_bridge_perf_2025_2026.md;
// NVIDIA-NeMo/Megatron-Bridge @067f987 docs/performance-summary{,-archive}.md): Llama 3 8B / 70B
// and Llama 3.1 405B pre-training on GB300, GB200, B200 and H100 in FP8 (current scaling), MXFP8
// and NVFP4, and the MoE rows, tokens/s per GPU (issue 36).
//
// Split, written down before any fit (issue 36; sim/step/README.md "Megatron-Bridge"):
// - dense *calibration* = the Llama 3 8B and 70B pre-training configurations, except those also
//   published in 25.11 on more than 16 GPUs: those are judged rows of the NeMo source
//   (nemo_perf_summary.csv, kNemoCalibrationMaxGpus), and a row judged in one source is never fitted
//   on in another;
// - dense *judged* = every Llama 3.1 405B configuration, and those 70B configurations of 25.11;
// - MoE: the smaller models would calibrate (Qwen3 30B-A3B, Nemotron 3 Nano, Nemotron 3.5
//   Lightning: at most 32B parameters) and every other MoE row is judged; none of the calibration
//   models has a catalog preset, so nothing is fitted on MoE rows and the expressible ones
//   (DeepSeek-V3) are all judged.
// Not modelled, listed with the reason: SFT and LoRA rows (not pre-training), MoE models without a
// preset, NVFP4 rows where the precision is not available.
#pragma once

#include <string>
#include <vector>

#include "sim/reproduce/case.hpp"
#include "sim/reproduce/step_case.hpp"

namespace fleetsim::reproduce {

// The dense Llama pre-training rows, one per configuration (a configuration published in several
// releases counts once, with its newest release). `precision_label` is the table's label; the
// recipe is in the scenario. `skipped` (optional) gets one line per row not modelled and why.
std::vector<StepCase> megatron_bridge_dense_cases(std::vector<std::string>* skipped = nullptr);
// The MoE rows with a catalog preset (DeepSeek-V3), all judged.
std::vector<StepCase> megatron_bridge_moe_cases(std::vector<std::string>* skipped = nullptr);

// The precision group a row is judged in: "FP8" (the FP8 / FP8-CS labels: current scaling),
// "MXFP8" (MXFP8 / FP8-MX), "NVFP4", "BF16".
[[nodiscard]] std::string megatron_bridge_precision_group(const std::string& label);

// Targets (issue 36): judged dense rows mean 5% / worst 10% per GPU x precision; MoE rows mean 10%
// / worst 20%.
inline constexpr double kBridgeDenseMeanTarget = 0.05, kBridgeDenseWorstTarget = 0.10;
inline constexpr double kBridgeMoeMeanTarget = 0.10, kBridgeMoeWorstTarget = 0.20;

// The source's cases for `fleetsim validate`: judged dense rows per GPU x precision, each group
// followed by its mean |error|; the MoE rows and their mean; the calibration rows under their own
// source line.
std::vector<ValidationCase> megatron_bridge_validation_cases();

}  // namespace fleetsim::reproduce
