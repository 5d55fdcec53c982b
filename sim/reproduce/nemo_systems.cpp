// Which catalog GPU and node stand for each system of NVIDIA's performance tables
// (nemo_perf_summary.csv). GB200 / GB300 NVL72 and B300 were added with the planner (issue 26):
// models/gpus/{gb200,gb300,b300}.yaml, models/nodes/{gb200-nvl72,gb300-nvl72,dgx-b300}.yaml.
#include "sim/core/error.hpp"
#include "sim/reproduce/nemo.hpp"

namespace fleetsim::reproduce {

std::vector<std::string> nemo_system_sets(const std::string& system) {
  if (system == "DGX-H100") return {};
  if (system == "DGX-B200") return {"cluster.gpu=b200", "cluster.node=dgx-b200"};
  if (system == "DGX-GB200") return {"cluster.gpu=gb200", "cluster.node=gb200-nvl72"};
  if (system == "DGX-GB300") return {"cluster.gpu=gb300", "cluster.node=gb300-nvl72"};
  if (system == "DGX-B300") return {"cluster.gpu=b300", "cluster.node=dgx-b300"};
  throw ConfigError("nemo_perf_summary.csv", "system",
                    "no catalog GPU and node for '" + system + "'; known: DGX-H100, DGX-B200, DGX-GB200, DGX-GB300, DGX-B300");
}

std::vector<std::string> nemo_userbuffers_sets(const std::string& system, const std::string& release,
                                               const std::string& preset, bool fp8, int tp) {
  // TE userbuffers per op (issue 35; data/supplement/nemo_userbuffers_configs.csv): NeMo's FP8
  // configs run the forward reduce-scatters by copy-engine ring exchange on Blackwell, and on
  // H100 since NeMo PR #13131 (April 2025: releases 25.04 on); before, and in BF16, pipelined
  // (FP8 with fp8_buf). The Llama 3.1 405B configs (h16384) aggregate two chunks per ring step and
  // hold fewer SMs. Only GPUs with a measured chunk curve cost them per op (tp_overlap.hpp).
  std::vector<std::string> s;
  if (tp <= 1) return s;
  const bool hopper = system == "DGX-H100";
  const std::string P = "workload.parallel.";
  if (fp8 && (!hopper || release >= "25.04")) s.push_back(P + "tp_comm_overlap_rs_method=ring_exchange");
  if (preset == "llama3-405b") {
    s.push_back(P + "tp_comm_overlap_aggregate=true");
    s.push_back(P + (hopper ? "tp_comm_overlap_rs_sms=[24, 8]" : "tp_comm_overlap_rs_sms=[32, 8]"));
    s.push_back(P + (hopper ? "tp_comm_overlap_bulk_sms=[2, 24, 2, 2]" : "tp_comm_overlap_bulk_sms=[8, 32, 2, 8]"));
  }
  return s;
}

}  // namespace fleetsim::reproduce
