// The step model's published cases (DESIGN.md §6): each row of a table in data/validation
// becomes a Scenario (a catalog scenario plus --set overrides, as a user would write it) and the
// published figure it should reproduce. Read at run time; no number from a table is in the code.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/csv.hpp"
#include "sim/core/validation_case.hpp"
#include "sim/scenario.hpp"
#include "sim/step/step_model.hpp"

namespace fleetsim::step {

// The published tables are read with the project's one CSV reader (sim/core/csv.hpp).
using fleetsim::CsvTable;
using fleetsim::read_csv;

enum class CaseMetric {
  MegatronTflops,   // achieved TFLOP/s per GPU with the paper's eq. 3 FLOP count
  MfuPercent,       // MFU in percent (absolute error in points)
  IterationMs,      // iteration time in milliseconds
  TokensPerGpuSecond,  // training throughput, tokens per second per GPU
};

struct StepCase {
  std::string source;     // table
  std::string name;       // row
  CaseMetric metric = CaseMetric::IterationMs;
  double published = 0;
  double tolerance = 0;   // relative, or points for MfuPercent
  std::string base;       // catalog scenario
  std::vector<std::string> sets;
  // Fields the scenario schema may not expose yet, applied after loading.
  bool use_flash_attn = true;
  std::string rank_order = "tp-cp-dp-pp";
  int virtual_pipeline_override = 0;  // > 0: chunks per rank, set after loading (the loader
                                      // rejects PP x VPP > layers, Llama 3's embedding-only chunk)
  Scenario scenario;      // resolved
  // NeMo / Megatron-Bridge rows: the table's system, release and precision label, and whether
  // the row belongs to the calibration part of the split (nemo_cases).
  std::string system, release, precision_label;
  bool calibration = false;
};

std::vector<StepCase> megatron_sc21_table1_cases();
std::vector<StepCase> llama3_table4_cases();
std::vector<StepCase> vtrain_multinode_cases();
std::vector<StepCase> vtrain_singlenode_cases();   // the A100 calibration set

// NVIDIA's published pre-training throughput (nemo_perf_summary.csv) on `system` ("DGX-H100",
// "DGX-B200"): dense Llama 2/3/3.1 and GPT-3 rows whose architecture is in the catalog, FP8
// (TE delayed / current scaling, MXFP8), deduplicated across releases (the newest release of
// each configuration; 24.07's superseded revision dropped). Split, before any fit, into
// calibration rows (`calibration` = true: at most 16 GPUs, i.e. one or two nodes) and judged rows
// (the rest). `skipped` (optional) receives one line per row not modelled and why.
std::vector<StepCase> nemo_cases(const std::string& system, std::vector<std::string>* skipped = nullptr);
constexpr int kNemoCalibrationMaxGpus = 16;

// Row picking shared by the dense (nemo_cases) and the MoE (validation_moe.hpp) NeMo tables.
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

// Korthikanti et al. 2022 Table 4 (data/supplement/korthikanti2022_table4.csv): the measured time
// per transformer layer of their 22B model on 8 A100 (TP 8, sequence 2048, unfused attention)
// under each recomputation / sequence-parallel setting: the calibration data of the A100
// `unfused_attention_hbm_efficiency` (scripts/calibrate --attention; sim/step/README.md).
struct LayerTimes { double fwd_ms = 0, bwd_ms = 0; };  // backward includes any recomputation
struct KorthikantiRow {
  std::string name;
  Scenario scenario;
  double fwd_ms = 0, bwd_ms = 0;  // measured
};
std::vector<KorthikantiRow> korthikanti_rows();
// The model's time per layer: the first chunk's costs with L and L - 1 layers (the difference
// removes the embedding and the logits).
[[nodiscard]] LayerTimes layer_times(const ClusterSpec& cluster, const WorkloadSpec& w);

// The case's metric from a step result.
[[nodiscard]] double predicted_metric(const StepCase& c, const StepResult& r);
// Evaluates the case's scenario and compares.
[[nodiscard]] ValidationCase compare(const StepCase& c);
[[nodiscard]] ValidationCase compare(const StepCase& c, const StepResult& r);
// Mean absolute error over cases as one summary line ("mean |error|").
[[nodiscard]] ValidationCase mean_absolute(const std::vector<ValidationCase>& cases,
                                           const std::string& source, double tolerance);

}  // namespace fleetsim::step
