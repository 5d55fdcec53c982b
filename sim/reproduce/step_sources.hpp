// The step model's published tables other than NVIDIA's (nemo.hpp) and DeepSeek-V3's
// (deepseek_v3.hpp), one source file each: megatron_sc21.cpp, llama3_table4.cpp, vtrain.cpp,
// korthikanti.cpp.
#pragma once

#include <string>
#include <vector>

#include "sim/reproduce/step_case.hpp"

namespace fleetsim::reproduce {

std::vector<StepCase> megatron_sc21_table1_cases();   // judged
std::vector<StepCase> llama3_table4_cases();          // judged
std::vector<StepCase> vtrain_multinode_cases();       // judged
std::vector<StepCase> vtrain_singlenode_cases();      // the A100 calibration set

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

}  // namespace fleetsim::reproduce
