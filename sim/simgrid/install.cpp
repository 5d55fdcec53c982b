// Makes the SimGrid tier available to `fleetsim step --tier simgrid`, `run` with step.tier: simgrid
// and `search --verify simgrid` (sim/pipeline/tier.hpp): the run model's degraded states become one
// straggler GPU or one degraded cable (simgrid_state_of), on top of the process-wide defaults.
#include <mutex>
#include <utility>

#include <stdexcept>
#include <string>

#include "sim/core/error.hpp"
#include "sim/pipeline/tier.hpp"
#include "sim/simgrid/simgrid_tier.hpp"

namespace fleetsim {

namespace {
std::mutex g_defaults_mutex;
SimgridOptions& defaults() {
  static SimgridOptions o;
  return o;
}
}  // namespace

void set_simgrid_default_options(SimgridOptions options) {
  std::lock_guard<std::mutex> lock(g_defaults_mutex);
  defaults() = std::move(options);
}

void install_simgrid_tier() {
  set_simgrid_tier([](const ClusterSpec& cluster, const WorkloadSpec& workload, const StepOptions& state) {
    SimgridOptions base;
    {
      std::lock_guard<std::mutex> lock(g_defaults_mutex);
      base = defaults();
    }
    try {
      return simgrid_evaluate_step(cluster, workload, simgrid_state_of(state, base));
    } catch (const std::runtime_error& e) {
      // A --sg-cfg setting SimGrid refuses is bad input, not an internal error.
      const std::string what = e.what();
      if (!base.cfg.empty() && what.find("config") != std::string::npos)
        throw ConfigError("--sg-cfg", "", what.substr(0, what.find('\n')) + " (see SimGrid's --help-cfg for valid keys)");
      throw;
    }
  });
}

}  // namespace fleetsim
