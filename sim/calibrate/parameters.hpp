// The parameters `fleetsim calibrate` may fit (sim/calibrate/README.md): the physical efficiencies
// the step model reads from the GPU, node and fabric presets today, each with its unit, physical
// bounds and the source of those bounds. They are the fields a software stack carries (issue 37:
// "the efficiencies fitted for that stack"); a fit moves them inside the bounds only.
#pragma once

#include <string>
#include <vector>

#include "sim/scenario.hpp"

namespace fleetsim::calibrate {

struct StackParameter {
  std::string name;    // the preset key, e.g. "gemm_efficiency"
  std::string key;     // the scenario key as --set takes it, e.g. "cluster.gpu.gemm_efficiency"
  std::string unit;    // "" (a fraction), "FLOP", "s"
  double lo = 0, hi = 0;     // physical bounds, in SI units
  std::string bound_source;  // where the bounds come from
  std::string meaning;       // one line
  [[nodiscard]] double get(const ClusterSpec& c) const;
  void set(ClusterSpec& c, double v) const;
  // The value as a scenario file writes it ("0.795", "6.72e9 FLOP", "2e-05 s").
  [[nodiscard]] std::string with_unit(double v) const;
};

// Every parameter `calibrate` knows, in the order it prefers to keep them when two cannot be told
// apart (fit.hpp: the later of a collinear pair stays at the preset).
[[nodiscard]] const std::vector<StackParameter>& stack_parameters();
// `p` with its bounds for the stack's GPU: gemm_efficiency's upper bound is the GPU preset's own
// value where that value is the measured best-shape GEMM (A100, H100, H200, H800: the MAMF
// measurement of models/gpus), since a software stack can fall short of the best cuBLAS GEMM but
// not beat it; hbm_efficiency's the best streaming kernel measured on A100 / Hopper; elsewhere
// (Blackwell: engineering assumptions) the generic bounds stay.
[[nodiscard]] StackParameter for_gpu(StackParameter p, const GpuSpec& gpu);
// One by name; throws ConfigError naming `option` and the valid names.
[[nodiscard]] const StackParameter& stack_parameter(const std::string& name, const std::string& option);

}  // namespace fleetsim::calibrate
