// Megatron-LM SC'21 (Narayanan et al.) Table 1: achieved TFLOP/s per GPU on Selene
// (data/validation/megatron_sc21_table1.csv). Judged.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/reproduce/step_sources.hpp"

namespace fleetsim::reproduce {

// Megatron-LM SC'21 Table 1 on Selene. Settings the table omits (micro-batch size, layers per
// virtual stage, DDP implementation) come from the authors' script (sim/reproduce/data/README.md);
// full recomputation as eq. 3 assumes; unfused attention and no sequence parallelism (2021).
std::vector<StepCase> megatron_sc21_table1_cases() {
  const CsvTable t = read_csv(validation_dir() + "/megatron_sc21_table1.csv");
  const CsvTable run = read_csv(step_settings_dir() + "/megatron_sc21_run_table_1.csv");
  std::vector<StepCase> out;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const std::string size = t.at(i, "params_billion");
    size_t k = 0;
    while (k < run.rows.size() && std::fabs(run.num(k, "params_billion") - t.num(i, "params_billion")) > 1e-6) ++k;
    if (k == run.rows.size()) throw std::runtime_error(run.path + ": no row for " + size + "B");
    StepCase c;
    c.source = "Megatron-LM SC'21 Table 1";
    c.metric = CaseMetric::MegatronTflops;
    c.published = t.num(i, "achieved_tflops_per_gpu");
    c.tolerance = 0.10;
    c.base = "selene-a100";
    const int h = t.integer(i, "hidden_size");
    const int layers = t.integer(i, "num_layers");
    const int pp = t.integer(i, "pipeline_parallel_size");
    const int per_virtual = run.integer(k, "layers_per_virtual_stage");
    const int vpp = per_virtual > 0 ? layers / pp / per_virtual : 1;
    c.name = size + "B, TP" + t.at(i, "tensor_parallel_size") + " PP" + std::to_string(pp) +
             (vpp > 1 ? " (v=" + std::to_string(vpp) + ")" : "") + ", " + t.at(i, "num_gpus") +
             " GPUs, mbs " + run.at(k, "micro_batch_size");
    c.sets = {
        set("cluster.gpus", t.num(i, "num_gpus")),
        set(kModel + "num_layers", layers),
        set(kModel + "hidden_size", h),
        set(kModel + "ffn_hidden_size", 4.0 * h),
        set(kModel + "num_attention_heads", t.num(i, "attention_heads")),
        set(kModel + "num_query_groups", t.num(i, "attention_heads")),
        set(kModel + "seq_length", t.num(i, "seq_length_tokens")),
        set(kModel + "vocab_size", t.num(i, "vocab_size")),
        set(kModel + "swiglu", "false"),
        set(kPar + "tensor_model_parallel_size", t.num(i, "tensor_parallel_size")),
        set(kPar + "pipeline_model_parallel_size", pp),
        set(kPar + "virtual_pipeline_model_parallel_size", vpp),
        set(kPar + "context_parallel_size", 1),
        set(kPar + "sequence_parallel", "false"),
        set(kPar + "recompute_granularity", "full"),
        set(kPar + "use_distributed_optimizer", "false"),
        set(kPar + "zero_stage", 0),
        set(kPar + "overlap_grad_reduce", run.at(k, "ddp_impl") == "torch" ? "true" : "false"),
        set(kTrain + "micro_batch_size", run.num(k, "micro_batch_size")),
        set(kTrain + "global_batch_size", t.num(i, "global_batch_size_sequences")),
        set(kTrain + "precision", "fp16"),  // examples/sc21/CONFIG.sh: --fp16 --loss-scale 8192
    };
    c.use_flash_attn = false;
    load(c);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace fleetsim::reproduce
