// The numbers a scenario declares uncertain (issue 25; uncertain_value.cpp parses one), gathered
// after resolution with their full key paths, and the scenario re-built with drawn values for
// them. The drawing itself (seeded streams, inverse CDFs) is sim/uncertainty/inputs.hpp's job.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/config/params.hpp"
#include "sim/scenario.hpp"

namespace fleetsim::config {

struct DeclaredInput {
  std::string key;     // full path: failures.rate_scale, cluster.gpu.gemm_efficiency, failures.components[2].rate
  double value = 0.0;  // the point value (SI), what the headline number uses
  UncertainSpec spec;
  std::string origin;  // the file (or --set) that declared it
};

struct DeclaredInputs {
  std::vector<DeclaredInput> inputs;   // in key order (deterministic)
  std::shared_ptr<const ParamSet> params;  // the resolved scenario, re-built per draw
  std::string file, resolved_yaml;
};

// Every declaration in `params` (sections, presets and table rows); null when there is none, so a
// scenario without declarations carries nothing and costs nothing.
std::shared_ptr<const DeclaredInputs> collect_declared_inputs(ParamSet params, const std::string& file,
                                                              const std::string& resolved_yaml);

// The scenario with input k at values[k] (SI; values.size() == inputs.size()), everything else as
// resolved, every cross-field rule checked again. The result has no declared inputs (it is one
// draw). Throws ConfigError naming the drawn values when a rule refuses them.
Scenario with_input_values(const DeclaredInputs& d, const std::vector<double>& values);

}  // namespace fleetsim::config
