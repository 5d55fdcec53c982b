// Per-kernel time on one GPU: roofline with a shape-dependent GEMM efficiency, fused attention,
// memory-bound kernels and launch overhead. The efficiency parameters are the GPU preset's
// calibration fields (GpuSpec), fitted by scripts/calibrate on vtrain_singlenode.csv (A100).
#pragma once

#include <vector>

#include "sim/hardware/specs.hpp"
#include "sim/units/quantity.hpp"

namespace fleetsim::step {

class GpuCompute {
 public:
  // `slowdown` >= 1 stretches every kernel (straggler, thermal throttling).
  GpuCompute(const GpuSpec& gpu, double slowdown = 1.0);

  // `count` independent GEMMs of (M x K) * (K x N), launched as one batched/grouped kernel.
  // FLOPs = 2 M N K count. Time = max(FLOPs / (peak * eff), bytes / (HBM * hbm_eff)) where
  //   eff = gemm_efficiency * W / (W + W_half) * wave_eff * tile_eff
  // - W / (W + W_half): small GEMMs cannot fill the GPU or amortize prologue/epilogue
  //   (a saturating curve; W is the kernel's FLOPs, W_half the preset's gemm_half_efficiency_work);
  // - tile_eff: the output is computed in 128 x 128 tiles; partially filled edge tiles do full
  //   work (tile quantization, NVIDIA "Matrix Multiplication Background" guide);
  // - wave_eff: tiles run in waves of one tile per SM; the last partial wave idles SMs
  //   (wave quantization, same guide).
  [[nodiscard]] Seconds gemm(double m, double n, double k, double count = 1.0) const;
  // The same GEMM with FP8 operands (1 B each, 16-bit output) at the FP8 dense peak and the
  // preset's gemm_efficiency_fp8; the ramp W_half is the same time at full rate, so it scales
  // with the peak (W_half x peak_fp8 / peak_bf16). `recipe_ratio` scales the efficiency for the
  // FP8 scaling recipe (fp8.hpp, fp8_gemm_ratio; 1 = per-tensor scales).
  [[nodiscard]] Seconds gemm_fp8(double m, double n, double k, double count = 1.0, double recipe_ratio = 1.0) const;
  // Fused (flash) attention kernel doing `flops` of tensor-core work (FlashAttention-2, Dao 2023:
  // its own efficiency because the softmax and masking interleave with the matmuls).
  [[nodiscard]] Seconds attention(Flops flops) const;
  // A memory-bound kernel moving `bytes` through HBM.
  [[nodiscard]] Seconds memory_bound(Bytes bytes) const;
  // The unfused attention core's s x s kernels (Megatron-LM without flash attention): the batched
  // QK^T / AV GEMMs (their memory term dominated by the s x s scores they write or read) and the
  // masked softmax and dropout passes, at the preset's unfused_attention_hbm_efficiency.
  [[nodiscard]] Seconds gemm_scores(double m, double n, double k, double count = 1.0) const;
  [[nodiscard]] Seconds memory_bound_scores(Bytes bytes) const;
  // Launch overhead of `kernels` kernels that the stream does not hide.
  [[nodiscard]] Seconds launch(double kernels) const;

  [[nodiscard]] FlopsPerSecond peak() const { return peak_; }
  // TP overlap (tp_overlap.hpp): SMs, the measured GEMM-vs-M curve, the exposed share.
  [[nodiscard]] int sms() const { return static_cast<int>(sms_); }
  [[nodiscard]] const std::vector<GemmMPoint>& gemm_m_curve() const { return curve_; }
  [[nodiscard]] double tp_overlap_exposed_share() const { return tp_exposed_share_; }

 private:
  [[nodiscard]] Seconds gemm_time(double m, double n, double k, double count, double peak, double eff_max,
                                  double w_half, double operand_bytes, double hbm) const;
  double peak_flops_ = 0;      // after slowdown
  double peak_fp8_flops_ = 0, eff_fp8_ = 0, w_half_fp8_ = 0;
  double eff_max_ = 0, w_half_ = 0, attn_eff_ = 0, hbm_ = 0, hbm_scores_ = 0, launch_ = 0;
  double sms_ = 108;
  FlopsPerSecond peak_;
  std::vector<GemmMPoint> curve_;
  double tp_exposed_share_ = 0;
};

}  // namespace fleetsim::step
