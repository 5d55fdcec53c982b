// Which fidelity tier evaluates an iteration. The core library does not link SimGrid: the SimGrid
// tier installs itself (fleetsim::install_simgrid_tier() from sim/simgrid/) in the binaries that
// carry it, and the analytical tier is always there.
#pragma once

#include <functional>

#include "sim/scenario.hpp"
#include "sim/step/step_model.hpp"

namespace fleetsim {

using StepTierFn = std::function<StepResult(const ClusterSpec&, const WorkloadSpec&, const StepOptions&)>;

void set_simgrid_tier(StepTierFn fn);
[[nodiscard]] bool simgrid_tier_available();

// Evaluates on the scenario's tier (step.tier). Throws ConfigError when the SimGrid tier is asked
// for and this binary does not carry it.
[[nodiscard]] StepResult evaluate_step_on_tier(const Scenario& s, const StepOptions& options);

// Defined in sim/simgrid/ (linked into fleetsim and the tests).
void install_simgrid_tier();

// "Llama 3 405B with TP 8, PP 16 ... needs 92.3 GiB per GPU; the h100-sxm-80gb has 77.0 GiB usable"
[[nodiscard]] std::string memory_error_message(const Scenario& s, const StepResult& step);

}  // namespace fleetsim
