// Llama 3 (arXiv:2407.21783) Table 4: BF16 MFU of the 405B pre-training on 8K / 16K H100
// (data/validation/llama3_table4.csv). Judged.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/reproduce/step_sources.hpp"

namespace fleetsim::reproduce {

// Llama 3 Table 4 on 8K / 16K H100: the default scenario (TP 8, PP 16, FSDP-style DP, one layer
// fewer on the first and last stage, no activation checkpointing) with each row's GPUs, CP,
// sequence length and batch; DP is the product-implied value (SOURCES.md, row 3). Rank order
// [TP, CP, PP, DP] as in Sec. 3.3.2. Interleaved with v = 8 chunks of one layer per rank: Sec.
// 3.3.2 says the first model chunk of the first stage holds only the embedding and the last
// chunk of the last stage only the output projection and loss, i.e. one layer per chunk, and
// 7 layers + 1 embedding chunk = 8 chunks on the first rank. Llama 3's own pipeline schedule
// (pipeline_schedule: llama3, §3.3.2) with asynchronous p2p; its N ("tunable", not published)
// at the default N = PP, the fewest activations in flight this op order allows.
std::vector<StepCase> llama3_table4_cases() {
  const CsvTable t = read_csv(validation_dir() + "/llama3_table4.csv");
  std::vector<StepCase> out;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    StepCase c;
    c.source = "Llama 3 Table 4";
    c.metric = CaseMetric::MfuPercent;
    c.published = t.num(i, "bf16_mfu_percent");
    c.tolerance = 3.0;
    c.base = "llama3-405b-16k";
    const int dp = t.integer(i, "data_parallel_implied_by_product");
    c.name = t.at(i, "stage") + ": " + t.at(i, "num_gpus") + " GPUs, TP" + t.at(i, "tensor_parallel") +
             " CP" + t.at(i, "context_parallel") + " PP" + t.at(i, "pipeline_parallel") + " DP" +
             std::to_string(dp) + ", seq " + t.at(i, "seq_length_tokens");
    c.sets = {
        set("cluster.gpus", t.num(i, "num_gpus")),
        set(kModel + "seq_length", t.num(i, "seq_length_tokens")),
        set(kPar + "tensor_model_parallel_size", t.num(i, "tensor_parallel")),
        set(kPar + "pipeline_model_parallel_size", t.num(i, "pipeline_parallel")),
        set(kPar + "context_parallel_size", t.num(i, "context_parallel")),
        set(kTrain + "micro_batch_size", 1),
        set(kTrain + "global_batch_size", t.num(i, "batch_size_per_dp_sequences") * dp),
    };
    c.sets.push_back(kPar + "pipeline_schedule=llama3");
    c.sets.push_back(kPar + "overlap_p2p_comm=true");  // "asynchronous point-to-point communication" (§3.3.2)
    c.rank_order = "tp-cp-pp-dp";
    c.virtual_pipeline_override = 8;
    load(c);
    c.name += ", llama3 schedule";
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace fleetsim::reproduce
