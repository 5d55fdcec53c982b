// NVIDIA's mixture-of-experts rows (nemo.hpp): DeepSeek-V3 and Mixtral 8x7B on DGX-H100 / DGX-B200,
// and the H100 blockwise-FP8 calibration pair.
#include <algorithm>

#include "sim/config/load.hpp"
#include "sim/core/error.hpp"
#include "sim/reproduce/nemo.hpp"

namespace fleetsim::reproduce {
namespace {

// Catalog workload and Megatron-Bridge settings of a NeMo MoE model label, or "".
std::string moe_preset(const std::string& label) {
  if (label.rfind("DeepSeekV3", 0) == 0) return "deepseek-v3";
  if (label == "Mixtral-8x7B") return "mixtral-8x7b";
  return "";
}

// Layers per model chunk (p v entries) as Megatron-Bridge lays DeepSeek-V3 out
// (recipes/deepseek/deepseek_v3.py, set_deepseek_v3_pipeline_model_parallel_layout: the
// embedding with 4 decoder layers first, 4 per chunk, the last chunk 1 layer with the MTP module
// and the loss for 16 chunks; 8 per chunk and 5 last for 8 chunks): ceil(L / chunks) layers per
// chunk in order, the rest (possibly none) on the last chunk with the MTP module and the loss.
std::string bridge_split(int layers, int chunks) {
  const int per = (layers + chunks - 1) / chunks;
  std::string s = "[";
  int left = layers;
  for (int j = 0; j < chunks; ++j) {
    const int n = j == chunks - 1 ? left : std::min(per, left);
    left -= n;
    s += (j ? "," : "") + std::to_string(n);
  }
  return s + "]";
}

}  // namespace

std::vector<StepCase> nemo_moe_cases(const std::string& system, std::vector<std::string>* skipped) {
  const CsvTable t = read_csv(validation_dir() + "/nemo_perf_summary.csv");
  auto cell = [&](size_t i, const char* col) { return t.at(i, col); };
  auto int_or = [&](size_t i, const char* col, int fallback) { return nemo_int_or(t, i, col, fallback); };
  // The MoE rows of the table; Mixtral 8x22B and Qwen3 have no preset (see the header).
  const auto picks = pick_nemo_rows(
      t, system,
      [&](size_t i) -> std::optional<std::string> {
        if (cell(i, "model_family").find("MoE") == std::string::npos) return std::nullopt;
        return moe_preset(cell(i, "model"));
      },
      "no catalog preset (or the row's GBS/MBS cells are inconsistent)",
      {{"num_gpus"}, {"gbs"}, {"mbs"}, {"tp"}, {"pp"}, {"vp", "1"}, {"ep"}}, skipped);
  std::vector<StepCase> out;
  for (const auto& p : picks) {
    const size_t i = p.row;
    StepCase c;
    c.source = "NeMo " + system + " MoE";
    c.system = system;
    c.release = cell(i, "release");
    c.precision_label = cell(i, "precision");
    c.metric = CaseMetric::TokensPerGpuSecond;
    c.published = t.num(i, "tokens_per_sec_per_gpu");
    c.tolerance = 0.15;
    c.base = "dgx-h100-nemo";
    const int gpus = t.integer(i, "num_gpus");
    const int tp = t.integer(i, "tp"), pp = t.integer(i, "pp"), vp = int_or(i, "vp", 1), ep = t.integer(i, "ep");
    c.calibration = false;
    c.name = c.release + " " + cell(i, "model") + " " + std::to_string(gpus) + " GPUs TP" + std::to_string(tp) +
             " PP" + std::to_string(pp) + (vp > 1 ? " VP" + std::to_string(vp) : "") + " EP" + std::to_string(ep) +
             " mbs " + cell(i, "mbs") + " gbs " + cell(i, "gbs") + " " + p.recipe;
    c.sets = {
        set("cluster.gpus", gpus),
        set("workload.model", p.preset),
        set("workload.model.seq_length", t.integer(i, "seq_length")),
        set(kPar + "tensor_model_parallel_size", tp),
        set(kPar + "pipeline_model_parallel_size", pp),
        set(kPar + "virtual_pipeline_model_parallel_size", vp),
        set(kPar + "expert_model_parallel_size", ep),
        // As the dense NeMo rows (validation.cpp): SP and TP overlap with TP, the distributed
        // optimizer, asynchronous p2p with VP, no recomputation; the pages state the MoE runs are
        // token-dropless with tokens force-balanced over experts (balanced routing, no padding).
        set(kPar + "sequence_parallel", tp > 1 ? "true" : "false"),
        set(kPar + "tp_comm_overlap", tp > 1 ? "true" : "false"),
        set(kPar + "overlap_p2p_comm", vp > 1 ? "true" : "false"),
        set(kPar + "context_parallel_size", int_or(i, "cp", 1)),
        // Megatron-Bridge's DeepSeek-V3 performance recipes recompute "layernorm", "mla_up_proj"
        // and "moe_act" (perf_recipes deepseek common: recompute_granularity selective), which is
        // what `selective` means for an MLA model here (memory.cpp); Mixtral: none.
        set(kPar + "recompute_granularity", p.preset == "deepseek-v3" ? "selective" : "none"),
        set(kPar + "use_distributed_optimizer", "true"),
        set(kTrain + "micro_batch_size", t.integer(i, "mbs")),
        set(kTrain + "global_batch_size", t.integer(i, "gbs")),
        set(kTrain + "precision", "fp8"),
        set(kTrain + "fp8_recipe", p.recipe),
        set(kTrain + "gradient_accumulation_fusion", "true"),
        set("workload.model.moe_token_distribution", "balanced"),
    };
    // MTP: the 25.11 labels say with / without; other releases run the recipe's default (one).
    if (cell(i, "model").find("w/o MTP") != std::string::npos) c.sets.push_back(set("workload.model.mtp_depth", 0));
    for (const auto& s : nemo_system_sets(system)) c.sets.push_back(s);  // GPU and node presets (nemo_systems.cpp)
    const Scenario probe = config::load_scenario(c.base, {set("workload.model", p.preset)});
    const int layers = probe.workload.model.num_layers, chunks = pp * vp;
    if (layers % chunks != 0) c.sets.push_back(kPar + "pipeline_layer_split=" + bridge_split(layers, chunks));
    c.scenario = config::load_scenario(c.base, c.sets);
    out.push_back(std::move(c));
  }
  return out;
}

Fp8BlockwisePair nemo_h100_fp8_blockwise_pair() {
  const CsvTable t = read_csv(validation_dir() + "/nemo_perf_summary.csv");
  const std::string release = "25.09", model = "DeepSeekV3 (dropless)";
  double main_tflops = 0, alt_tflops = 0;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    if (t.at(i, "release") != release || t.at(i, "system") != "DGX-H100" || t.at(i, "model") != model) continue;
    (nemo_alternate_granularity(t.at(i, "precision")) ? alt_tflops : main_tflops) = t.num(i, "model_tflops_per_gpu");
  }
  if (main_tflops <= 0 || alt_tflops <= 0)
    throw ConfigError(t.path, "model_tflops_per_gpu",
                      "no " + release + " DGX-H100 " + model + " pair (per-tensor and alternate granularity)");
  Fp8BlockwisePair p;
  for (auto& c : nemo_moe_cases("DGX-H100"))
    if (c.release == release && c.name.find(model) != std::string::npos) p.per_tensor = std::move(c);
  if (p.per_tensor.name.empty())
    throw ConfigError(t.path, "model", "the " + release + " DGX-H100 " + model + " row is not among the MoE cases");
  std::vector<std::string> sets = p.per_tensor.sets;
  sets.push_back(set(kTrain + "fp8_recipe", "blockwise"));
  p.blockwise = config::load_scenario(p.per_tensor.base, sets);
  p.published_ratio = alt_tflops / main_tflops;
  p.per_tensor_iteration = evaluate_step(p.per_tensor.scenario.cluster, p.per_tensor.scenario.workload).iteration_time;
  return p;
}

double predicted_blockwise_ratio(const Fp8BlockwisePair& p, double ratio) {
  ClusterSpec cl = p.blockwise.cluster;
  cl.gpu.fp8_blockwise_gemm_ratio = ratio;
  return p.per_tensor_iteration.si() / evaluate_step(cl, p.blockwise.workload).iteration_time.si();
}

}  // namespace fleetsim::reproduce
