// The software file `fleetsim calibrate` writes (sim/calibrate/README.md, "The stack file"): the
// fitted efficiencies as the GPU, node and fabric fields they replace, each with unit, bounds,
// bootstrap range and status; the rows and residuals they were fitted on; the held-out error; and
// the measured range that grades a prediction made with it (sim/config/software_file.hpp reads
// it back for `--set software=FILE`).
#pragma once

#include <string>
#include <vector>

#include "sim/calibrate/fit.hpp"
#include "sim/calibrate/kineto.hpp"
#include "sim/calibrate/measurements.hpp"
#include "sim/calibrate/trace_fit.hpp"
#include "sim/results/json.hpp"

namespace fleetsim::calibrate {

// The inputs beyond the CSV that went into the file (traces, nccl-tests logs), listed in it.
struct StackInputs {
  std::vector<std::string> traces;
  std::vector<std::string> nccl_tests;
  std::uint64_t seed = 0;
  std::vector<KinetoTrace> trace_summaries;  // what each trace gave
  TraceGemmFit trace_fit;
};

// The file's text (YAML).
[[nodiscard]] std::string stack_yaml(const Measurements& m, const Calibration& c, const StackInputs& in);
// The same content as JSON (`calibrate --json`).
[[nodiscard]] Json stack_json(const Measurements& m, const Calibration& c, const StackInputs& in);
// Atomic write (a temporary next to it, then renamed); ConfigError naming -o on failure.
void write_stack_file(const std::string& path, const std::string& text);

}  // namespace fleetsim::calibrate
