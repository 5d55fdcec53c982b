// The parameters `fleetsim calibrate` may fit (parameters.hpp).
#include "sim/calibrate/parameters.hpp"

#include <sstream>

#include "sim/core/error.hpp"

namespace fleetsim::calibrate {
namespace {

std::vector<StackParameter> make_parameters() {
  // Bounds are physical and wide enough for every GPU in models/gpus (each preset lies inside), so
  // a user's stack may be slower or faster than NVIDIA's recipes but never beyond what the
  // hardware can do. Order: the parameters kept first when two are collinear on the rows.
  return {
      {"kernel_launch_overhead", "cluster.gpu.kernel_launch_overhead", "s", 0.5e-6, 50e-6,
       "lower: a CUDA-graph launch, ~0.5 us per kernel (NVIDIA CUDA Graphs blog, 2019); upper: twice the 25 us per eager "
       "PyTorch op of bench/calibrate_a100.cpp's physical box (Python-side op dispatch)",
       "host time per kernel not hidden by the stream"},
      {"gemm_half_efficiency_work", "cluster.gpu.gemm_half_efficiency_work", "FLOP", 1e8, 1e12,
       "search box of bench/calibrate_a100.cpp (1e6-1e12 FLOP), lower end raised to 0.1 GFLOP (below it every "
       "catalog GEMM would run at its ceiling)",
       "GEMM work at which efficiency is half its ceiling (small-GEMM roll-off)"},
      {"hbm_efficiency", "cluster.gpu.hbm_efficiency", "", 0.30, 0.95,
       "upper: the best streaming kernels reach 88-92% of datasheet HBM bandwidth (A100 88%, NVIDIA forum; H100 "
       "copy/triad 3.02-3.08 of 3.35 TB/s); lower: the search box of bench/calibrate_a100.cpp",
       "achieved fraction of HBM bandwidth of memory-bound kernels"},
      {"gemm_efficiency", "cluster.gpu.gemm_efficiency", "", 0.30, 0.95,
       "upper: best-shape cuBLAS BF16 GEMM, 0.86-0.94 of the dense peak across A100/H100/MI300 (MAMF table, "
       "stas00/ml-engineering); lower: a stack at under a third of that is not a GEMM problem",
       "fraction of the 16-bit peak a large, well-shaped GEMM reaches"},
      {"gemm_efficiency_fp8", "cluster.gpu.gemm_efficiency_fp8", "", 0.20, 0.90,
       "upper: cuBLASLt FP8 8192^3 on H100 SXM reaches 0.82 of peak_fp8, Blackwell bound 0.85 "
       "(sim/uncertainty/parameter_fit.cpp); lower: below the BF16 rate",
       "fraction of the FP8 peak a large FP8 GEMM reaches"},
      {"attention_efficiency", "cluster.gpu.attention_efficiency", "", 0.15, 0.80,
       "FlashAttention-2 35-73% of peak (Dao 2023), FlashAttention-3 up to 75% on H100 (Shah et al. 2024)",
       "fused (flash) attention, fraction of the 16-bit peak"},
      {"unfused_attention_hbm_efficiency", "cluster.gpu.unfused_attention_hbm_efficiency", "", 0.20, 0.95,
       "bounds of scripts/calibrate --attention widened to the HBM bounds above",
       "fraction of HBM bandwidth the unfused attention core's s x s kernels reach"},
      {"nvlink_efficiency", "cluster.node.nvlink_efficiency", "", 0.40, 0.95,
       "nccl-tests all-reduce bus bandwidth on NVLink reaches 0.8-0.9 of the link rate (NVIDIA nccl-tests "
       "PERFORMANCE.md; Echo's 8-GPU A100 logs ~231 of 300 GB/s)",
       "achieved bus bandwidth / NVLink rate"},
      {"fabric_efficiency", "cluster.fabric.efficiency", "", 0.40, 0.98,
       "upper: large-message nccl-tests bus bandwidth over IB/RoCE reaches 0.8-0.95 of the link rate (NVIDIA "
       "nccl-tests doc/PERFORMANCE.md); lower: a congested or misconfigured fabric",
       "achieved fraction of the fabric link rate for large messages"},
  };
}

}  // namespace

double StackParameter::get(const ClusterSpec& c) const {
  if (name == "kernel_launch_overhead") return c.gpu.kernel_launch_overhead.si();
  if (name == "gemm_half_efficiency_work") return c.gpu.gemm_half_efficiency_work.si();
  if (name == "hbm_efficiency") return c.gpu.hbm_efficiency;
  if (name == "gemm_efficiency") return c.gpu.gemm_efficiency;
  if (name == "gemm_efficiency_fp8") return c.gpu.gemm_efficiency_fp8;
  if (name == "attention_efficiency") return c.gpu.attention_efficiency;
  if (name == "unfused_attention_hbm_efficiency") return c.gpu.unfused_attention_hbm_efficiency;
  if (name == "nvlink_efficiency") return c.node.nvlink_efficiency;
  if (name == "fabric_efficiency") return c.fabric.efficiency;
  return 0;
}

void StackParameter::set(ClusterSpec& c, double v) const {
  if (name == "kernel_launch_overhead") c.gpu.kernel_launch_overhead = Seconds(v);
  else if (name == "gemm_half_efficiency_work") c.gpu.gemm_half_efficiency_work = Flops(v);
  else if (name == "hbm_efficiency") c.gpu.hbm_efficiency = v;
  else if (name == "gemm_efficiency") c.gpu.gemm_efficiency = v;
  else if (name == "gemm_efficiency_fp8") c.gpu.gemm_efficiency_fp8 = v;
  else if (name == "attention_efficiency") c.gpu.attention_efficiency = v;
  else if (name == "unfused_attention_hbm_efficiency") c.gpu.unfused_attention_hbm_efficiency = v;
  else if (name == "nvlink_efficiency") c.node.nvlink_efficiency = v;
  else if (name == "fabric_efficiency") c.fabric.efficiency = v;
}

std::string StackParameter::with_unit(double v) const {
  std::ostringstream os;
  os.precision(6);
  if (unit == "s") os << v * 1e6 << " us";
  else if (unit == "FLOP") os << v / 1e9 << " GFLOP";
  else os << v;
  return os.str();
}

StackParameter for_gpu(StackParameter p, const GpuSpec& gpu) {
  static const char* const kMeasuredGemm[] = {"a100-sxm-40gb", "a100-sxm-80gb", "h100-sxm-80gb", "h200-sxm-141gb",
                                              "h800-sxm-80gb"};
  // HBM: the best streaming kernel measured on the GPU (A100 80GB 88%, NVIDIA developer forum, as
  // models/gpus/a100-sxm-80gb.yaml; H100 SXM copy/triad 3.08 of 3.35 TB/s = 0.92, as h100-sxm-80gb.yaml).
  if (p.name == "hbm_efficiency") {
    const bool a100 = gpu.name.rfind("a100", 0) == 0;
    const bool hopper = gpu.name.rfind("h100", 0) == 0 || gpu.name.rfind("h200", 0) == 0 || gpu.name.rfind("h800", 0) == 0;
    if (a100 || hopper) {
      p.hi = a100 ? 0.88 : 0.92;
      p.bound_source = std::string("upper: the best streaming kernel measured on ") +
                       (a100 ? "A100 80GB, 88% of datasheet bandwidth (NVIDIA developer forum)"
                             : "H100 SXM, copy/triad 3.08 of 3.35 TB/s = 0.92") +
                       "; lower: the search box of bench/calibrate_a100.cpp";
    }
    return p;
  }
  if (p.name != "gemm_efficiency") return p;
  for (const char* name : kMeasuredGemm)
    if (gpu.name == name && gpu.gemm_efficiency > p.lo) {
      p.hi = gpu.gemm_efficiency;
      p.bound_source = "upper: the preset's measured best-shape GEMM on " + gpu.name +
                       " (models/gpus: MAMF cuBLAS matmul x the sustained clock); a stack cannot beat it. " + p.bound_source;
    }
  return p;
}

const std::vector<StackParameter>& stack_parameters() {
  static const std::vector<StackParameter> all = make_parameters();
  return all;
}

const StackParameter& stack_parameter(const std::string& name, const std::string& option) {
  std::string names;
  for (const auto& p : stack_parameters()) {
    if (p.name == name) return p;
    names += (names.empty() ? "" : ", ") + p.name;
  }
  throw ConfigError("", option, "unknown parameter '" + name + "'; the parameters calibrate fits: " + names);
}

}  // namespace fleetsim::calibrate
