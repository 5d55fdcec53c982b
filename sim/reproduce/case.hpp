// The one case format of paper reproduction (sim/reproduce/README.md): one published figure, the
// model's prediction of it, the error and the tolerance it is judged at, whether it calibrated a
// parameter or is judged, and the scenario it was predicted on. Printed by `fleetsim validate`
// (sim/app/cmd_validate.cpp) and checked by the [validation] tests.
#pragma once

#include <string>
#include <vector>

#include "sim/core/paths.hpp"

namespace fleetsim {

// Whether a published figure was used to fit a model parameter (calibration) or only to judge the
// model (judged). The split is fixed before any fit (DESIGN.md §6); each source file states its own.
enum class CaseRole { Judged, Calibration };

struct ValidationCase {
  std::string source;     // the table: "Megatron-LM SC'21 Table 1"
  std::string case_name;  // the row: "145.6B, TP8 PP8, 1536 GPUs"
  std::string metric;     // what is compared: "achieved TFLOP/s per GPU"
  double published = 0.0;
  double predicted = 0.0;
  double error = 0.0;      // relative (predicted - published) / published, or absolute points
  double tolerance = 0.0;  // same kind as error
  bool error_is_absolute = false;
  bool pass = false;
  CaseRole role = CaseRole::Judged;
  // The scenario the prediction was made on: a catalog scenario (or "" where the case builds its
  // inputs in code, e.g. the run model's RunInputs) and the --set overrides applied to it.
  std::string scenario;
  std::vector<std::string> overrides;
  std::string note;  // where useful: a caveat of the source, the reason for the tolerance
};

}  // namespace fleetsim

namespace fleetsim::reproduce {

// A case with its error (relative, or absolute when `absolute`) and pass = |error| <= tolerance.
[[nodiscard]] ValidationCase make_case(std::string source, std::string name, std::string metric, double published,
                                       double predicted, double tolerance, bool absolute);

// Mean absolute error over cases as one summary line ("mean |error| over N cases").
[[nodiscard]] ValidationCase mean_absolute(const std::vector<ValidationCase>& cases, const std::string& source,
                                           double tolerance);

}  // namespace fleetsim::reproduce
