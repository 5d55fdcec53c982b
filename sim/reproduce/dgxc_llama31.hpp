// NVIDIA's DGX Cloud benchmark recipes for Llama 3.1 8B / 70B / 405B on DGX H100
// (data/validation/dgxc_h100_llama31.csv; GitHub NVIDIA/dgxc-benchmarking, releases v25.02,
// v25.04, v25.05.01 on the NeMo 24.12, 25.02.01 and 25.04.01 containers): the same layouts in BF16
// and FP8, 8 to 2,304 GPUs, tokens/s per GPU. Each row becomes the NeMo base scenario with --set
// overrides stating the recipes' configuration (sim/step/README.md, "Hopper TP overlap (issue 24)").
//
// Split, written down before any fit (issue 24): *calibration* = rows on at most 64 GPUs and every
// proxy-model row (the 405B recipes' fewer-layer models on 32-192 GPUs); *judged* = the full models
// on more than 64 GPUs. Nothing is fitted on a judged row.
#pragma once

#include <string>
#include <vector>

#include "sim/reproduce/case.hpp"
#include "sim/reproduce/step_case.hpp"

namespace fleetsim::reproduce {

inline constexpr int kDgxcCalibrationMaxGpus = 64;

// One row per configuration (model, layers, GPUs, precision, layout, batch): a configuration
// published in several releases counts once, with its newest release. `calibration` is set on the
// calibration part of the split; `precision_label` is "bf16" or "fp8". `skipped` (optional) gets
// one line per dropped duplicate.
std::vector<StepCase> dgxc_llama31_cases(std::vector<std::string>* skipped = nullptr);

// The source's cases for `fleetsim validate`: the judged rows per precision, each followed by its
// mean |error| (target 5%; each row 10%), then the calibration rows under their own source line.
std::vector<ValidationCase> dgxc_validation_cases();

}  // namespace fleetsim::reproduce
