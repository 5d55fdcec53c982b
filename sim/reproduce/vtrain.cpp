// vTrain (Bang et al., MICRO'24) multi-node and single-node A100 iteration times
// (data/validation/vtrain_*.csv, vtrain_SOURCE.md). The single-node set is the A100 calibration
// set (scripts/calibrate --gpu a100); the multi-node set is judged.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/reproduce/step_sources.hpp"

namespace fleetsim::reproduce {
namespace {

// A GPT model of the vTrain sets: 4h MLP, vocab 50257 (vTrain's default, vtrain_SOURCE.md
// caveat 4), full recomputation and 1F1B on every row (caveat 3), Megatron-DeepSpeed of 2023
// without flash attention and without gradient-bucket overlap (caveat 6), FP16 (caveat 2).
StepCase vtrain_case(const CsvTable& t, size_t i, const std::string& source) {
  StepCase c;
  c.source = source;
  c.metric = CaseMetric::IterationMs;
  c.published = t.num(i, "iteration_time_ms");
  c.base = "selene-a100";
  const int h = t.integer(i, "hidden_size");
  const int heads = t.integer(i, "num_attention_heads");
  c.name = "row " + t.at(i, "row_id") + ": " + t.at(i, "num_gpus") + " GPUs, h" + std::to_string(h) +
           " L" + t.at(i, "num_layers") + ", TP" + t.at(i, "tensor_parallel") + " DP" +
           t.at(i, "data_parallel") + " PP" + t.at(i, "pipeline_parallel") + ", mbs " +
           t.at(i, "micro_batch_size_seqs") + " gbs " + t.at(i, "global_batch_size_seqs");
  // A run on 2 or 4 GPUs uses part of one 8-GPU node: model it as a node of that many GPUs
  // (same NVLink per GPU; NICs unused).
  const int gpus = t.integer(i, "num_gpus");
  const int per_node = std::min(gpus, t.integer(i, "gpus_per_node"));
  c.sets = {
      set("cluster.gpus", gpus),
      set("cluster.node.gpus_per_node", per_node),
      set("cluster.node.nvlink_domain_gpus", per_node),
      // vTrain's configs: inter_node_bandwidth 800 Gb/s per node = 4 x 200 Gb/s (caveat 1).
      set("cluster.node.nics_per_node", std::max(1, 4 * per_node / 8)),
      set(kModel + "num_layers", t.num(i, "num_layers")),
      set(kModel + "hidden_size", h),
      set(kModel + "ffn_hidden_size", 4.0 * h),
      set(kModel + "num_attention_heads", heads),
      set(kModel + "num_query_groups", heads),
      set(kModel + "seq_length", t.num(i, "seq_len_tokens")),
      set(kModel + "vocab_size", 50257),
      set(kModel + "swiglu", "false"),
      set(kPar + "tensor_model_parallel_size", t.num(i, "tensor_parallel")),
      set(kPar + "pipeline_model_parallel_size", t.num(i, "pipeline_parallel")),
      set(kPar + "virtual_pipeline_model_parallel_size", 1),
      set(kPar + "context_parallel_size", 1),
      set(kPar + "sequence_parallel", "false"),
      set(kPar + "recompute_granularity", "full"),
      set(kPar + "use_distributed_optimizer", "false"),
      set(kPar + "zero_stage", 0),
      set(kPar + "overlap_grad_reduce", "false"),
      set(kTrain + "micro_batch_size", t.num(i, "micro_batch_size_seqs")),
      set(kTrain + "global_batch_size", t.num(i, "global_batch_size_seqs")),
      set(kTrain + "precision", "fp16"),  // caveat 2
  };
  c.use_flash_attn = false;
  return c;
}

}  // namespace

std::vector<StepCase> vtrain_multinode_cases() {
  const CsvTable t = read_csv(validation_dir() + "/vtrain_multinode.csv");
  std::vector<StepCase> out;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    StepCase c = vtrain_case(t, i, "vTrain multi-node (A100)");
    c.name = t.at(i, "model_params_billion") + "B " + c.name;
    c.tolerance = 0.30;
    load(c);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<StepCase> vtrain_singlenode_cases() {
  const CsvTable t = read_csv(validation_dir() + "/vtrain_singlenode.csv");
  std::vector<StepCase> out;
  out.reserve(t.rows.size());
  for (size_t i = 0; i < t.rows.size(); ++i) {
    StepCase c = vtrain_case(t, i, "vTrain single-node (A100, calibration set)");
    c.tolerance = 0.30;
    c.calibration = true;  // scripts/calibrate --gpu a100 fits on this set
    load(c);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace fleetsim::reproduce
