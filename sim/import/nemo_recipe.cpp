#include "sim/import/nemo_recipe.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <vector>

#include "sim/core/checked.hpp"
#include "sim/core/error.hpp"
#include "sim/import/nemo_userbuffers.hpp"
#include "sim/core/files.hpp"
#include "sim/core/limits.hpp"

namespace fleetsim::importer {
namespace {

// Leaves of the YAML tree as dotted keys, in file order (sequences are one leaf).
void flatten(const YAML::Node& n, const std::string& prefix, std::vector<std::pair<std::string, YAML::Node>>& out) {
  if (n.IsMap()) {
    for (const auto& kv : n) flatten(kv.second, prefix.empty() ? kv.first.Scalar() : prefix + "." + kv.first.Scalar(), out);
  } else {
    out.emplace_back(prefix, n);
  }
}

// Sections and keys that do not change the work of an iteration: run bookkeeping, logging,
// checkpoint paths, data, learning-rate schedule, initialization, numerics of norms.
bool no_effect(const std::string& k) {
  static const std::vector<std::string> prefixes = {
      "run.", "hydra.", "defaults", "exp_manager.", "trainer.", "model.data.", "model.optim.", "model.tokenizer.",
      "model.nsys_profile.", "checkpoint.", "logger.", "scheduler.", "dataset.", "rng.", "dist.", "profiling.",
      "optimizer.", "tokenizer.", "train.", "ddp.", "comm_overlap.", "inprocess_restart.", "ft.", "straggler."};
  static const std::set<std::string> keys = {
      "model.mcore_gpt", "model.rampup_batch_size", "model.max_position_embeddings", "model.init_method_std",
      "model.use_scaled_init_method", "model.hidden_dropout", "model.attention_dropout", "model.ffn_dropout",
      "model.kv_channels", "model.apply_query_key_layer_scaling", "model.normalization", "model.layernorm_epsilon",
      "model.do_layer_norm_weight_decay", "model.pre_process", "model.post_process", "model.persist_layer_norm",
      "model.bias", "model.headscale", "model.transformer_block_type", "model.openai_gelu",
      "model.normalize_attention_scores", "model.position_embedding_type", "model.rotary_percentage",
      "model.apply_rope_fusion", "model.attention_type", "model.scale_positional_embedding",
      "model.native_amp_init_scale", "model.native_amp_growth_interval", "model.hysteresis",
      "model.fp32_residual_connection", "model.fp16_lm_cross_entropy", "model.megatron_amp_O2",
      "model.grad_allreduce_chunk_size_mb", "model.grad_div_ar_fusion",
      "model.cross_entropy_loss_fusion", "model.bias_activation_fusion", "model.bias_dropout_add_fusion",
      "model.masked_softmax_fusion", "model.seed", "model.resume_from_checkpoint", "model.use_cpu_initialization",
      "model.onnx_safe", "model.apex_transformer_log_level", "model.gradient_as_bucket_view", "model.sync_batch_comm",
      "model.activations_checkpoint_method", "model.activations_checkpoint_num_layers",
      "model.num_micro_batches_with_partial_activation_checkpoints",
      "model.activations_checkpoint_layers_per_pipeline", "model.defer_embedding_wgrad_compute",
      "model.wgrad_deferral_limit", "model.deterministic_mode", "model.transformer_engine", "model.fp8_margin",
      "model.fp8_interval", "model.fp8_amax_history_len", "model.fp8_amax_compute_algo", "model.fp8_e4m3",
      "model.fp8_hybrid", "model.gc_interval", "model.batch_p2p_comm", "model.rotary_base", "model.seq_len_interpolation_factor",
      "model.layernorm_zero_centered_gamma", "model.add_bias_linear", "model.add_qkv_bias", "model.gated_linear_unit",
      "model.init_method_std", "model.share_embeddings_and_output_weights_in_fp32", "model.tp_comm_overlap_cfg",
      "model.ub_tp_comm_overlap_cfg", "model.apply_rope_fusion", "model.bias_dropout_fusion", "model.masked_softmax_fusion"};
  if (keys.count(k)) return true;
  return std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& p) { return k.rfind(p, 0) == 0; });
}

class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  void load(const std::string& text) {
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      throw ConfigError(path_, "", std::string("not valid YAML: ") + e.what(), e.mark.line + 1);
    }
    if (!root.IsMap()) throw ConfigError(path_, "", "expected a mapping at the top (trainer:, model:, train: ...)");
    std::vector<std::pair<std::string, YAML::Node>> leaves;
    flatten(root, "", leaves);
    for (auto& [k, v] : leaves) {
      order_.push_back(k);
      leaves_[k] = v;
    }
  }

  [[nodiscard]] bool has(const std::string& k) const {
    const auto it = leaves_.find(k);
    return it != leaves_.end() && !it->second.IsNull();
  }
  [[nodiscard]] std::string text(const std::string& k) {
    used_.insert(k);
    if (!has(k)) return "";
    const YAML::Node& n = leaves_.at(k);
    if (!n.IsScalar()) throw ConfigError(path_, k, "expected a single value");
    return n.Scalar();
  }
  int integer(const std::string& k, int fallback) {
    const std::string s = text(k);
    if (s.empty()) return fallback;
    if (s.find("${") != std::string::npos)
      throw ConfigError(path_, k, "'" + s + "' is an interpolation; resolve the recipe first (give the number)");
    try {
      size_t used = 0;
      const long v = std::stol(s, &used);
      // Bounded as Megatron's arguments are: a larger value would wrap in the int it becomes.
      if (used != s.size() || v < 0 || v > 1000000000L) throw std::invalid_argument("range");
      return static_cast<int>(v);
    } catch (const std::exception&) {
      throw ConfigError(path_, k, "'" + s + "' is not an integer from 0 to 1000000000");
    }
  }
  double real(const std::string& k, double fallback) {
    const std::string s = text(k);
    if (s.empty()) return fallback;
    try {
      size_t used = 0;
      const double v = std::stod(s, &used);
      if (used != s.size() || !(v >= 0)) throw std::invalid_argument("range");
      return v;
    } catch (const std::exception&) {
      throw ConfigError(path_, k, "'" + s + "' is not a non-negative number");
    }
  }
  bool boolean(const std::string& k, bool fallback) {
    const std::string s = text(k);
    if (s.empty()) return fallback;
    std::string l = s;
    std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (l == "true" || l == "yes" || l == "1") return true;
    if (l == "false" || l == "no" || l == "0") return false;
    throw ConfigError(path_, k, "'" + s + "' is not true or false");
  }
  // The first of several spellings that is present.
  std::string first_of(std::initializer_list<const char*> keys) {
    for (const char* k : keys) used_.insert(k);
    for (const char* k : keys)
      if (has(k)) return k;
    return "";
  }
  void mark(const std::string& k) { used_.insert(k); }
  // The config a Hydra defaults list selects for `group_key` ("- optional tp_overlap@model.ub_tp_
  // comm_overlap_cfg: ub_cfg_..."), "" when none.
  [[nodiscard]] std::string hydra_default(const std::string& group_key) const {
    const auto it = leaves_.find("defaults");
    if (it == leaves_.end() || !it->second.IsSequence()) return "";
    for (const auto& entry : it->second) {
      if (!entry.IsMap()) continue;
      for (const auto& kv : entry) {
        const std::string k = kv.first.Scalar();
        if (k.size() > group_key.size() && k.compare(k.size() - group_key.size(), group_key.size(), group_key) == 0 &&
            k[k.size() - group_key.size() - 1] == '@' && kv.second.IsScalar())
          return kv.second.Scalar();
      }
    }
    return "";
  }

  void report(Imported& imp) const {
    for (const auto& k : order_) {
      if (used_.count(k)) continue;
      const YAML::Node& n = leaves_.at(k);
      const std::string shown = k + (n.IsScalar() ? ": " + n.Scalar() : "");
      (no_effect(k) ? imp.ignored : imp.unknown).push_back(shown);
    }
  }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::map<std::string, YAML::Node> leaves_;
  std::vector<std::string> order_;
  std::set<std::string> used_;
};

// Vocabulary of a Hugging Face tokenizer named in the recipe, for the families whose size is
// published in their model cards (Llama 3 / 3.1: 128,256; Llama 2: 32,000; GPT-2: 50,257).
int tokenizer_vocab(const std::string& type) {
  auto has = [&](const char* s) { return type.find(s) != std::string::npos; };
  if (has("Llama-3") || has("llama3") || has("Llama3")) return 128256;
  if (has("Llama-2") || has("llama2")) return 32000;
  if (has("gpt2") || has("GPT2")) return 50257;
  return 0;
}

}  // namespace

Imported read_nemo_recipe(const std::string& path) {
  // As scenario files: a FIFO would block forever, /dev/zero never end, a directory fail mid-read.
  if (const std::string problem = file_problem(path, kMaxRecipeBytes, "a YAML recipe"); !problem.empty())
    throw ConfigError(path, "", problem);
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.is_open() || in.bad()) throw ConfigError(path, "", "cannot be read");
  return read_nemo_recipe_text(text, path);
}

Imported read_nemo_recipe_text(const std::string& text, const std::string& path) {
  if (text.size() > kMaxRecipeBytes) throw ConfigError(path, "", "is larger than 4 MiB; not a recipe");
  Reader r(path);
  r.load(text);
  Imported imp;
  imp.source = "NeMo recipe " + path;

  // Cluster size: NeMo 1 trainer.num_nodes x trainer.devices.
  const int nodes = r.integer("trainer.num_nodes", 0), devices = r.integer("trainer.devices", 0);
  if (nodes > 0 && devices > 0) {
    const long long gpus = static_cast<long long>(nodes) * devices;  // both up to 10^9
    if (gpus > limits::kMaxGpus)
      throw ConfigError(path, "trainer.num_nodes", std::to_string(nodes) + " nodes x trainer.devices " + std::to_string(devices) +
                                                       " = " + std::to_string(gpus) + " GPUs; fleetsim's limit is " +
                                                       std::to_string(limits::kMaxGpus));
    imp.gpus = static_cast<int>(gpus);
  }

  // Model (same names in both layouts).
  imp.num_layers = r.integer("model.num_layers", 0);
  imp.hidden_size = r.integer("model.hidden_size", 0);
  imp.ffn_hidden_size = r.integer("model.ffn_hidden_size", 0);
  imp.num_attention_heads = r.integer("model.num_attention_heads", 0);
  imp.num_query_groups = r.integer("model.num_query_groups", 0);
  const std::string seq = r.first_of({"model.encoder_seq_length", "model.seq_length", "model.data.seq_length",
                                      "dataset.sequence_length"});
  imp.seq_length = seq.empty() ? 0 : r.integer(seq, 0);
  const std::string act = r.text("model.activation");
  if (!act.empty()) {
    if (act.find("swiglu") != std::string::npos) imp.swiglu = true;
    else if (act.find("gelu") == std::string::npos)
      imp.unsupported.push_back("model.activation: " + act + ": modeled as a two-matrix (GELU-like) MLP");
  }
  if (r.has("model.gated_linear_unit")) imp.swiglu = r.boolean("model.gated_linear_unit", imp.swiglu);
  imp.untie_embeddings = !r.boolean("model.share_embeddings_and_output_weights", true);
  // Vocabulary: model.vocab_size (Megatron-Bridge providers), else the tokenizer's; padded as
  // Megatron pads it (model.make_vocab_size_divisible_by x TP).
  imp.tp = std::max(1, r.integer("model.tensor_model_parallel_size", 1));
  int vocab = r.integer("model.vocab_size", 0);
  const std::string tok_key = r.first_of({"model.tokenizer.type", "tokenizer.tokenizer_model", "tokenizer.type"});
  if (vocab == 0 && !tok_key.empty()) {
    const std::string type = r.text(tok_key);
    vocab = tokenizer_vocab(type);
    if (vocab > 0) imp.assumed.push_back(tok_key + " " + type + ": vocabulary " + std::to_string(vocab) + " tokens");
    else imp.unknown.push_back(tok_key + ": " + type + ": vocabulary size not known; add model.vocab_size");
  }
  const int divisible = r.integer("model.make_vocab_size_divisible_by", 128);
  if (vocab > 0) {
    imp.vocab_size = padded_vocab(vocab, divisible, imp.tp, path);
    if (imp.vocab_size != vocab)
      imp.assumed.push_back("vocabulary padded to " + std::to_string(imp.vocab_size) + " (a multiple of " +
                            std::to_string(divisible) + " x TP, as Megatron pads it)");
  }
  // Hidden dropout: NeMo's and Megatron's default is 0.1; Llama recipes set 0.
  const std::string drop = r.text("model.hidden_dropout");
  if (!drop.empty()) imp.dropout = r.real("model.hidden_dropout", 0.1) > 0;
  // MoE.
  const std::string experts = r.first_of({"model.num_moe_experts", "model.num_experts"});
  imp.num_experts = experts.empty() ? 0 : r.integer(experts, 0);
  imp.moe_router_topk = r.integer("model.moe_router_topk", 2);
  imp.ep = std::max(1, r.integer("model.expert_model_parallel_size", 1));
  imp.moe_capacity_factor = r.real("model.moe_expert_capacity_factor", 1.0);
  imp.moe_layer_freq = std::max(1, r.integer("model.moe_layer_freq", 1));
  imp.moe_ffn_hidden_size = r.integer("model.moe_ffn_hidden_size", 0);
  // Megatron-core gives the shared experts as one intermediate size: count = size / expert width.
  const int shared = r.integer("model.moe_shared_expert_intermediate_size", 0);
  const int expert_width = imp.moe_ffn_hidden_size > 0 ? imp.moe_ffn_hidden_size : imp.ffn_hidden_size;
  if (shared > 0 && expert_width > 0) imp.moe_shared_experts = std::max(1, shared / expert_width);
  // Node-limited routing: the router's groups are nodes, group_topk the nodes a token may reach.
  imp.moe_router_max_nodes = r.integer("model.moe_router_group_topk", 0);
  r.mark("model.moe_router_num_groups");
  imp.mtp_depth = r.integer("model.mtp_num_layers", 0);
  // Multi-head latent attention (Megatron-core MLATransformerConfig names).
  imp.kv_lora_rank = r.integer("model.kv_lora_rank", 0);
  imp.q_lora_rank = r.integer("model.q_lora_rank", 0);
  imp.qk_nope_head_dim = r.integer("model.qk_head_dim", 0);
  imp.qk_rope_head_dim = r.integer("model.qk_pos_emb_head_dim", 0);
  imp.v_head_dim = r.integer("model.v_head_dim", 0);
  r.mark("model.multi_latent_attention");

  // Layout.
  imp.pp = std::max(1, r.integer("model.pipeline_model_parallel_size", 1));
  imp.vpp = std::max(1, r.integer("model.virtual_pipeline_model_parallel_size", 1));
  imp.cp = std::max(1, r.integer("model.context_parallel_size", 1));
  imp.sequence_parallel = r.boolean("model.sequence_parallel", false);
  imp.microbatch_group_size = r.integer("model.microbatch_group_size_per_vp_stage", 0);
  imp.first_stage_layers = r.integer("model.num_layers_in_first_pipeline_stage", 0);
  imp.last_stage_layers = r.integer("model.num_layers_in_last_pipeline_stage", 0);
  imp.embedding_as_layer = r.boolean("model.account_for_embedding_in_pipeline_split", false);
  imp.loss_as_layer = r.boolean("model.account_for_loss_in_pipeline_split", false);
  // Megatron-core's RankGenerator order with use_tp_pp_dp_mapping: tp-cp-ep-pp-dp.
  if (r.boolean("model.use_tp_pp_dp_mapping", false)) imp.rank_order = imp.num_experts > 1 ? "tp-cp-ep-pp-dp" : "tp-cp-pp-dp";
  const std::string rec_key = r.first_of({"model.activations_checkpoint_granularity", "model.recompute_granularity"});
  if (!rec_key.empty()) {
    const std::string g = r.text(rec_key);
    if (g != "full" && g != "selective") throw ConfigError(path, rec_key, "'" + g + "': expected full, selective or null");
    imp.recompute = g;
  }
  // Distributed optimizer and overlap: NeMo 1 model.optim (distributed_fused_adam, Apex's; or
  // mcore_distributed_optim, Megatron-core's: ZeRO-1 with overlapped grad/param sync);
  // Megatron-Bridge ddp.* / optimizer.use_distributed_optimizer.
  const std::string optim = r.text("model.optim.name");
  imp.distributed_optimizer = optim == "distributed_fused_adam" || optim == "mcore_distributed_optim" ||
                              r.boolean("ddp.use_distributed_optimizer", false) ||
                              r.boolean("optimizer.use_distributed_optimizer", false);
  imp.overlap_grad_reduce = r.boolean("model.optim.overlap_grad_sync", false) || r.boolean("ddp.overlap_grad_reduce", false);
  imp.overlap_param_gather = r.boolean("model.optim.overlap_param_sync", false) || r.boolean("ddp.overlap_param_gather", false);
  if (r.boolean("ddp.use_custom_fsdp", false) || r.boolean("ddp.use_megatron_fsdp", false)) imp.zero_stage = 3;

  // Batch and numerics.
  const std::string mbs = r.first_of({"model.micro_batch_size", "train.micro_batch_size"});
  imp.micro_batch_size = std::max(1, mbs.empty() ? 1 : r.integer(mbs, 1));
  const std::string gbs = r.first_of({"model.global_batch_size", "train.global_batch_size"});
  imp.global_batch_size = gbs.empty() ? 0 : r.integer(gbs, 0);
  // Training length: NeMo 1 trainer.max_steps, Megatron-Bridge train.train_iters.
  const std::string steps = r.first_of({"trainer.max_steps", "train.train_iters"});
  const int iters = steps.empty() ? 0 : r.integer(steps, 0);
  if (iters > 0 && imp.global_batch_size > 0 && imp.seq_length > 0)
    imp.train_tokens = input_integer<long long>(static_cast<double>(iters) * imp.global_batch_size * imp.seq_length,
                                                path, steps, steps + " x global_batch_size x seq_length tokens", 0,
                                                limits::kMaxTrainTokens);
  // Precision: NeMo 1 trainer.precision with model.fp8 (Transformer Engine, delayed scaling: NeMo
  // 1's only FP8 recipe); Megatron-Bridge mixed_precision, a recipe name
  // ("bf16_with_fp8_current_scaling_mixed") or a mapping (fp8, fp8_recipe, ...).
  const std::string prec_key = r.first_of({"trainer.precision", "mixed_precision"});
  const std::string prec = prec_key.empty() ? "" : r.text(prec_key);
  auto fp8_recipe_of = [](const std::string& name) -> std::string {
    if (name.find("mxfp8") != std::string::npos) return "mxfp8";
    if (name.find("current") != std::string::npos || name.find("tensorwise") != std::string::npos) return "current";
    if (name.find("blockwise") != std::string::npos || name.find("subchannel") != std::string::npos) return "blockwise";
    return "delayed";
  };
  if (prec.find("fp8") != std::string::npos) {
    imp.precision = "fp8";
    imp.fp8_recipe = fp8_recipe_of(prec);
  } else if (prec.find("bf16") != std::string::npos) {
    imp.precision = "bf16";
  } else if (prec == "16" || prec.find("16-mixed") != std::string::npos || prec.find("fp16") != std::string::npos) {
    imp.precision = "fp16";
  } else if (!r.has("mixed_precision.fp8")) {
    imp.unsupported.push_back((prec_key.empty() ? std::string("precision") : prec_key) + ": '" + prec +
                              "': modeled as bf16");
  }
  if (r.boolean("model.fp8", false)) {
    imp.precision = "fp8";
    imp.fp8_recipe = "delayed";
    imp.assumed.push_back("model.fp8: true: Transformer Engine's delayed scaling (NeMo 1's FP8 recipe)");
  }
  if (r.has("mixed_precision.fp8")) {
    imp.precision = "fp8";
    const std::string rec = r.text("mixed_precision.fp8_recipe");
    imp.fp8_recipe = rec.empty() ? "delayed" : fp8_recipe_of(rec);
  }
  r.mark("mixed_precision.fp8");
  r.mark("mixed_precision.fp8_recipe");
  // Gradient buffers in fp32 unless the recipe reduces them in 16 bits (NeMo 1 Apex optimizer
  // grad_sync_dtype; NeMo 2 / Bridge grad_reduce_in_fp32 on the precision plugin or the DDP config).
  const std::string sync = r.text("model.optim.grad_sync_dtype");
  if (!sync.empty()) imp.grad_reduce_in_fp32 = !(sync.find("16") != std::string::npos);
  const std::string g32 = r.first_of({"mixed_precision.grad_reduce_in_fp32", "ddp.grad_reduce_in_fp32"});
  if (!g32.empty()) imp.grad_reduce_in_fp32 = r.boolean(g32, true);
  // FP8 weights: NeMo 1 model.fp8_params, NeMo 2 / Bridge fp8_param_gather.
  const std::string fp8w = r.first_of({"model.fp8_params", "mixed_precision.fp8_param_gather"});
  if (!fp8w.empty() && r.boolean(fp8w, false)) {
    if (imp.precision == "fp8") imp.fp8_param_gather = true;
    else imp.ignored.push_back(fp8w + ": true without FP8 (no effect)");
  }
  imp.flash_attention = r.boolean("model.use_flash_attention", true);
  if (!r.has("model.use_flash_attention")) imp.assumed.push_back("flash / fused attention (Transformer Engine)");
  imp.tp_comm_overlap = r.boolean("model.ub_tp_comm_overlap", false) || r.boolean("comm_overlap.tp_comm_overlap", false);
  // TE userbuffers per-op settings: a config's name, or its ops spelled out (nemo_userbuffers.hpp).
  for (const char* cfg_key : {"model.ub_tp_comm_overlap_cfg", "comm_overlap.tp_comm_overlap_cfg", "model.tp_comm_overlap_cfg"}) {
    const std::string key = cfg_key;
    std::map<std::string, UserbuffersOp> ops;
    const std::string hydra = r.hydra_default(key);
    if (r.has(key)) {
      ops = nemo_userbuffers_config(r.text(key), r.path(), key);
    } else if (!hydra.empty()) {
      ops = nemo_userbuffers_config(hydra, r.path(), "defaults: tp_overlap@" + key);
    } else {
      for (const char* op : {"qkv_dgrad", "qkv_wgrad", "fc1_dgrad", "fc1_wgrad", "qkv_fprop", "proj_dgrad", "fc1_fprop",
                             "fc2_dgrad", "proj_fprop", "fc2_fprop"}) {
        const std::string p = key + "." + op + ".";
        if (!r.has(p + "method") && !r.has(p + "num_sm")) continue;
        UserbuffersOp o;
        o.method = r.text(p + "method");
        if (o.method.empty()) o.method = "pipeline";  // TE's default for an op without a method
        if (o.method != "bulk" && o.method != "pipeline" && o.method != "ring_exchange")
          throw ConfigError(r.path(), p + "method", "'" + o.method + "' is not bulk, pipeline or ring_exchange");
        o.num_sm = r.integer(p + "num_sm", o.method == "ring_exchange" ? 1 : 16);
        o.aggregate = r.boolean(p + "aggregate", false);
        o.fp8_buf = r.boolean(p + "fp8_buf", false);
        for (const char* f : {"cga_size", "num_splits", "set_sm_margin", "atomic_gemm", "use_ce"}) r.mark(p + f);
        ops[op] = o;
      }
    }
    if (ops.empty()) continue;
    const TpOverlapKeys k = tp_overlap_keys(ops);
    imp.tp_overlap_cfg = true;
    imp.tp_overlap_rs_method = k.rs_method;
    imp.tp_overlap_rs_sms = k.rs_sms;
    imp.tp_overlap_bulk_sms = k.bulk_sms;
    imp.tp_overlap_aggregate = k.aggregate;
    imp.tp_overlap_rs_fp8_buf = k.rs_fp8_buf;
    for (const auto& n : k.notes) imp.assumed.push_back(n);
    break;
  }
  imp.overlap_p2p_comm = r.boolean("model.overlap_p2p_comm", false) || r.boolean("comm_overlap.overlap_p2p_comm", false);
  imp.gradient_accumulation_fusion = r.boolean("model.gradient_accumulation_fusion", false);
  // Activation offloading (Megatron-core TransformerConfig cpu_offloading with
  // cpu_offloading_num_layers; Megatron-Bridge's GB200/GB300 70B FSDP perf recipes). Weights
  // offloading (cpu_offloading_weights) is not modelled.
  if (r.boolean("model.cpu_offloading", false)) imp.cpu_offloading_num_layers = r.integer("model.cpu_offloading_num_layers", 0);
  if (r.boolean("model.cpu_offloading_weights", false))
    imp.unsupported.push_back("model.cpu_offloading_weights: true: weight offloading is not modelled");
  for (const char* k : {"model.cpu_offloading", "model.cpu_offloading_num_layers", "model.cpu_offloading_weights",
                        "model.cpu_offloading_activations"})
    r.mark(k);
  for (const char* k : {"model.fp8", "model.ub_tp_comm_overlap", "model.overlap_p2p_comm", "model.use_flash_attention",
                        "comm_overlap.tp_comm_overlap", "comm_overlap.overlap_p2p_comm", "model.optim.name",
                        "model.make_vocab_size_divisible_by"})
    r.mark(k);
  r.report(imp);
  return imp;
}

}  // namespace fleetsim::importer
