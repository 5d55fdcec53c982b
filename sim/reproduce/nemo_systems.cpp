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

}  // namespace fleetsim::reproduce
