// Hand-built clusters and workloads for the SimGrid tier's tests (catalog-like numbers: DGX H100 /
// DGX A100 nodes, NDR / HDR fabrics), so the unit tests do not depend on the scenario loader.
#pragma once

#include "sim/scenario.hpp"

namespace fleetsim::sgtest {

inline ClusterSpec h100_cluster(int gpus, FabricTopology topology = FabricTopology::RailOptimized,
                                int gpus_per_leaf = 32, double oversubscription = 1.0, int tiers = 2,
                                int pod_gpus = 0, double pod_oversubscription = 1.0) {
  ClusterSpec c;
  c.gpus = gpus;
  c.gpu.name = "h100-sxm-80gb";
  c.gpu.memory = units::gib(80);
  c.gpu.hbm_bandwidth = BytesPerSecond(3.35e12);
  c.gpu.peak_bf16 = FlopsPerSecond(989e12);
  c.gpu.peak_fp8 = FlopsPerSecond(1979e12);
  c.gpu.sm_count = 132;
  c.gpu.gemm_efficiency = 0.8;
  c.gpu.gemm_half_efficiency_work = Flops(2e9);
  c.gpu.attention_efficiency = 0.6;
  c.gpu.hbm_efficiency = 0.8;
  c.gpu.kernel_launch_overhead = Seconds(4e-6);
  c.gpu.usable_memory_reserve = units::gib(4);
  c.node.name = "dgx-h100";
  c.node.gpus_per_node = 8;
  c.node.nvlink_domain_gpus = 8;
  c.node.nvlink_bandwidth = units::gb_per_s(450);
  c.node.nvlink_latency = Seconds(2e-6);
  c.node.nvlink_efficiency = 0.8;
  c.node.nics_per_node = 8;
  c.node.nic_bandwidth = units::gbit_per_s(400);
  c.fabric.name = "test-fabric";
  c.fabric.topology = topology;
  c.fabric.tiers = tiers;
  c.fabric.switch_radix = 64;
  c.fabric.gpus_per_leaf = gpus_per_leaf;
  c.fabric.oversubscription = oversubscription;
  c.fabric.pod_gpus = pod_gpus;
  c.fabric.pod_oversubscription = pod_oversubscription;
  c.fabric.link_bandwidth = units::gbit_per_s(400);
  c.fabric.hop_latency = Seconds(1e-6);
  c.fabric.efficiency = 0.85;
  return c;
}

inline ParallelSpec layout(int tp, int pp, int cp = 1, const char* order = "tp-cp-dp-pp") {
  ParallelSpec p;
  p.tensor_model_parallel_size = tp;
  p.pipeline_model_parallel_size = pp;
  p.context_parallel_size = cp;
  p.rank_order = order;
  return p;
}

}  // namespace fleetsim::sgtest

namespace fleetsim::sgtest {

// Llama 3 405B as in Table 3 / Table 4 row 2 of arXiv:2407.21783, on `gpus` H100 with TP 8, PP 16.
inline WorkloadSpec llama3_405b(int gpus, int global_batch = 2048) {
  WorkloadSpec w;
  w.model.name = "llama3-405b";
  w.model.num_layers = 126;
  w.model.hidden_size = 16384;
  w.model.ffn_hidden_size = 53248;
  w.model.num_attention_heads = 128;
  w.model.num_query_groups = 8;
  w.model.seq_length = 8192;
  w.model.vocab_size = 128000;
  w.model.swiglu = true;
  w.parallel.tensor_model_parallel_size = 8;
  w.parallel.pipeline_model_parallel_size = 16;
  w.parallel.pipeline_layer_split = {7, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 7};
  w.parallel.sequence_parallel = true;
  w.parallel.zero_stage = 3;
  w.parallel.data_parallel_size = gpus / 128;
  w.training.micro_batch_size = 1;
  w.training.global_batch_size = global_batch;
  return w;
}

}  // namespace fleetsim::sgtest
