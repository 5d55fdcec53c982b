// Plain test data shared by unit tests: an A100-like GPU in DGX-like nodes on a non-blocking
// rail-optimized fabric, and a GPT of any size. Not catalog presets: tests that need published
// hardware or models load models/.
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

// A GPT-3-style model (4h MLP, no grouped-query attention, 2048 tokens, 51,200-token vocabulary),
// one sequence per microbatch, 64 per iteration, no parallelism.
inline WorkloadSpec gpt(int layers, int hidden, int heads) {
  WorkloadSpec w;
  w.model.name = "gpt";
  w.model.num_layers = layers;
  w.model.hidden_size = hidden;
  w.model.ffn_hidden_size = 4 * hidden;
  w.model.num_attention_heads = heads;
  w.model.num_query_groups = heads;
  w.model.seq_length = 2048;
  w.model.vocab_size = 51200;
  w.training.micro_batch_size = 1;
  w.training.global_batch_size = 64;
  return w;
}

}  // namespace fleetsim::testing
