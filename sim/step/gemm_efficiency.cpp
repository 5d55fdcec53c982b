#include "sim/step/gemm_efficiency.hpp"

#include <algorithm>
#include <cmath>

namespace fleetsim::step {
namespace {
constexpr double kTile = 128.0;  // output tile edge of Ampere/Hopper cuBLAS/CUTLASS kernels
}

GpuCompute::GpuCompute(const GpuSpec& gpu, double slowdown) {
  const double s = std::max(1e-9, slowdown);
  peak_ = gpu.peak_bf16;
  peak_flops_ = gpu.peak_bf16.si() / s;
  eff_max_ = gpu.gemm_efficiency;
  w_half_ = gpu.gemm_half_efficiency_work.si();
  peak_fp8_flops_ = gpu.peak_fp8.si() / s;
  eff_fp8_ = gpu.gemm_efficiency_fp8;
  w_half_fp8_ = gpu.peak_bf16.si() > 0 ? w_half_ * gpu.peak_fp8.si() / gpu.peak_bf16.si() : w_half_;
  attn_eff_ = gpu.attention_efficiency;
  hbm_ = gpu.hbm_bandwidth.si() * gpu.hbm_efficiency / s;
  hbm_scores_ = gpu.unfused_attention_hbm_efficiency > 0
                    ? gpu.hbm_bandwidth.si() * gpu.unfused_attention_hbm_efficiency / s
                    : hbm_;
  launch_ = gpu.kernel_launch_overhead.si();
  sms_ = gpu.sm_count > 0 ? gpu.sm_count : 108;
  curve_ = gpu.gemm_m_curve;
  tp_exposed_share_ = gpu.tp_overlap_exposed_share;
}

Seconds GpuCompute::gemm_time(double m, double n, double k, double count, double peak, double eff_max,
                              double w_half, double operand_bytes, double hbm) const {
  if (m <= 0 || n <= 0 || k <= 0 || count <= 0) return Seconds(0);
  const double flops = 2.0 * m * n * k * count;
  const double tm = std::ceil(m / kTile), tn = std::ceil(n / kTile);
  const double tile_eff = (m * n) / (tm * tn * kTile * kTile);
  const double tiles = tm * tn * count;
  const double wave_eff = tiles / (std::ceil(tiles / sms_) * sms_);
  const double eff = eff_max * flops / (flops + w_half) * tile_eff * wave_eff;
  const double t_math = flops / (peak * eff);
  const double bytes = (operand_bytes * (m * k + k * n) + 2.0 * m * n) * count;  // 16-bit output
  return Seconds(std::max(t_math, bytes / hbm));
}

Seconds GpuCompute::gemm(double m, double n, double k, double count) const {
  return gemm_time(m, n, k, count, peak_flops_, eff_max_, w_half_, 2.0, hbm_);
}

Seconds GpuCompute::gemm_scores(double m, double n, double k, double count) const {
  return gemm_time(m, n, k, count, peak_flops_, eff_max_, w_half_, 2.0, hbm_scores_);
}

Seconds GpuCompute::memory_bound_scores(Bytes bytes) const { return Seconds(bytes.si() / hbm_scores_); }

Seconds GpuCompute::gemm_fp8(double m, double n, double k, double count, double recipe_ratio) const {
  if (peak_fp8_flops_ <= 0 || eff_fp8_ <= 0 || recipe_ratio <= 0) return gemm(m, n, k, count);  // guarded at load time
  return gemm_time(m, n, k, count, peak_fp8_flops_, eff_fp8_ * recipe_ratio, w_half_fp8_, 1.0, hbm_);
}

Seconds GpuCompute::attention(Flops flops) const {
  return Seconds(flops.si() / (peak_flops_ * attn_eff_));
}

Seconds GpuCompute::memory_bound(Bytes bytes) const { return Seconds(bytes.si() / hbm_); }

Seconds GpuCompute::launch(double kernels) const { return Seconds(kernels * launch_); }

}  // namespace fleetsim::step
