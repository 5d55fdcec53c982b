// GEMM efficiency from profiler traces (sim/calibrate/README.md, "Traces"): the step model's GEMM
// time (sim/step/gemm_efficiency.hpp: roofline with the saturating small-GEMM curve, tile and wave
// quantization) against each traced 16-bit GEMM shape's measured GPU time: `gemm_efficiency` (the
// ceiling) and `gemm_half_efficiency_work` (the small-GEMM roll-off) fitted by least squares on the
// log error weighted by GPU time, inside their bounds; with one shape only the ceiling.
#pragma once

#include <vector>

#include "sim/calibrate/kineto.hpp"
#include "sim/calibrate/parameters.hpp"

namespace fleetsim::calibrate {

struct TraceGemmFit {
  double gemm_efficiency = 0;     // fitted (= the preset when no 16-bit GEMM was traced)
  double gemm_half_efficiency_work = 0;  // FLOP; fitted with two or more shapes, else the preset
  int shapes = 0;                 // 16-bit GEMM shapes used
  double error_preset = 0, error_fit = 0;  // GPU-time-weighted mean |relative error| of the shapes' times
  std::vector<double> model_tflops;        // per shape of each trace, in order, at the fit
};

[[nodiscard]] TraceGemmFit fit_trace_gemms(const std::vector<KinetoTrace>& traces, const GpuSpec& gpu,
                                           const StackParameter& gemm_efficiency, const StackParameter& half_work);

}  // namespace fleetsim::calibrate
