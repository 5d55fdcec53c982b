// One published-vs-predicted comparison, as printed by `fleetsim validate` and checked by the
// [validation] tests. Each model module provides its cases from data/validation/ (sim/core/paths.hpp).
#pragma once

#include <string>
#include <vector>

#include "sim/core/paths.hpp"

namespace fleetsim {

struct ValidationCase {
  std::string source;     // the table: "Megatron-LM SC'21 Table 1"
  std::string case_name;  // the row: "145.6B, TP8 PP8, 1536 GPUs"
  std::string metric;     // "achieved TFLOP/s per GPU"
  double published = 0.0;
  double predicted = 0.0;
  double error = 0.0;      // relative (predicted - published) / published, or absolute points
  double tolerance = 0.0;  // same kind as error
  bool error_is_absolute = false;
  bool pass = false;
};

// Each module's cases; the validate command concatenates them.
std::vector<ValidationCase> step_validation_cases();
std::vector<ValidationCase> run_validation_cases();
std::vector<ValidationCase> facility_validation_cases();


}  // namespace fleetsim
