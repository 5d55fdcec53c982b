// A published case of the step model (sim/reproduce/README.md): each row of a table in
// data/validation becomes a Scenario (a catalog scenario plus --set overrides, as a user would
// write it) and the published figure it should reproduce. Read at run time; no number from a
// table is in the code. compare() turns it into the one case format (case.hpp).
#pragma once

#include <string>
#include <vector>

#include "sim/core/csv.hpp"
#include "sim/reproduce/case.hpp"
#include "sim/scenario.hpp"
#include "sim/step/step_model.hpp"

namespace fleetsim::reproduce {

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
  // NeMo / Megatron-Bridge rows: the table's system, release and precision label.
  std::string system, release, precision_label;
  // Whether the row belongs to the calibration part of its source's split (nemo_cases: at most
  // kNemoCalibrationMaxGpus GPUs; vTrain: the single-node set).
  bool calibration = false;
};

// Overrides as `fleetsim --set` text: "key=value", numbers with 12 significant digits.
[[nodiscard]] std::string num(double v);
[[nodiscard]] std::string set(const std::string& key, double v);
[[nodiscard]] std::string set(const std::string& key, const std::string& v);
inline const std::string kModel = "workload.model.";
inline const std::string kPar = "workload.parallel.";
inline const std::string kTrain = "workload.training.";

// Resolves c.scenario from c.base and c.sets, then applies the fields the schema does not expose.
void load(StepCase& c);

// Settings of published runs that their tables omit (sim/reproduce/data/README.md).
[[nodiscard]] std::string step_settings_dir();

// The case's metric from a step result.
[[nodiscard]] double predicted_metric(const StepCase& c, const StepResult& r);
// Evaluates the case's scenario and compares.
[[nodiscard]] ValidationCase compare(const StepCase& c);
[[nodiscard]] ValidationCase compare(const StepCase& c, const StepResult& r);

}  // namespace fleetsim::reproduce
