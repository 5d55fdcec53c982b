// Korthikanti et al. 2022 Table 4 (data/supplement/korthikanti2022_table4.csv): time per layer of
// their 22B model on 8 A100: the calibration data of the A100 unfused_attention_hbm_efficiency.
#include "sim/config/load.hpp"
#include "sim/reproduce/step_sources.hpp"
#include "sim/step/collectives.hpp"
#include "sim/step/gemm_efficiency.hpp"
#include "sim/step/stage_costs.hpp"

namespace fleetsim::reproduce {

// The step model's stage costs are used unqualified in this file.
using namespace fleetsim::step;

std::vector<KorthikantiRow> korthikanti_rows() {
  const CsvTable t = read_csv(data_dir() + "/supplement/korthikanti2022_table4.csv");
  std::vector<KorthikantiRow> out;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    auto v = [&](const char* col) { return t.at(i, col); };
    Scenario s = config::load_scenario("selene-a100", {
        set("cluster.gpus", t.num(i, "tensor_parallel")), set(kModel + "num_layers", t.num(i, "num_layers")),
        set(kModel + "hidden_size", t.num(i, "hidden_size")),
        set(kModel + "ffn_hidden_size", 4.0 * t.num(i, "hidden_size")),
        set(kModel + "num_attention_heads", t.num(i, "attention_heads")),
        set(kModel + "num_query_groups", t.num(i, "attention_heads")),
        set(kModel + "seq_length", t.num(i, "seq_length")), set(kModel + "vocab_size", t.num(i, "vocab_size")),
        set(kModel + "swiglu", "false"), set(kPar + "tensor_model_parallel_size", t.num(i, "tensor_parallel")),
        set(kPar + "pipeline_model_parallel_size", 1), set(kPar + "virtual_pipeline_model_parallel_size", 1),
        set(kPar + "sequence_parallel", v("sequence_parallel")),
        set(kPar + "recompute_granularity", v("recompute_granularity")),
        set(kTrain + "micro_batch_size", t.num(i, "micro_batch_size")),
        set(kTrain + "global_batch_size", t.num(i, "micro_batch_size")), set(kTrain + "precision", "fp16")});
    s.workload.training.use_flash_attn = false;  // Megatron-LM of 2022: fused softmax, no flash attention
    out.push_back({v("experiment"), s, t.num(i, "forward_ms"), t.num(i, "backward_ms")});
  }
  return out;
}

LayerTimes layer_times(const ClusterSpec& cluster, const WorkloadSpec& w) {
  const GpuCompute gpu(cluster.gpu);
  const CollectiveModel net(cluster);
  WorkloadSpec w1 = w;
  w1.model.num_layers -= 1;
  const StageCosts a = stage_costs(cluster, w, gpu, net), b = stage_costs(cluster, w1, gpu, net);
  auto tot = [](const PhaseTime& p) { return (p.math + p.memory + p.tp_comm + p.cp_comm + p.ep_comm).si(); };
  const ChunkCost& x = a.chunks.front();
  const ChunkCost& y = b.chunks.front();
  return {1e3 * (tot(x.forward) - tot(y.forward)),
          1e3 * (tot(x.backward) + tot(x.recompute) - tot(y.backward) - tot(y.recompute))};
}

}  // namespace fleetsim::reproduce
