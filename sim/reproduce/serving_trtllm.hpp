// The serving section of `fleetsim validate` (issue 39): TensorRT-LLM's published serving tables
// against the serving model (sim/serving), data in data/validation/inference/ (SOURCES.md there).
//
// Split, fixed before any fit (sim/serving/README.md, "Calibration"):
// - perf overview, calibration: every TP 1 row (Llama 3.1 8B on A100 FP16 / H100 / H200 FP8, and
//   Llama 3.1 70B and Mixtral 8x7B at TP 1 on H100 / H200 FP8: 27 + 16 + 18 rows); the engine's
//   two overheads (serving.engine.iteration_overhead, layer_overhead) are fitted on them;
// - perf overview, judged: every TP > 1 row (Llama 3.1 70B TP 2-8, 405B TP 8, Mixtral 8x7B TP
//   2-8, 8x22B TP 8), at 15% mean per GPU type;
// - online sweep (v0.14, BF16, Triton; a different deployment): the Llama 3.1 8B rows calibrate the
//   deployment's batch limit (serving.engine.max_batch_size, not published); the Llama 3.1 70B TP 4
//   rows are judged: mean TTFT and mean inter-token latency at each load below saturation at 20%,
//   the saturation request rate (the QPS = INF row) at 15%.
#pragma once

#include <string>
#include <vector>

#include "sim/reproduce/case.hpp"
#include "sim/scenario.hpp"

namespace fleetsim::reproduce {

struct ServingCaseSet {
  std::vector<ValidationCase> cases;
  // Judged perf-overview cases by GPU type, for the per-GPU mean (tests read these).
  std::vector<std::pair<std::string, std::vector<ValidationCase>>> throughput_by_gpu;
  std::vector<ValidationCase> calibration;          // the 8B TP 1 rows
  std::vector<ValidationCase> ttft, itl, saturation;  // judged online rows
  std::vector<ValidationCase> online_calibration;     // the 8B online saturation rows
};

// The cases with the engine's calibration as shipped (serving.engine defaults), or with the two
// overheads given (scripts/calibrate's fit; negative = the shipped value).
// `calibration_only`: the calibration rows alone; `online_max_batch` > 0 replaces the online
// deployment's fitted batch limit; `online_only` skips the perf overview.
[[nodiscard]] ServingCaseSet serving_reproduction(double iteration_overhead_s = -1, double layer_overhead_s = -1,
                                                  bool calibration_only = false, int online_max_batch = 0,
                                                  bool online_only = false);

std::vector<ValidationCase> serving_validation_cases();

// The residual table `fleetsim infer` reads its intervals from (sim/uncertainty/serving_interval.hpp),
// as CSV text: one row per judged case (perf-overview throughput; online TTFT and ITL below
// saturation), log(predicted / published). bench/calibrate_serving --residuals writes it.
[[nodiscard]] std::string serving_residuals_csv(const ServingCaseSet& set);

}  // namespace fleetsim::reproduce
