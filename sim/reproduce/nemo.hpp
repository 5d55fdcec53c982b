// NVIDIA's published pre-training throughput (data/validation/nemo_perf_summary.csv, NeMo 24.07 to
// Megatron-Bridge 26.xx): the dense rows (nemo_dense.cpp), the mixture-of-experts rows
// (nemo_moe.cpp) and the row picking they share (nemo_rows.cpp). The dense rows are split before
// any fit into calibration rows (at most kNemoCalibrationMaxGpus GPUs) and judged rows; the MoE rows
// are all judged except the H100 blockwise-FP8 pair, whose ratio calibrates
// fp8_blockwise_gemm_ratio. GB200 / GB300 NVL72 and B300 rows run on their presets (issue 26,
// nemo_systems.cpp; split and fit in tests/validation/step_nemo_blackwell_test.cpp). Skipped with a
// reason: the 25.09 alternate-granularity rows, Mixtral 8x22B (the page's GBS / MBS cells are inconsistent, see the
// CSV note), Qwen3 (no preset).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/reproduce/step_case.hpp"

namespace fleetsim::reproduce {

// NVIDIA's published pre-training throughput (nemo_perf_summary.csv) on `system` ("DGX-H100",
// "DGX-B200"): dense Llama 2/3/3.1 and GPT-3 rows whose architecture is in the catalog, FP8
// (TE delayed / current scaling, MXFP8), deduplicated across releases (the newest release of
// each configuration; 24.07's superseded revision dropped). Split, before any fit, into
// calibration rows (`calibration` = true: at most 16 GPUs, i.e. one or two nodes) and judged rows
// (the rest). `skipped` (optional) receives one line per row not modelled and why.
std::vector<StepCase> nemo_cases(const std::string& system, std::vector<std::string>* skipped = nullptr);
constexpr int kNemoCalibrationMaxGpus = 16;

// The --set overrides that put a NeMo table's system on the catalog: cluster.gpu and cluster.node
// for DGX-B200, DGX-GB200, DGX-GB300 and DGX-B300 (none for DGX-H100, the base scenario's).
// Throws ConfigError for a system without presets (nemo_systems.cpp).
[[nodiscard]] std::vector<std::string> nemo_system_sets(const std::string& system);
// The recipe's TE userbuffers settings as --set overrides (issue 35; nemo_systems.cpp).
[[nodiscard]] std::vector<std::string> nemo_userbuffers_sets(const std::string& system, const std::string& release,
                                                             const std::string& preset, bool fp8, int tp);

// Row picking shared by the dense (nemo_cases) and the MoE (nemo_moe_cases below) NeMo tables.
// An integer cell of nemo_perf_summary.csv, `fallback` when it is empty or "n/a".
[[nodiscard]] int nemo_int_or(const CsvTable& table, size_t row, const char* col, int fallback);

// Whether a precision label is a 25.09 "alternate quantization granularity" (parenthesised) value:
// blockwise 128x128 / 1x128 on DGX-H100, 32x32 on Blackwell.
[[nodiscard]] bool nemo_alternate_granularity(const std::string& precision_label);
// A picked row with its catalog workload and Transformer Engine recipe.
struct NemoRow {
  size_t row = 0;
  std::string preset, recipe;
};
// A layout column of the deduplication key; `missing` stands for an empty or "n/a" cell.
struct NemoKeyColumn {
  const char* name;
  const char* missing = "";
};
// The rows of `table` on `system` to model. `preset_of(row)` gives the catalog workload, "" to
// skip the row with the reason `no_preset`, or nullopt for a row that is not this table's
// (ignored silently). Also skipped with a reason: superseded revisions, precisions without a
// modelled recipe, rows without throughput. Rows equal in preset, recipe and the `key` columns are
// one configuration published again: the newest release is kept. `skipped` (optional) receives
// one line per row not modelled.
std::vector<NemoRow> pick_nemo_rows(const CsvTable& table, const std::string& system,
                                    const std::function<std::optional<std::string>(size_t row)>& preset_of,
                                    const std::string& no_preset, const std::vector<NemoKeyColumn>& key,
                                    std::vector<std::string>* skipped);

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

}  // namespace fleetsim::reproduce
