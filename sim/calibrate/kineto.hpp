// PyTorch profiler (Kineto) traces for `fleetsim calibrate --trace` (sim/calibrate/README.md,
// "Traces"): a Chrome-trace JSON, plain or gzip (.json.gz, read through zlib), with
// `record_shapes` on. GPU kernels are joined to the CPU op that launched them (the kernel's
// `External id`, or its `correlation` through the CUDA runtime launch), the GEMM ops
// (aten::mm / addmm / bmm with Input Dims) give achieved TFLOP/s by shape, and NCCL kernel time
// and the share of GPU time in no shaped GEMM are reported.
#pragma once

#include <string>
#include <vector>

#include "sim/hardware/specs.hpp"

namespace fleetsim::calibrate {

struct TraceGemm {
  std::string op;             // aten::mm | aten::addmm | aten::bmm
  long long b = 1, m = 0, n = 0, k = 0;
  std::string dtype;          // of the A operand, e.g. c10::BFloat16
  int count = 0;              // instances
  double tflops_mean = 0;     // mean over instances of 2 B M N K / (the op's GPU time)
  double gpu_time_us_mean = 0;
  double gpu_time_us_sum = 0;
};

struct KinetoTrace {
  std::string file;
  std::string device;         // deviceProperties[0].name, e.g. "NVIDIA H100 80GB HBM3"
  int kernels = 0;            // GPU kernels, memsets and memcpys
  double gpu_time_us = 0;     // their summed duration
  double gemm_time_us = 0;    // of those, in shaped GEMM ops
  double nccl_time_us = 0;    // NCCL kernels (one rank: not a bandwidth; fleetsim takes the minimum over ranks)
  std::vector<TraceGemm> gemms;  // by shape, largest total time first
  [[nodiscard]] double unmatched_share() const { return gpu_time_us > 0 ? 1 - gemm_time_us / gpu_time_us : 0; }
};

// Reads and summarizes a trace. Throws ConfigError (exit 2) naming the file for a missing, empty,
// truncated or malformed trace, one without traceEvents, or without any GPU kernel.
[[nodiscard]] KinetoTrace read_kineto(const std::string& path);

// Whether the trace's device is the scenario's GPU (by the model's name: A100, H100, H200, H800,
// B200, B300, GB200, GB300); throws ConfigError naming the trace, deviceProperties and both GPUs.
void check_trace_gpu(const KinetoTrace& t, const GpuSpec& gpu);

}  // namespace fleetsim::calibrate
