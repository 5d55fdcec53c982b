// Makes the SimGrid tier available to `fleetsim step --tier simgrid` (and its `--trace`), `run` with
// step.tier: simgrid and `search --verify simgrid` (sim/pipeline/tier.hpp, sim/step/trace.hpp): the
// run model's degraded states become one straggler GPU or one degraded cable (simgrid_state_of), on
// top of the process-wide defaults.
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

// A --sg-cfg setting SimGrid refuses is bad input, not an internal error.
template <class Fn>
auto refusing_bad_cfg(const SimgridOptions& base, Fn&& fn) {
  try {
    return fn();
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    if (!base.cfg.empty() && what.find("config") != std::string::npos)
      throw ConfigError("--sg-cfg", "", what.substr(0, what.find('\n')) + " (see SimGrid's --help-cfg for valid keys)");
    throw;
  }
}
}  // namespace

void set_simgrid_default_options(SimgridOptions options) {
  std::lock_guard<std::mutex> lock(g_defaults_mutex);
  defaults() = std::move(options);
}

SimgridOptions simgrid_default_options() {
  std::lock_guard<std::mutex> lock(g_defaults_mutex);
  return defaults();
}

void install_simgrid_tier() {
  set_simgrid_tier([](const ClusterSpec& cluster, const WorkloadSpec& workload, const StepOptions& state) {
    const SimgridOptions base = simgrid_default_options();
    return refusing_bad_cfg(base, [&] { return simgrid_evaluate_step(cluster, workload, simgrid_state_of(state, base)); });
  });
  step::set_simgrid_timeline([](const ClusterSpec& cluster, const WorkloadSpec& workload) {
    const SimgridOptions base = simgrid_default_options();
    return refusing_bad_cfg(base, [&] { return simgrid_iteration_timeline(cluster, workload, base); });
  });
}

}  // namespace fleetsim
