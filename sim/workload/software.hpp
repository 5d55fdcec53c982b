// The software stack (issue 37; STYLE.md item 12): what differs between training stacks and is
// physical — kernel fusions (they change the op list, sim/step/layer_ops.cpp), CUDA graphs and the
// host cost per kernel, FP8 attention, the TP-overlap method and its SMs, DP bucketing, the
// optimizer step, and the efficiencies fitted for the stack. A scenario names it with the
// top-level `software:` key (a preset of models/software/ or a file, with overrides); the fields,
// units, bounds and sources are in sim/config/software_schema.cpp (`fleetsim describe software
// NAME`). The defaults are the model as it was before the key existed: `software: default`.
#pragma once

#include <string>

#include "sim/units/quantity.hpp"

namespace fleetsim {

// How a hidden TP collective shares time with its GEMM (Transformer Engine userbuffers).
// pipeline: split into TP chunks pipelined with the GEMM's chunks (one chunk fills the pipe);
// bulk: runs beside an independent GEMM as one transfer, no fill.
enum class TpOverlapMethod { Pipeline, Bulk };

struct SoftwareSpec {
  std::string name = "default";
  // Kernel fusions (the op list).
  bool bias_swiglu_fusion = true;     // SwiGLU as one kernel (read gate and up, write out)
  bool masked_softmax_fusion = true;  // unfused attention: scale, mask and softmax as one kernel
  // Host dispatch.
  bool cuda_graphs = false;           // layers replayed as CUDA graphs: no per-kernel host bound
  double host_ops_per_kernel = 3.0;   // PyTorch ops the host issues per kernel of the op list
  Seconds kernel_launch_overhead;     // host time per such op; 0 = the GPU preset's
  // FP8 attention (cuDNN / FlashAttention-3 FP8 under precision fp8).
  bool fp8_attention = false;
  double fp8_attention_speedup = 1.62;
  // TP communication overlap.
  TpOverlapMethod tp_overlap_method = TpOverlapMethod::Pipeline;
  int tp_overlap_sms = 0;             // SMs the overlap kernels hold; 0 = their share not modelled
  // Data-parallel gradient buckets: max(min, per-rank x DP) parameters (Megatron DDP).
  double dp_bucket_min_params = 4.0e7;
  double dp_bucket_params_per_dp_rank = 1.0e6;
  // Optimizer step (bf16 / fp8; fp16 adds its unscale passes).
  double optimizer_bytes_per_param = 38.0;
  double optimizer_kernels = 20.0;
  // Efficiencies fitted for the stack; 0 = the GPU preset's value.
  double gemm_efficiency = 0, gemm_efficiency_fp8 = 0, attention_efficiency = 0, hbm_efficiency = 0;
};

}  // namespace fleetsim
