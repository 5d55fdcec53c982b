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
  attn_eff_ = gpu.attention_efficiency;
  hbm_ = gpu.hbm_bandwidth.si() * gpu.hbm_efficiency / s;
  launch_ = gpu.kernel_launch_overhead.si();
  sms_ = gpu.sm_count > 0 ? gpu.sm_count : 108;
}

Seconds GpuCompute::gemm(double m, double n, double k, double count) const {
  if (m <= 0 || n <= 0 || k <= 0 || count <= 0) return Seconds(0);
  const double flops = 2.0 * m * n * k * count;
  const double tm = std::ceil(m / kTile), tn = std::ceil(n / kTile);
  const double tile_eff = (m * n) / (tm * tn * kTile * kTile);
  const double tiles = tm * tn * count;
  const double wave_eff = tiles / (std::ceil(tiles / sms_) * sms_);
  const double eff = eff_max_ * flops / (flops + w_half_) * tile_eff * wave_eff;
  const double t_math = flops / (peak_flops_ * eff);
  const double bytes = 2.0 * (m * k + k * n + m * n) * count;  // 16-bit operands
  return Seconds(std::max(t_math, bytes / hbm_));
}

Seconds GpuCompute::attention(Flops flops) const {
  return Seconds(flops.si() / (peak_flops_ * attn_eff_));
}

Seconds GpuCompute::memory_bound(Bytes bytes) const { return Seconds(bytes.si() / hbm_); }

Seconds GpuCompute::launch(double kernels) const { return Seconds(kernels * launch_); }

}  // namespace fleetsim::step
