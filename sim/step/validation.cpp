#include "sim/step/validation.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "sim/config/load.hpp"
#include "sim/core/error.hpp"
#include "sim/core/paths.hpp"
#include "sim/step/collectives.hpp"
#include "sim/step/flops.hpp"
#include "sim/step/gemm_efficiency.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/step/validation_moe.hpp"

namespace fleetsim::step {
namespace {

std::string num(double v) {
  std::ostringstream os;
  os.precision(12);
  os << v;
  return os.str();
}
std::string set(const std::string& key, double v) { return key + "=" + num(v); }
std::string set(const std::string& key, const std::string& v) { return key + "=" + v; }

const std::string kModel = "workload.model.";
const std::string kPar = "workload.parallel.";
const std::string kTrain = "workload.training.";

void load(StepCase& c) {
  c.scenario = config::load_scenario(c.base, c.sets);
  c.scenario.workload.training.use_flash_attn = c.use_flash_attn;
  c.scenario.workload.parallel.rank_order = c.rank_order;
  if (c.virtual_pipeline_override > 0)
    c.scenario.workload.parallel.virtual_pipeline_model_parallel_size = c.virtual_pipeline_override;
}

// Settings of published runs that their tables omit (sim/step/data/README.md).
std::string step_settings_dir() { return config::home_dir() + "/sim/step/data"; }

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

// Megatron-LM SC'21 Table 1 on Selene. Settings the table omits (micro-batch size, layers per
// virtual stage, DDP implementation) come from the authors' script (sim/step/data/README.md);
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
    load(c);
    out.push_back(std::move(c));
  }
  return out;
}

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

// Transformer Engine recipe of a row's precision label, or "" when not modelled. The 24.07 page
// and NeMo 2.0 (25.02) ran TE's default delayed scaling; Megatron-Bridge labels per-tensor
// current scaling "FP8-CS" (25.11) and its 25.09 unlabeled and 26.xx "FP8" rows use the same
// recipe (their performance scripts' default for H100); "MXFP8"/"FP8-MX" is MXFP8 block scaling.
// The 25.09 "alternate granularity" rows are not judged: the H100 one (blockwise 128x128 / 1x128,
// tokens/s not given) is half of the calibration pair of fp8_blockwise_gemm_ratio
// (validation_moe.hpp); B200's 32x32 granularity and NVFP4 are not modelled.
std::string nemo_recipe(const std::string& label, const std::string& release) {
  if (label == "MXFP8" || label == "FP8-MX") return "mxfp8";
  if (label == "FP8-CS") return "current";
  if (label == "FP8" || label == "FP8 (scaling recipe not labelled in table)")
    return (release.rfind("24.", 0) == 0 || release.rfind("25.02", 0) == 0) ? "delayed" : "current";
  return "";
}

// Release order: "24.07" < "25.02" < "26.04" < "26.04.01" (lexicographic on the dotted text).
bool newer_release(const std::string& a, const std::string& b) { return a > b; }

}  // namespace

bool nemo_alternate_granularity(const std::string& precision_label) {
  return precision_label.find("alternate") != std::string::npos;
}

int nemo_int_or(const CsvTable& t, size_t row, const char* col, int fallback) {
  const std::string& v = t.at(row, col);
  return v.empty() || v == "n/a" ? fallback : t.integer(row, col);
}

std::vector<NemoRow> pick_nemo_rows(const CsvTable& t, const std::string& system,
                                    const std::function<std::optional<std::string>(size_t row)>& preset_of,
                                    const std::string& no_preset, const std::vector<NemoKeyColumn>& key,
                                    std::vector<std::string>* skipped) {
  struct Pick { NemoRow pick; std::string key; };
  std::vector<Pick> picks;
  auto cell = [&](size_t i, const char* col) { return t.at(i, col); };
  auto note = [&](const std::string& line) { if (skipped) skipped->push_back(line); };
  for (size_t i = 0; i < t.rows.size(); ++i) {
    if (cell(i, "system") != system) continue;
    const std::optional<std::string> preset = preset_of(i);
    if (!preset) continue;
    const std::string label = cell(i, "model"), release = cell(i, "release");
    const std::string what = release + " " + label + " " + cell(i, "num_gpus") + " GPUs " + cell(i, "precision");
    if (cell(i, "doc_revision") == "superseded") {
      note(what + ": superseded revision of 24.07 (the final text is used)");
      continue;
    }
    if (preset->empty()) {
      note(what + ": " + no_preset);
      continue;
    }
    const std::string recipe = nemo_recipe(cell(i, "precision"), release);
    if (nemo_alternate_granularity(cell(i, "precision")) && system == "DGX-H100") {
      note(what + ": calibration pair of fp8_blockwise_gemm_ratio (scripts/calibrate --gpu h100 --fp8-blockwise), not judged");
      continue;
    }
    if (recipe.empty() || cell(i, "tokens_per_sec_per_gpu").empty()) {
      note(what + ": precision/recipe not modelled or no throughput");
      continue;
    }
    std::string k = *preset + "|" + recipe;
    for (const auto& col : key) {
      const std::string& v = cell(i, col.name);
      k += "|" + (v.empty() || v == "n/a" ? std::string(col.missing) : v);
    }
    bool replaced = false;
    for (auto& p : picks)
      if (p.key == k) {
        replaced = true;
        const size_t kept = p.pick.row;
        if (newer_release(release, cell(kept, "release"))) {
          note(cell(kept, "release") + " " + cell(kept, "model") + ": same configuration published again in " + release + " (newest kept)");
          p.pick.row = i;
        } else {
          note(what + ": same configuration published again in " + cell(kept, "release") + " (newest kept)");
        }
      }
    if (!replaced) picks.push_back({{i, *preset, recipe}, k});
  }
  std::vector<NemoRow> out;
  for (auto& p : picks) out.push_back(std::move(p.pick));
  return out;
}

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
    if (system == "DGX-B200") {
      c.sets.push_back(set("cluster.gpu", "b200"));
      c.sets.push_back(set("cluster.node", "dgx-b200"));
    }
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

double predicted_metric(const StepCase& c, const StepResult& r) {
  switch (c.metric) {
    case CaseMetric::MegatronTflops: {
      const auto& w = c.scenario.workload;
      const Flops f = megatron_iteration_flops(w.model, w.training.global_batch_size);
      return f.si() / (r.iteration_time.si() * c.scenario.cluster.gpus) / 1e12;
    }
    case CaseMetric::MfuPercent: return 100.0 * r.mfu;
    case CaseMetric::IterationMs: return 1e3 * r.iteration_time.si();
    case CaseMetric::TokensPerGpuSecond:
      return r.tokens_per_iteration.si() / (r.iteration_time.si() * c.scenario.cluster.gpus);
  }
  return 0;
}

ValidationCase compare(const StepCase& c, const StepResult& r) {
  ValidationCase v;
  v.source = c.source;
  v.case_name = c.name;
  v.published = c.published;
  v.predicted = predicted_metric(c, r);
  v.tolerance = c.tolerance;
  switch (c.metric) {
    case CaseMetric::MegatronTflops: v.metric = "achieved TFLOP/s per GPU (eq. 3)"; break;
    case CaseMetric::MfuPercent: v.metric = "BF16 MFU (%)"; break;
    case CaseMetric::IterationMs: v.metric = "iteration time (ms)"; break;
    case CaseMetric::TokensPerGpuSecond: v.metric = "tokens/s per GPU"; break;
  }
  v.error_is_absolute = c.metric == CaseMetric::MfuPercent;
  v.error = v.error_is_absolute ? v.predicted - v.published : (v.predicted - v.published) / v.published;
  v.pass = std::fabs(v.error) <= v.tolerance;
  return v;
}

ValidationCase compare(const StepCase& c) {
  return compare(c, evaluate_step(c.scenario.cluster, c.scenario.workload));
}

ValidationCase mean_absolute(const std::vector<ValidationCase>& cases, const std::string& source,
                             double tolerance) {
  ValidationCase v;
  v.source = source;
  v.case_name = "mean |error| over " + std::to_string(cases.size()) + " cases";
  v.metric = cases.empty() ? "" : cases.front().metric;
  double sum = 0;
  for (const auto& c : cases) sum += std::fabs(c.error);
  v.error = cases.empty() ? 0 : sum / cases.size();
  v.predicted = v.error;
  v.tolerance = tolerance;
  v.error_is_absolute = !cases.empty() && cases.front().error_is_absolute;
  v.pass = v.error <= tolerance;
  return v;
}

}  // namespace fleetsim::step

namespace fleetsim {

// Every published case of the step model, each followed by its table's mean absolute error.
std::vector<ValidationCase> step_validation_cases() {
  std::vector<ValidationCase> out;
  auto run_table = [&](const std::vector<step::StepCase>& cases, double mean_tolerance) {
    std::vector<ValidationCase> v;
    for (const auto& c : cases) v.push_back(step::compare(c));
    out.insert(out.end(), v.begin(), v.end());
    if (!cases.empty()) out.push_back(step::mean_absolute(v, cases.front().source, mean_tolerance));
  };
  run_table(step::megatron_sc21_table1_cases(), 0.05);
  run_table(step::llama3_table4_cases(), 3.0);
  run_table(step::vtrain_multinode_cases(), 0.10);
  run_table(step::vtrain_singlenode_cases(), 0.10);
  // NeMo DGX H100 / B200: the judged rows only (the calibration rows are what the GPU presets
  // were fitted on; scripts/calibrate --gpu h100|b200 prints them).
  for (const char* system : {"DGX-H100", "DGX-B200"}) {
    std::vector<step::StepCase> judged;
    for (auto& c : step::nemo_cases(system))
      if (!c.calibration) judged.push_back(std::move(c));
    for (auto& c : judged) c.source += " (judged rows)";
    run_table(judged, 0.10);
  }
  // Mixture of experts (validation_moe.hpp): DeepSeek-V3's GPU-hours and the NeMo MoE rows.
  const auto moe = step::moe_validation_cases();
  out.insert(out.end(), moe.begin(), moe.end());
  return out;
}

}  // namespace fleetsim
