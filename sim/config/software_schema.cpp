// The `software:` schema (sim/workload/software.hpp): every field of a software stack with its
// unit, bound, default and doc; a preset (models/software/) or a user's file gives each one a
// value and its source. The defaults are the step model as it was before the key existed.
#include "sim/config/schema.hpp"
#include "sim/units/quantity.hpp"

namespace fleetsim::config {

std::shared_ptr<const Schema> software_schema() {
  auto s = std::make_shared<Schema>();
  s->name = "software";
  s->doc = "A training software stack: kernel fusions, host dispatch, FP8 attention, TP overlap, DP buckets, "
           "optimizer, fitted efficiencies (models/software/README.md).";
  s->fields = {
      // Kernel fusions: they change the op list (sim/step/layer_ops.cpp).
      boolean("bias_swiglu_fusion", "true",
              "SwiGLU as one kernel reading gate and up and writing the output, 6 B per element (Megatron-core "
              "bias_swiglu_fusion); false: silu and multiply as two kernels, 10 B per element"),
      boolean("masked_softmax_fusion", "true",
              "unfused attention path: scale, mask and softmax as one kernel, 4 B per score forward and 6 backward "
              "(Megatron FusedScaleMaskSoftmax); false: three kernels forward (12 B), two backward (10 B)"),
      // Host dispatch.
      boolean("cuda_graphs", "false",
              "transformer layers replayed as CUDA graphs: the host no longer bounds a layer's pass by its kernels"),
      real("host_ops_per_kernel", "3",
           "PyTorch ops the host issues per kernel of the op list (views, splits, autograd bookkeeping)", 0, 50),
      quantity("kernel_launch_overhead", dim<Seconds>(), "0 us",
               "host time of one such op; 0 = the GPU preset's kernel_launch_overhead", 0, false),
      // FP8 attention.
      boolean("fp8_attention", "false",
              "under precision fp8, the attention core runs in FP8 (Transformer Engine FP8 DPA, cuDNN / "
              "FlashAttention-3 FP8)"),
      real("fp8_attention_speedup", "1.62", "FP8 attention throughput over BF16 attention on the same GPU", 1, 4),
      // TP overlap.
      choice("tp_overlap_method", {"pipeline", "bulk"}, "pipeline",
             "how a hidden TP collective (workload.parallel.tp_comm_overlap) shares time with its GEMM: pipeline = "
             "split into TP chunks, max(comm, GEMM) + min(comm, GEMM) / TP; bulk = one transfer beside the GEMM, "
             "max(comm, GEMM)"),
      integer("tp_overlap_sms", "0",
              "SMs the TP-overlap kernels hold while they run; the GEMMs they hide behind run on the rest "
              "(0 = not modelled)", 0, 1024),
      // Data-parallel buckets.
      real("dp_bucket_min_params", "4e7", "smallest gradient bucket, parameters (Megatron DDP: 40M)", 1e5, 1e10),
      real("dp_bucket_params_per_dp_rank", "1e6",
           "bucket parameters per data-parallel rank: bucket = max(min, this x DP) (Megatron DDP: 1M)", 0, 1e9),
      // Optimizer step.
      real("optimizer_bytes_per_param", "38",
           "HBM bytes per parameter of the optimizer step under bf16/fp8: gradient norm 4, fused Adam 28, "
           "master-weight copy 6 (fp16 adds 14)", 1, 1000),
      real("optimizer_kernels", "20", "kernels of the optimizer step (multi-tensor apply)", 0, 100000),
      // Efficiencies fitted for the stack (0 = the GPU preset's value).
      real("gemm_efficiency", "0", "BF16 GEMM ceiling, fraction of peak; 0 = the GPU preset's", 0, 1),
      real("gemm_efficiency_fp8", "0", "FP8 GEMM ceiling, fraction of peak_fp8; 0 = the GPU preset's", 0, 1),
      real("attention_efficiency", "0", "flash attention, fraction of peak; 0 = the GPU preset's", 0, 1),
      real("hbm_efficiency", "0", "memory-bound kernels, fraction of HBM bandwidth; 0 = the GPU preset's", 0, 1),
      quantity("gemm_half_efficiency_work", dim<Flops>(), "0 GFLOP",
               "GEMM work at which efficiency is half its ceiling; 0 = the GPU preset's", 0, false),
      real("unfused_attention_hbm_efficiency", "0",
           "the unfused attention core's s x s kernels, fraction of HBM bandwidth; 0 = the GPU preset's", 0, 1),
      real("nvlink_efficiency", "0", "NCCL bus bandwidth over the NVLink rate; 0 = the node preset's", 0, 1),
      real("fabric_efficiency", "0", "NCCL large-message bandwidth over the fabric link rate; 0 = the fabric preset's", 0, 1),
  };
  return s;
}

}  // namespace fleetsim::config
