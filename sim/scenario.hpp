// A fully resolved scenario: every preset loaded, every override applied, every unit parsed and
// every cross-field rule checked. Models receive parts of this and never see YAML.
#pragma once

#include <memory>
#include <string>

#include "sim/facility/specs.hpp"
#include "sim/hardware/specs.hpp"
#include "sim/pool/specs.hpp"
#include "sim/run/specs.hpp"
#include "sim/serving/specs.hpp"
#include "sim/workload/specs.hpp"

namespace fleetsim {
namespace config { struct DeclaredInputs; }  // sim/config/declared_inputs.hpp

struct ClusterSpec {
  GpuSpec gpu;
  int gpus = 0;
  NodeSpec node;
  FabricSpec fabric;
  [[nodiscard]] int nodes() const { return gpus / node.gpus_per_node; }
};

enum class StepTier { Analytical, SimGrid };

struct Scenario {
  std::string file;                    // where it came from ("" for built-in)
  std::string description;
  std::string resolved_yaml;           // the merged document, for provenance in results
  ClusterSpec cluster;
  WorkloadSpec workload;
  FailureProfile failures;
  RecoverySpec recovery;
  CheckpointSpec checkpoint;
  StragglerSpec stragglers;
  FacilitySpec facility;
  RunSpec run;
  StepTier tier = StepTier::Analytical;
  PoolSpec pool;                       // enabled when the scenario has a pool: section
  ServingSpec serving;                 // enabled when the scenario has a serving: section (issue 39)
  // Numbers declared uncertain ({value, range} or a distribution; issue 25), null when none: the
  // fields above hold their values; sim/uncertainty/inputs.hpp draws the rest.
  std::shared_ptr<const config::DeclaredInputs> declared_inputs;
};

}  // namespace fleetsim
