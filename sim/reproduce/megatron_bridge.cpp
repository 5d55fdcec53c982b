// Megatron-Bridge performance summary rows as step cases (megatron_bridge.hpp): row picking, the
// recipes' settings, the split and the `fleetsim validate` table.
#include "sim/reproduce/megatron_bridge.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "sim/config/load.hpp"
#include "sim/core/error.hpp"
#include "sim/reproduce/nemo.hpp"

namespace fleetsim::reproduce {
namespace {

const char* kFile = "megatron_bridge_perf_2025_2026.csv";

// Catalog workload of a dense model label; Llama 3.1 has Llama 3's architecture at 8K tokens.
std::string dense_preset(const std::string& label) {
  if (label == "LLAMA3_8B") return "llama3-8b";
  if (label == "LLAMA3_70B") return "llama3-70b";
  if (label == "LLAMA3.1_405B") return "llama3-405b";
  return "";
}

// Catalog workload of a MoE model label, "" when none.
std::string moe_preset(const std::string& label) {
  if (label.rfind("DeepSeekV3", 0) == 0) return "deepseek-v3";
  return "";
}

// The MoE models that would calibrate (at most 32B parameters; megatron_bridge.hpp).
bool small_moe(const std::string& label) {
  return label.rfind("Qwen3_30B", 0) == 0 || label.rfind("Nemotron_3_Nano", 0) == 0 ||
         label.rfind("Nemotron_3_5_Lightning", 0) == 0;
}

// Transformer Engine recipe of a precision label, "" when the precision is not modelled.
// Megatron-Bridge's performance recipes map "FP8" / "FP8-CS" to Float8CurrentScaling
// (perf_recipes/_common.py `_perf_precision("fp8_cs")`), "MXFP8" / "FP8-MX" to MXFP8BlockScaling
// and "NVFP4" to NVFP4BlockScaling (`bf16_with_nvfp4_mixed`).
struct Precision {
  std::string precision, recipe;
};
Precision precision_of(const std::string& label) {
  if (label == "FP8" || label == "FP8-CS") return {"fp8", "current"};
  if (label == "MXFP8" || label == "FP8-MX") return {"fp8", "mxfp8"};
  if (label == "BF16") return {"bf16", ""};
  if (label == "NVFP4") return {"nvfp4", ""};
  return {};
}

// NVFP4 is not a precision of the step model yet (issue 36, step 2): its rows are listed, not judged.
bool precision_available(const Precision& p) { return !p.precision.empty() && p.precision != "nvfp4"; }

// Activation offloading of the FSDP layouts (ParallelSpec::cpu_offloading_num_layers), as the
// recipes set it: Llama 3 70B on 64 GB200 / GB300 with Megatron FSDP at TP1 PP1
// (scripts/performance/configs/llama/llama3_workload_base_configs.py before c8327cfc2,
// LLAMA3_70B_PRETRAIN_CONFIG_GB{2,3}00_{BF16,FP8_CS}_V{1,2}; perf_recipes/llama/gb{2,3}00/llama3.py
// at HEAD): GB200 FP8 40 layers, BF16 20; GB300 FP8 20, BF16 30. 0 elsewhere.
int offloaded_layers(const std::string& gpu, const std::string& preset, bool fsdp, const std::string& precision) {
  if (!fsdp || preset != "llama3-70b") return 0;
  if (gpu == "GB200") return precision == "bf16" ? 20 : 40;
  if (gpu == "GB300") return precision == "bf16" ? 30 : 20;
  return 0;
}

// Rows whose layout cells disagree with every version of their release's recipe and do not fit
// as printed: 26.02.01's GB300 Llama 3 70B MXFP8 "TP1 PP4, no VP, mbs 2" and NVFP4 "TP1 PP1,
// FSDP 0, mbs 2" (LLAMA3_70B_PRETRAIN_CONFIG_GB300_{FP8_MX,NVFP4}_V{1,2}: PP4 VP5, mbs 1; the
// printed layouts need 353 and > 290 GiB of the 256 GiB usable).
bool inconsistent_cells(const CsvTable& t, size_t i) {
  return t.at(i, "nemo_container_release") == "26.02.01" && t.at(i, "model") == "LLAMA3_70B" &&
         t.at(i, "gpu_type") == "GB300" && t.at(i, "mbs") == "2" && (t.at(i, "vp").empty() || t.at(i, "vp") == "n/a") &&
         (t.at(i, "precision_published") == "MXFP8" || t.at(i, "precision_published") == "NVFP4");
}

int int_or(const CsvTable& t, size_t i, const char* col, int fallback) {
  const std::string& v = t.at(i, col);
  if (v.empty() || v == "n/a" || v == "column absent") return fallback;
  return static_cast<int>(std::lround(t.num(i, col)));
}

// Layers that do not divide into PP x VP chunks: Megatron-core's
// account_for_embedding_in_pipeline_split / account_for_loss_in_pipeline_split (the 405B recipes,
// llama31_405b_pretrain_config) count the embedding and the loss as a layer each.
void add_layer_split(StepCase& c, const std::string& preset, int pp, int vp) {
  const Scenario probe = config::load_scenario(c.base, {set("workload.model", preset)});
  const int layers = probe.workload.model.num_layers, chunks = pp * vp;
  if (chunks > 1 && layers % chunks != 0 && (layers + 2) % chunks == 0) {
    const int per = (layers + 2) / chunks;
    std::string split = "[" + std::to_string(per - 1);
    for (int j = 1; j < chunks - 1; ++j) split += "," + std::to_string(per);
    split += "," + std::to_string(per - 1) + "]";
    c.sets.push_back(kPar + "pipeline_layer_split=" + split);
  }
}

struct Row {
  size_t i;
  std::string preset;
  Precision prec;
  bool fsdp;
  bool judged_elsewhere = false;  // published in 25.11 on > 16 GPUs: a judged row of the NeMo source
};

// The rows of `t` that `preset_of` maps to a preset, deduplicated (newest release kept).
std::vector<Row> pick_rows(const CsvTable& t, bool moe, std::vector<std::string>* skipped) {
  auto cell = [&](size_t i, const char* col) { return t.at(i, col); };
  auto note = [&](const std::string& s) { if (skipped) skipped->push_back(s); };
  std::map<std::string, size_t> index;  // configuration key -> position in `rows`
  std::vector<Row> rows;
  for (size_t i = 0; i < t.size(); ++i) {
    const std::string model = cell(i, "model"), release = cell(i, "nemo_container_release");
    const bool is_moe = cell(i, "notes").find("MoE rows") != std::string::npos;
    if (is_moe != moe) continue;
    const std::string what = release + " " + model + " " + cell(i, "gpu_type") + " " + cell(i, "num_gpus") +
                             " GPUs " + cell(i, "precision_published");
    if (cell(i, "section") != "Pre-Training Performance") {
      note(what + ": " + cell(i, "section") + " (not pre-training)");
      continue;
    }
    const std::string preset = moe ? moe_preset(model) : dense_preset(model);
    if (preset.empty()) {
      note(what + ": no catalog preset for the architecture");
      continue;
    }
    if (!moe && inconsistent_cells(t, i)) {
      note(what + ": layout cells disagree with the release's recipe (PP4 VP5, mbs 1) and do not fit as printed");
      continue;
    }
    const Precision p = precision_of(cell(i, "precision_published"));
    if (!precision_available(p)) {
      note(what + ": precision " + cell(i, "precision_published") + " not expressible in the model");
      continue;
    }
    const int tp = int_or(t, i, "tp", 1), pp = int_or(t, i, "pp", 1);
    // FSDP: where the table says so (FSDP > 0), and where the column is absent or 0 on a TP1 PP1
    // layout of the 70B / 405B model: Megatron-Bridge's perf recipes run exactly those layouts
    // with Megatron FSDP (llama3_70b_pretrain_64gpu_gb{2,3}00_fp8cs_config: use_megatron_fsdp,
    // optim_grads_params), the only setting in which 70B fits without model parallelism.
    const bool fsdp = int_or(t, i, "fsdp_published", 0) > 0 || (!moe && tp * pp == 1 && preset != "llama3-8b");
    std::string key = preset + "|" + cell(i, "gpu_type") + "|" + p.precision + p.recipe + "|" + (fsdp ? "F" : "D");
    for (const char* col : {"num_gpus", "gbs", "mbs", "seq_len", "tp", "pp", "cp"})
      key += "|" + cell(i, col);
    key += "|" + std::to_string(int_or(t, i, "vp", 1)) + "|" + std::to_string(int_or(t, i, "ep", 1));
    if (moe) key += "|" + model;  // with / without MTP
    const bool nemo_judged = release == "25.11" && t.integer(i, "num_gpus") > kNemoCalibrationMaxGpus;
    auto it = index.find(key);
    if (it == index.end()) {
      index.emplace(key, rows.size());
      rows.push_back({i, preset, p, fsdp, nemo_judged});
      continue;
    }
    Row& kept = rows[it->second];
    kept.judged_elsewhere = kept.judged_elsewhere || nemo_judged;
    const std::string kept_release = cell(kept.i, "nemo_container_release");
    if (release > kept_release) {
      note(kept_release + " " + model + " " + cell(i, "gpu_type") + ": same configuration published again in " +
           release + " (newest kept)");
      kept.i = i;
    } else {
      note(what + ": same configuration published again in " + kept_release + " (newest kept)");
    }
  }
  return rows;
}

StepCase base_case(const CsvTable& t, const Row& r, const std::string& source) {
  auto cell = [&](const char* col) { return t.at(r.i, col); };
  StepCase c;
  c.source = source;
  c.system = "DGX-" + cell("gpu_type");
  c.release = cell("nemo_container_release");
  c.precision_label = cell("precision_published");
  c.metric = CaseMetric::TokensPerGpuSecond;
  c.published = t.num(r.i, "tokens_per_s_per_gpu");
  c.tolerance = kBridgeDenseWorstTarget;
  c.base = "dgx-h100-nemo";
  return c;
}

}  // namespace

std::string megatron_bridge_precision_group(const std::string& label) {
  if (label == "FP8" || label == "FP8-CS") return "FP8";
  if (label == "MXFP8" || label == "FP8-MX") return "MXFP8";
  return label;
}

std::vector<StepCase> megatron_bridge_dense_cases(std::vector<std::string>* skipped) {
  const CsvTable t = read_csv(validation_dir() + "/" + kFile);
  std::vector<StepCase> out;
  for (const Row& r : pick_rows(t, false, skipped)) {
    auto cell = [&](const char* col) { return t.at(r.i, col); };
    StepCase c = base_case(t, r, "Megatron-Bridge dense");
    const int gpus = t.integer(r.i, "num_gpus");
    const int tp = int_or(t, r.i, "tp", 1), pp = int_or(t, r.i, "pp", 1), cp = int_or(t, r.i, "cp", 1);
    const int vp = int_or(t, r.i, "vp", 1);
    // The split (megatron_bridge.hpp): 8B and 70B calibrate, except configurations also published
    // in 25.11 on > 16 GPUs (judged rows of the NeMo source).
    c.calibration = r.preset != "llama3-405b" && !r.judged_elsewhere;
    c.name = c.release + " " + cell("model") + " " + cell("gpu_type") + " " + std::to_string(gpus) + " GPUs TP" +
             std::to_string(tp) + " PP" + std::to_string(pp) + " CP" + std::to_string(cp) +
             (vp > 1 ? " VP" + std::to_string(vp) : "") + (r.fsdp ? " FSDP" : "") + " mbs " + cell("mbs") + " gbs " +
             cell("gbs") + " " + c.precision_label;
    c.sets = {
        set("cluster.gpus", gpus),
        set("workload.model", r.preset),
        set(kModel + "seq_length", t.num(r.i, "seq_len")),
        set(kPar + "tensor_model_parallel_size", tp),
        set(kPar + "pipeline_model_parallel_size", pp),
        set(kPar + "virtual_pipeline_model_parallel_size", vp),
        set(kPar + "context_parallel_size", cp),
        // The perf recipes (perf_recipes/llama/<gpu>/llama3{,1}.py, _llama_benchmark_common): SP
        // and TP communication overlap with TP, the distributed optimizer (or Megatron FSDP),
        // overlapped gradient reduce and parameter gather, asynchronous p2p with VP, no
        // recomputation, gradient-accumulation fusion, and `_perf_precision`'s
        // grad_reduce_in_fp32 = False (BF16 gradient buffer and reduce-scatter).
        set(kPar + "sequence_parallel", tp > 1 ? "true" : "false"),
        set(kPar + "tp_comm_overlap", tp > 1 ? "true" : "false"),
        set(kPar + "overlap_p2p_comm", vp > 1 ? "true" : "false"),
        set(kPar + "overlap_grad_reduce", "true"),
        set(kPar + "overlap_param_gather", "true"),
        set(kPar + "recompute_granularity", "none"),
        set(kPar + "use_distributed_optimizer", "true"),
        set(kPar + "zero_stage", r.fsdp ? 3 : 1),
        set(kTrain + "micro_batch_size", t.num(r.i, "mbs")),
        set(kTrain + "global_batch_size", t.num(r.i, "gbs")),
        set(kTrain + "precision", r.prec.precision),
        set(kTrain + "gradient_accumulation_fusion", "true"),
        set(kTrain + "grad_reduce_in_fp32", "false"),
    };
    if (!r.prec.recipe.empty()) c.sets.push_back(set(kTrain + "fp8_recipe", r.prec.recipe));
    if (const int off = offloaded_layers(cell("gpu_type"), r.preset, r.fsdp, r.prec.precision); off > 0)
      c.sets.push_back(set(kPar + "cpu_offloading_num_layers", off));
    for (const auto& s : nemo_system_sets(c.system)) c.sets.push_back(s);
    for (const auto& s : nemo_userbuffers_sets(c.system, c.release, r.preset, r.prec.precision != "bf16", tp))
      c.sets.push_back(s);
    add_layer_split(c, r.preset, pp, vp);
    load(c);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<StepCase> megatron_bridge_moe_cases(std::vector<std::string>* skipped) {
  const CsvTable t = read_csv(validation_dir() + "/" + kFile);
  // The small MoE models are the calibration side of the split; none has a preset.
  if (skipped)
    for (size_t i = 0; i < t.size(); ++i)
      if (small_moe(t.at(i, "model")))
        skipped->push_back(t.at(i, "nemo_container_release") + " " + t.at(i, "model") + " " + t.at(i, "gpu_type") +
                           ": MoE calibration model (<= 32B parameters), no catalog preset: nothing fitted on MoE");
  std::vector<std::string> picked_notes;
  std::vector<StepCase> out;
  for (const Row& r : pick_rows(t, true, skipped ? &picked_notes : nullptr)) {
    auto cell = [&](const char* col) { return t.at(r.i, col); };
    StepCase c = base_case(t, r, "Megatron-Bridge MoE");
    c.tolerance = kBridgeMoeWorstTarget;
    const int gpus = t.integer(r.i, "num_gpus");
    const int tp = int_or(t, r.i, "tp", 1), pp = int_or(t, r.i, "pp", 1), vp = int_or(t, r.i, "vp", 1);
    const int ep = int_or(t, r.i, "ep", 1), cp = int_or(t, r.i, "cp", 1);
    c.calibration = false;
    c.name = c.release + " " + cell("model") + " " + cell("gpu_type") + " " + std::to_string(gpus) + " GPUs TP" +
             std::to_string(tp) + " PP" + std::to_string(pp) + (vp > 1 ? " VP" + std::to_string(vp) : "") + " EP" +
             std::to_string(ep) + " mbs " + cell("mbs") + " gbs " + cell("gbs") + " " + c.precision_label;
    // As nemo_moe_cases (the same recipes): SP / TP overlap with TP, the distributed optimizer,
    // asynchronous p2p with VP, Megatron-Bridge's DeepSeek-V3 recompute set (selective for MLA),
    // force-balanced dropless routing as the page states.
    c.sets = {
        set("cluster.gpus", gpus),
        set("workload.model", r.preset),
        set(kModel + "seq_length", t.num(r.i, "seq_len")),
        set(kPar + "tensor_model_parallel_size", tp),
        set(kPar + "pipeline_model_parallel_size", pp),
        set(kPar + "virtual_pipeline_model_parallel_size", vp),
        set(kPar + "expert_model_parallel_size", ep),
        set(kPar + "context_parallel_size", cp),
        set(kPar + "sequence_parallel", tp > 1 ? "true" : "false"),
        set(kPar + "tp_comm_overlap", tp > 1 ? "true" : "false"),
        set(kPar + "overlap_p2p_comm", vp > 1 ? "true" : "false"),
        set(kPar + "recompute_granularity", "selective"),
        set(kPar + "use_distributed_optimizer", "true"),
        set(kTrain + "micro_batch_size", t.num(r.i, "mbs")),
        set(kTrain + "global_batch_size", t.num(r.i, "gbs")),
        set(kTrain + "precision", r.prec.precision),
        set(kTrain + "gradient_accumulation_fusion", "true"),
        set("workload.model.moe_token_distribution", "balanced"),
    };
    if (!r.prec.recipe.empty()) c.sets.push_back(set(kTrain + "fp8_recipe", r.prec.recipe));
    if (cell("model").find("w/o MTP") != std::string::npos) c.sets.push_back(set(kModel + "mtp_depth", 0));
    for (const auto& s : nemo_system_sets(c.system)) c.sets.push_back(s);
    // Megatron-Bridge's DeepSeek-V3 layout (nemo_moe.cpp bridge_split): ceil(L / chunks) layers
    // per chunk, the rest on the last chunk with the MTP module and the loss.
    const Scenario probe = config::load_scenario(c.base, {set("workload.model", r.preset)});
    const int layers = probe.workload.model.num_layers, chunks = pp * vp;
    if (layers % chunks != 0) {
      const int per = (layers + chunks - 1) / chunks;
      std::string s = "[";
      int left = layers;
      for (int j = 0; j < chunks; ++j) {
        const int n = j == chunks - 1 ? left : std::min(per, left);
        left -= n;
        s += (j ? "," : "") + std::to_string(n);
      }
      c.sets.push_back(kPar + "pipeline_layer_split=" + s + "]");
    }
    load(c);
    out.push_back(std::move(c));
  }
  if (skipped) skipped->insert(skipped->end(), picked_notes.begin(), picked_notes.end());
  return out;
}

std::vector<ValidationCase> megatron_bridge_validation_cases() {
  std::vector<ValidationCase> out;
  const auto dense = megatron_bridge_dense_cases();
  // Judged dense rows per GPU x precision, each group followed by its mean.
  std::map<std::string, std::vector<ValidationCase>> groups;
  std::vector<std::string> order;
  for (const auto& c : dense) {
    if (c.calibration) continue;
    const std::string g = c.system + " " + megatron_bridge_precision_group(c.precision_label);
    if (!groups.count(g)) order.push_back(g);
    ValidationCase v = compare(c);
    v.source = "Megatron-Bridge " + g + " (judged rows: every 405B row, 70B configurations of 25.11)";
    groups[g].push_back(v);
  }
  for (const auto& g : order) {
    const auto& v = groups[g];
    out.insert(out.end(), v.begin(), v.end());
    out.push_back(mean_absolute(v, v.front().source, kBridgeDenseMeanTarget));
  }
  std::vector<ValidationCase> moe;
  for (const auto& c : megatron_bridge_moe_cases()) {
    ValidationCase v = compare(c);
    v.source = "Megatron-Bridge MoE (judged rows: every modelled MoE row)";
    moe.push_back(v);
  }
  out.insert(out.end(), moe.begin(), moe.end());
  if (!moe.empty()) out.push_back(mean_absolute(moe, moe.front().source, kBridgeMoeMeanTarget));
  for (const auto& c : dense) {
    if (!c.calibration) continue;
    ValidationCase v = compare(c);
    v.source = "Megatron-Bridge dense (calibration rows: Llama 3 8B and 70B; not judged)";
    out.push_back(v);
  }
  return out;
}

}  // namespace fleetsim::reproduce
