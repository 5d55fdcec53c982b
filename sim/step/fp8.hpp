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

#include "sim/workload/specs.hpp"

namespace fleetsim::step {

// HBM bytes per element to quantize one 16-bit tensor for an FP8 GEMM:
// - delayed: read 2, write the FP8 copy 1 and its transpose 1 (scale from the amax history);
// - current: the same plus one more read (2) for the tensor's own amax before the cast;
// - mxfp8: read 2, write the row-wise and column-wise copies 1 + 1 and one E8M0 scale per 32
//   elements for each (2/32); the block amax is computed inside the cast kernel.
[[nodiscard]] inline double fp8_cast_bytes_per_element(Fp8Recipe r) {
  switch (r) {
    case Fp8Recipe::Delayed: return 4.0;
    case Fp8Recipe::Current: return 6.0;
    case Fp8Recipe::Mxfp8: return 4.0 + 2.0 / 32.0;
  }
  return 4.0;
}

// Resident FP8 weight copies per linear-layer parameter: the FP8 weight and its transpose
// (Hopper's FP8 tensor cores take only the "TN" layout, so the input-gradient GEMM needs W^T),
// or the row-wise and column-wise MXFP8 copies with their scales.
[[nodiscard]] inline double fp8_weight_copy_bytes(Fp8Recipe r) {
  return r == Fp8Recipe::Mxfp8 ? 2.0 + 2.0 / 32.0 : 2.0;
}

// Kernels TE launches per linear layer and pass beyond the GEMMs: the cast(-transpose) and, with
// current scaling, the amax reduction kernel before it.
[[nodiscard]] inline double fp8_cast_kernels(Fp8Recipe r) { return r == Fp8Recipe::Current ? 2.0 : 1.0; }

}  // namespace fleetsim::step
