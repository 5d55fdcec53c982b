// FP8 training as NVIDIA Transformer Engine (TE) does it under Megatron-core / NeMo: what it
// costs beyond the FP8 GEMMs themselves, per recipe (sim/workload/specs.hpp, Fp8Recipe).
//
// TE (transformer_engine/pytorch/module/{linear,layernorm_linear,layernorm_mlp}.py, v1.x-2.x)
// runs every linear layer's three GEMMs (forward, input gradient, weight gradient) in FP8. Each
// GEMM operand is quantized first: in the forward the 16-bit input X, in the backward the 16-bit
// output gradient dY; both are also needed transposed by the other backward GEMM, so TE's
// fused `cast_transpose` reads the tensor once and writes the FP8 copy and its FP8 transpose.
// The weights are quantized once per iteration (first microbatch; TE caches them across the
// others, `is_first_microbatch`) and the FP8 copies stay resident. The saved activations of the
// linear inputs are the FP8 copies (1 B instead of 2).
#pragma once

#include "sim/hardware/specs.hpp"
#include "sim/workload/specs.hpp"

namespace fleetsim::step {

// HBM bytes per element to quantize one 16-bit tensor for an FP8 GEMM:
// - delayed: read 2, write the FP8 copy 1 and its transpose 1 (scale from the amax history);
// - current: the same plus one more read (2) for the tensor's own amax before the cast;
// - mxfp8: read 2, write the row-wise and column-wise copies 1 + 1 and one E8M0 scale per 32
//   elements for each (2/32); the block amax is computed inside the cast kernel;
// - blockwise: read 2, write the 1 x 128 tiled copy and the 128 x 1 tiled transposed copy 1 + 1
//   (DeepSeek-V3 §3.3.2 re-quantizes the transposed activations for the backward) and one FP32
//   scale per 128 elements for each (2 x 4/128); the tile amax is computed inside the cast.
[[nodiscard]] inline double fp8_cast_bytes_per_element(Fp8Recipe r) {
  switch (r) {
    case Fp8Recipe::Delayed: return 4.0;
    case Fp8Recipe::Current: return 6.0;
    case Fp8Recipe::Mxfp8: return 4.0 + 2.0 / 32.0;
    case Fp8Recipe::Blockwise: return 4.0 + 2.0 * 4.0 / 128.0;
  }
  return 4.0;
}

// Resident FP8 weight copies per linear-layer parameter: the FP8 weight and its transpose
// (Hopper's FP8 tensor cores take only the "TN" layout, so the input-gradient GEMM needs W^T),
// or the row-wise and column-wise MXFP8 copies with their scales, or the blockwise copy and its
// transpose with one FP32 scale per 128 x 128 block each.
[[nodiscard]] inline double fp8_weight_copy_bytes(Fp8Recipe r) {
  if (r == Fp8Recipe::Mxfp8) return 2.0 + 2.0 / 32.0;
  if (r == Fp8Recipe::Blockwise) return 2.0 + 2.0 * 4.0 / (128.0 * 128.0);
  return 2.0;
}

// Throughput of the recipe's FP8 GEMM relative to the per-tensor-scaled one on the same GPU:
// the GPU's fp8_blockwise_gemm_ratio for blockwise (scales applied per 128-wide K slice), 1
// otherwise (per-tensor scales fold into the epilogue; MXFP8 scales are consumed by Blackwell's
// tensor cores, whose cost the MXFP8 calibration rows already carry).
[[nodiscard]] inline double fp8_gemm_ratio(Fp8Recipe r, const GpuSpec& gpu) {
  return r == Fp8Recipe::Blockwise ? gpu.fp8_blockwise_gemm_ratio : 1.0;
}

// Kernels TE launches per linear layer and pass beyond the GEMMs: the cast(-transpose) and, with
// current scaling, the amax reduction kernel before it.
[[nodiscard]] inline double fp8_cast_kernels(Fp8Recipe r) { return r == Fp8Recipe::Current ? 2.0 : 1.0; }

}  // namespace fleetsim::step
