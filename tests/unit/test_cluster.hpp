// Plain test data shared by unit tests: an A100-like GPU in DGX-like nodes on a non-blocking
// rail-optimized fabric. Not a catalog preset: tests that need published hardware load models/.
#pragma once

#include "sim/scenario.hpp"

namespace fleetsim::testing {

inline ClusterSpec a100_like_cluster(int gpus) {
  ClusterSpec c;
  c.gpus = gpus;
  c.gpu.name = "test-gpu";
  c.gpu.memory = units::gib(80);
  c.gpu.hbm_bandwidth = BytesPerSecond(2e12);
  c.gpu.peak_bf16 = units::tflop_per_s(312);
  c.gpu.sm_count = 108;
  c.gpu.gemm_efficiency = 0.8;
  c.gpu.gemm_half_efficiency_work = Flops(5e9);
  c.gpu.attention_efficiency = 0.6;
  c.gpu.hbm_efficiency = 0.8;
  c.gpu.kernel_launch_overhead = Seconds(5e-6);
  c.gpu.usable_memory_reserve = units::gib(3);
  c.node.nvlink_bandwidth = units::gb_per_s(300);
  c.node.nvlink_latency = Seconds(2e-6);
  c.node.nic_bandwidth = units::gbit_per_s(200);
  c.fabric.link_bandwidth = units::gbit_per_s(200);
  c.fabric.hop_latency = Seconds(1e-6);
  return c;
}

}  // namespace fleetsim::testing
