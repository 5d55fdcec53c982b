// NVIDIA NeMo / Megatron-Bridge dense pre-training throughput on DGX-H100 and DGX-B200
// (data/validation/nemo_perf_summary.csv): calibration rows (<= 16 GPUs) and judged rows.
#include <cctype>

#include "sim/config/load.hpp"
#include "sim/reproduce/nemo.hpp"

namespace fleetsim::reproduce {
namespace {

// Catalog workload of a NeMo model label ("LLAMA3.1_405B", "LLAMA3-70B", "GPT3-175B"), or "".
std::string nemo_model_preset(std::string label) {
  for (char& ch : label) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (char& ch : label) if (ch == '_') ch = '-';
  const size_t paren = label.find(' ');
  if (paren != std::string::npos) label = label.substr(0, paren);
  if (label == "llama3.1-405b") label = "llama3-405b";
  static const char* known[] = {"llama2-7b",   "llama2-13b",  "llama2-70b",   "llama3-8b",    "llama3-70b",
                                "llama3-405b", "gpt3-5b",     "gpt3-20b",     "gpt3-175b",    "nemotron-8b",
                                "nemotron-22b", "nemotron-340b"};
  for (const char* k : known) if (label == k) return k;
  return "";
}

}  // namespace

std::vector<StepCase> nemo_cases(const std::string& system, std::vector<std::string>* skipped) {
  const CsvTable t = read_csv(validation_dir() + "/nemo_perf_summary.csv");
  auto cell = [&](size_t i, const char* col) { return t.at(i, col); };
  auto int_or = [&](size_t i, const char* col, int fallback) { return nemo_int_or(t, i, col, fallback); };
  const auto picks = pick_nemo_rows(
      t, system, [&](size_t i) -> std::optional<std::string> { return nemo_model_preset(cell(i, "model")); },
      "architecture not in the catalog (MoE or not modelled)",
      {{"num_gpus"}, {"gbs"}, {"mbs"}, {"seq_length"}, {"tp"}, {"pp"}, {"cp"}, {"vp", "1"}, {"fsdp", "0"}}, skipped);

  std::vector<StepCase> out;
  for (const auto& p : picks) {
    const size_t i = p.row;
    StepCase c;
    c.source = "NeMo " + system;
    c.system = system;
    c.release = cell(i, "release");
    c.precision_label = cell(i, "precision");
    c.metric = CaseMetric::TokensPerGpuSecond;
    c.published = t.num(i, "tokens_per_sec_per_gpu");
    c.tolerance = 0.20;
    c.base = "dgx-h100-nemo";
    const int gpus = t.integer(i, "num_gpus");
    const int tp = t.integer(i, "tp"), pp = t.integer(i, "pp"), cp = int_or(i, "cp", 1);
    const int vp = int_or(i, "vp", 1), fsdp = int_or(i, "fsdp", 0);
    c.calibration = gpus <= kNemoCalibrationMaxGpus;
    c.name = c.release + " " + cell(i, "model") + " " + std::to_string(gpus) + " GPUs TP" + std::to_string(tp) +
             " PP" + std::to_string(pp) + " CP" + std::to_string(cp) + (vp > 1 ? " VP" + std::to_string(vp) : "") +
             (fsdp > 0 ? " FSDP" : "") + " mbs " + cell(i, "mbs") + " gbs " + cell(i, "gbs") + " " + p.recipe;
    c.sets = {
        set("cluster.gpus", gpus),
        set("workload.model", p.preset),
        set(kModel + "seq_length", t.num(i, "seq_length")),
        set(kPar + "tensor_model_parallel_size", tp),
        set(kPar + "pipeline_model_parallel_size", pp),
        set(kPar + "virtual_pipeline_model_parallel_size", vp),
        set(kPar + "context_parallel_size", cp),
        // Megatron-core / NeMo performance recipes: sequence parallelism with TP and TP
        // communication overlapped with the GEMMs (tp_comm_overlap, TE userbuffers), the
        // distributed optimizer (or Megatron FSDP where the table says so), overlapped DP
        // communication, asynchronous p2p with the interleaved schedule (overlap_p2p_comm), no
        // recomputation.
        set(kPar + "sequence_parallel", tp > 1 ? "true" : "false"),
        set(kPar + "tp_comm_overlap", tp > 1 ? "true" : "false"),
        set(kPar + "overlap_p2p_comm", vp > 1 ? "true" : "false"),
        set(kPar + "recompute_granularity", "none"),
        set(kPar + "use_distributed_optimizer", "true"),
        set(kPar + "zero_stage", fsdp > 0 ? 3 : 1),
        set(kTrain + "micro_batch_size", t.num(i, "mbs")),
        set(kTrain + "global_batch_size", t.num(i, "gbs")),
        set(kTrain + "precision", "fp8"),
        set(kTrain + "fp8_recipe", p.recipe),
        set(kTrain + "gradient_accumulation_fusion", "true"),
    };
    for (const auto& s : nemo_system_sets(system)) c.sets.push_back(s);  // GPU and node presets (nemo_systems.cpp)
    for (const auto& s : nemo_userbuffers_sets(system, c.release, p.preset, true, tp)) c.sets.push_back(s);
    // Layers that do not divide into PP x VP chunks: Megatron-core's
    // account_for_embedding_in_pipeline_split / account_for_loss_in_pipeline_split (NeMo's 405B
    // recipes) count the embedding and the loss as one layer each, so the first and last chunks
    // hold one transformer layer fewer.
    const Scenario probe = config::load_scenario(c.base, {set("workload.model", p.preset)});
    const int layers = probe.workload.model.num_layers, chunks = pp * vp;
    if (layers % chunks != 0 && (layers + 2) % chunks == 0 && chunks > 1) {
      const int per = (layers + 2) / chunks;
      std::string split = "[" + std::to_string(per - 1);
      for (int j = 1; j < chunks - 1; ++j) split += "," + std::to_string(per);
      split += "," + std::to_string(per - 1) + "]";
      c.sets.push_back(kPar + "pipeline_layer_split=" + split);
    }
    load(c);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace fleetsim::reproduce
