// GEMM efficiency from profiler traces (trace_fit.hpp).
#include "sim/calibrate/trace_fit.hpp"

#include <algorithm>
#include <cmath>

#include "sim/step/gemm_efficiency.hpp"

namespace fleetsim::calibrate {
namespace {

bool sixteen_bit(const std::string& dtype) { return dtype == "c10::BFloat16" || dtype == "c10::Half"; }

double model_us(const GpuSpec& gpu, double eff, double w_half, const TraceGemm& g) {
  GpuSpec s = gpu;
  s.gemm_efficiency = eff;
  s.gemm_half_efficiency_work = Flops(w_half);
  return 1e6 * step::GpuCompute(s).gemm(static_cast<double>(g.m), static_cast<double>(g.n), static_cast<double>(g.k),
                                        static_cast<double>(g.b)).si();
}

}  // namespace

TraceGemmFit fit_trace_gemms(const std::vector<KinetoTrace>& traces, const GpuSpec& gpu, const StackParameter& p,
                             const StackParameter& half) {
  TraceGemmFit out;
  out.gemm_efficiency = gpu.gemm_efficiency;
  out.gemm_half_efficiency_work = gpu.gemm_half_efficiency_work.si();
  double w_half = out.gemm_half_efficiency_work;
  double sq = 0;  // weighted mean squared log error of the last call
  auto weighted_log_error = [&](double eff, double* abs_rel) {
    double sw = 0, sl = 0, sa = 0, ss = 0;
    for (const auto& t : traces)
      for (const auto& g : t.gemms) {
        if (!sixteen_bit(g.dtype)) continue;
        const double r = model_us(gpu, eff, w_half, g) / g.gpu_time_us_mean;
        sw += g.gpu_time_us_sum;
        sl += g.gpu_time_us_sum * std::log(r);
        ss += g.gpu_time_us_sum * std::log(r) * std::log(r);
        sa += g.gpu_time_us_sum * std::fabs(r - 1);
      }
    if (abs_rel) *abs_rel = sw > 0 ? sa / sw : 0;
    sq = sw > 0 ? ss / sw : 0;
    return sw > 0 ? sl / sw : 0;
  };
  for (const auto& t : traces)
    for (const auto& g : t.gemms) out.shapes += sixteen_bit(g.dtype) ? 1 : 0;
  if (out.shapes == 0) return out;
  (void)weighted_log_error(gpu.gemm_efficiency, &out.error_preset);  // at the preset (w_half = the preset's)
  // The time is ~1/eff where compute-bound: a fixed-point step on the mean log error converges in
  // a few iterations (exactly in one when every shape is compute-bound); clamped to the bounds.
  auto ceiling_for = [&]() {
    double eff = gpu.gemm_efficiency;
    for (int i = 0; i < 8; ++i) eff = std::clamp(eff * std::exp(weighted_log_error(eff, nullptr)), p.lo, p.hi);
    (void)weighted_log_error(eff, nullptr);
    return eff;
  };
  double eff = ceiling_for();
  if (out.shapes >= 2) {
    // The roll-off on a log grid over its bounds (97 points, a 1.1x step), the ceiling refitted at
    // each; the smallest weighted squared log error wins (deterministic; the curve is smooth in both).
    double best = -1, best_w = w_half, best_eff = eff;
    constexpr int kGrid = 96;
    for (int i = 0; i <= kGrid; ++i) {
      w_half = std::exp(std::log(half.lo) + i * (std::log(half.hi) - std::log(half.lo)) / kGrid);
      const double e = ceiling_for();
      if (best < 0 || sq < best) best = sq, best_w = w_half, best_eff = e;
    }
    w_half = best_w;
    eff = best_eff;
    out.gemm_half_efficiency_work = w_half;
  }
  out.gemm_efficiency = eff;
  (void)weighted_log_error(eff, &out.error_fit);
  for (const auto& t : traces)
    for (const auto& g : t.gemms)
      out.model_tflops.push_back(2.0 * static_cast<double>(g.b) * g.m * g.n * g.k / (model_us(gpu, eff, w_half, g) * 1e-6) / 1e12);
  return out;
}

}  // namespace fleetsim::calibrate
