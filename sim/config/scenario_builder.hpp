// ParamSet -> Scenario: builds the typed structs once and checks every cross-field rule
// (layout divides the cluster, heads divide TP, batch divides microbatch x DP, ...).
#pragma once

#include <string>

#include "sim/config/params.hpp"
#include "sim/scenario.hpp"

namespace fleetsim::config {

Scenario build_scenario(const ParamSet& params, const std::string& file, const std::string& resolved_yaml);

GpuSpec build_gpu(const ParamSet& p);
// The measured GEMM-vs-M curve a GPU preset names (gemm_m_curve): data/supplement/<name>, rows m, n, k, tflops.
std::vector<GemmMPoint> read_gemm_m_curve(const std::string& name);
NodeSpec build_node(const ParamSet& p);
FabricSpec build_fabric(const ParamSet& p);
CoolingSpec build_cooling(const ParamSet& p);
FailureProfile build_failures(const ParamSet& p);
ModelSpec build_model(const ParamSet& p);

// Cross-field rules of the parallel layout; `file` names the scenario in messages.
// Derives data_parallel_size. Throws ConfigError.
void check_layout(Scenario& s, const std::string& file);

}  // namespace fleetsim::config
