// What a step prediction shares with the judged published cases (sim/uncertainty/README.md): the
// GPU, the precision, the parallel regime, the GPU count and the model size. Residuals are grouped
// by the first three; the last two bound the range a group covers (provenance.hpp).
#pragma once

#include <string>

#include "sim/scenario.hpp"

namespace fleetsim::uncertainty {

struct StepFeatures {
  std::string gpu;        // GPU preset name, e.g. "H100-SXM5-80GB"
  std::string precision;  // bf16 | fp16 | fp8
  std::string regime;     // dense-dp (TP = PP = CP = 1) | dense-mp (TP, PP or CP >= 2) | moe
  int gpus = 0;
  double params_b = 0;    // parameters, billions (all experts for MoE)
};

[[nodiscard]] StepFeatures step_features(const Scenario& s);
// The same scenario with another parallel layout (fleetsim search's candidates): the regime follows
// the layout; GPU, precision, GPU count and model stay.
[[nodiscard]] StepFeatures with_layout(StepFeatures f, int tp, int pp, int cp);
[[nodiscard]] std::string precision_name(Precision p);

}  // namespace fleetsim::uncertainty
