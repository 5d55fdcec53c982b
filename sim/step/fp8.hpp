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


// ---- NVFP4 (workload.training.precision: nvfp4) ----
// Transformer Engine's NVFP4BlockScaling recipe (transformer_engine/common/recipe/__init__.py, TE
// 2.7+; Megatron-Bridge `bf16_with_nvfp4_mixed`, fp4 = "e2m1") as described in NVIDIA,
// "Pretraining Large Language Models with NVFP4" (arXiv:2509.25149, §3-§4):
// - what is quantized: every linear layer's three GEMMs (Fprop, Dgrad, Wgrad) in NVFP4; E2M1
//   values with one E4M3 scale per 16 consecutive elements and one FP32 scale per tensor (the
//   paper's two-level scaling, §2);
// - what stays in higher precision: attention (TE's recipe sets fp8_dpa = fp8_mha = False: the
//   softmax and the two batched attention GEMMs in BF16), norms, router, embedding, the output
//   layer and the loss, as under fp8; the paper also keeps some whole blocks in BF16 (its 12B
//   model: the first two and last eight, §4.1) and Megatron-Bridge's low-precision Llama 3 8B recipe
//   the last four (`num_layers_at_end_in_bf16`), but the performance recipes whose throughput the
//   tables publish (`_perf_precision("nvfp4")`) leave first_last_layers_bf16 off: every block in NVFP4;
// - weights: 2D scaling, one scale per 16 x 16 block (`fp4_quant_fwd_weight`, paper §4.3), so the
//   row-wise and column-wise copies are consistent between forward and backward; cast once per
//   iteration and cached across microbatches as under fp8;
// - Wgrad inputs: a 16 x 16 random Hadamard transform (RHT) on the column-wise copies of the
//   activations and of the output gradients (`fp4_quant_fwd_inp` / `fp4_quant_bwd_grad`, paper
//   §4.2), fused into the cast kernel: 32 FLOP per element against ~5 B of HBM traffic, so the
//   cast stays memory-bound and its time is the bytes below;
// - gradients: stochastic rounding (`fp4_quant_bwd_grad.stochastic_rounding`, paper §4.4), the
//   random bits drawn inside the cast (no extra traffic);
// - master weights and optimizer: BF16 model weights, FP32 main weights and Adam moments in the
//   (distributed) optimizer, gradients as the recipe's grad_reduce_in_fp32 says
//   (`fp4_param_gather` off in the performance recipes: no FP4 parameter copy replaces the BF16 one).

// HBM bytes per element of an NVFP4 operand: a 4-bit value and an E4M3 scale per 16 elements.
inline constexpr double kNvfp4BytesPerElement = 0.5 + 1.0 / 16.0;

// Bytes per element to quantize one 16-bit activation or gradient for the GEMMs: under nvfp4 read
// 2 for the per-tensor amax (the FP32 second-level scale; TE takes the amax of the tensor and of
// its Hadamard-transformed copy in one pass), read 2 for the cast, write the row-wise copy (Fprop
// / Dgrad) and the RHT'd column-wise copy (Wgrad) with their scales: 2 + 2 + 2 x 0.5625 = 5.125.
[[nodiscard]] inline double quantize_bytes_per_element(const TrainingSpec& t) {
  if (t.precision == Precision::Nvfp4) return 2.0 + 2.0 + 2.0 * kNvfp4BytesPerElement;
  return fp8_cast_bytes_per_element(t.fp8_recipe);
}
// Bytes per element to quantize a weight once per iteration: nvfp4's 2D 16 x 16 scaling, amax and
// cast reads (2 + 2), both copies with one scale per 256 elements each.
[[nodiscard]] inline double weight_quantize_bytes_per_element(const TrainingSpec& t) {
  if (t.precision == Precision::Nvfp4) return 2.0 + 2.0 + 2.0 * (0.5 + 1.0 / 256.0);
  return fp8_cast_bytes_per_element(t.fp8_recipe);
}
// Resident quantized weight copies per linear parameter: nvfp4's row-wise and column-wise copies
// (Blackwell's FP4 tensor cores read K-major operands only), 0.5 + 1/256 B each.
[[nodiscard]] inline double quantized_weight_copy_bytes(const TrainingSpec& t) {
  if (t.precision == Precision::Nvfp4) return 2.0 * (0.5 + 1.0 / 256.0);
  return fp8_weight_copy_bytes(t.fp8_recipe);
}
// Bytes per element of a linear layer's input saved for its backward: the FP8 copy (1 B), or
// under nvfp4 the RHT'd column-wise NVFP4 copy the Wgrad GEMM reads (0.5625 B).
[[nodiscard]] inline double saved_linear_input_bytes(const TrainingSpec& t) {
  return t.precision == Precision::Nvfp4 ? kNvfp4BytesPerElement : 1.0;
}
// Kernels per quantized tensor: nvfp4 runs the amax pass and the (RHT-fused) cast.
[[nodiscard]] inline double quantize_kernels(const TrainingSpec& t) {
  return t.precision == Precision::Nvfp4 ? 2.0 : fp8_cast_kernels(t.fp8_recipe);
}
// GEMM throughput relative to the precision's per-tensor-scaled GEMM: 1 under nvfp4 (the block
// scales are consumed by the tensor cores, their cost is in gemm_efficiency_fp4).
[[nodiscard]] inline double quantized_gemm_ratio(const TrainingSpec& t, const GpuSpec& gpu) {
  return t.precision == Precision::Nvfp4 ? 1.0 : fp8_gemm_ratio(t.fp8_recipe, gpu);
}

}  // namespace fleetsim::step
