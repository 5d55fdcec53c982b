#include "sim/import/megatron_args.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "sim/core/checked.hpp"
#include "sim/core/error.hpp"
#include "sim/core/limits.hpp"

namespace fleetsim::importer {
namespace {

const std::string kSource = "Megatron-LM pretrain_gpt.py arguments";

// Arguments that take no value (store_true / store_false in arguments.py).
const std::set<std::string> kFlags = {
    "--sequence-parallel", "--use-distributed-optimizer", "--bf16", "--fp16", "--swiglu",
    "--group-query-attention", "--untie-embeddings-and-output-weights", "--use-flash-attn",
    "--overlap-grad-reduce", "--overlap-param-gather", "--recompute-activations", "--checkpoint-activations",
    "--disable-bias-linear", "--use-rotary-position-embeddings", "--use-mcore-models", "--mock-data",
    "--no-masked-softmax-fusion", "--no-bias-gelu-fusion", "--no-bias-dropout-fusion", "--log-throughput",
    "--no-load-optim", "--no-load-rng", "--log-progress", "--qk-layernorm", "--use-rope-scaling",
    "--tp-comm-overlap", "--no-gradient-accumulation-fusion", "--accumulate-allreduce-grads-in-fp32",
    "--use-cpu-initialization", "--no-async-tensor-model-parallel-allreduce", "--moe-grouped-gemm",
    "--fp8-param-gather", "--use-torch-fsdp2", "--no-rope-fusion", "--cross-entropy-loss-fusion",
    "--apply-layernorm-1p", "--no-position-embedding", "--calculate-per-token-loss",
    "--embedding-weights-in-fp32", "--rotary-position-embeddings-in-fp32", "--attention-softmax-in-fp32",
    "--multi-latent-attention", "--no-overlap-p2p-communication", "--account-for-embedding-in-pipeline-split",
    "--account-for-loss-in-pipeline-split", "--use-tp-pp-dp-mapping", "--grad-reduce-in-bf16", "--cpu-offloading"};

// Read and set aside: optimizer hyperparameters, data, logging, checkpoint paths, initialization,
// numerics that do not change the work of an iteration.
const std::set<std::string> kIgnored = {
    "--lr", "--min-lr", "--lr-decay-style", "--lr-decay-iters", "--lr-decay-samples", "--lr-warmup-fraction",
    "--lr-warmup-iters", "--lr-warmup-samples", "--split", "--eval-iters",
    "--eval-interval", "--log-interval", "--save-interval", "--save", "--load", "--data-path", "--merge-file",
    "--clip-grad", "--loss-scale", "--weight-decay", "--adam-beta1", "--adam-beta2", "--adam-eps",
    "--init-method-std", "--seed", "--max-position-embeddings", "--attention-dropout",
    "--tensorboard-dir", "--distributed-backend", "--log-progress", "--log-throughput", "--no-load-optim",
    "--no-load-rng", "--mock-data", "--num-workers", "--tokenizer-model", "--ckpt-format", "--data-cache-path",
    "--initial-loss-scale", "--min-loss-scale", "--loss-scale-window", "--hysteresis", "--use-mcore-models",
    "--disable-bias-linear", "--use-rotary-position-embeddings", "--position-embedding-type", "--rotary-base",
    "--rotary-percent", "--normalization", "--norm-epsilon", "--layernorm-epsilon", "--qk-layernorm",
    "--use-rope-scaling", "--no-rope-fusion", "--apply-layernorm-1p", "--kv-channels", "--use-cpu-initialization",
    "--no-masked-softmax-fusion", "--no-bias-gelu-fusion", "--no-bias-dropout-fusion", "--cross-entropy-loss-fusion",
    "--accumulate-allreduce-grads-in-fp32", "--embedding-weights-in-fp32", "--rotary-position-embeddings-in-fp32",
    "--attention-softmax-in-fp32", "--transformer-impl", "--micro-batch-size-ramp", "--exit-interval",
    "--wandb-project", "--wandb-exp-name", "--calculate-per-token-loss", "--eval-samples"};

struct Args {
  std::map<std::string, std::string> values;  // last occurrence wins, as argparse does
  std::set<std::string> flags;
  std::vector<std::string> order;              // names in the order given
};

Args parse(const std::vector<std::string>& argv) {
  Args a;
  for (size_t i = 0; i < argv.size(); ++i) {
    std::string tok = argv[i];
    if (tok.rfind("--", 0) != 0) {
      throw ConfigError(kSource, tok, "expected an argument starting with '--' (a value without its name?)");
    }
    std::string value;
    bool has_value = false;
    if (const auto eq = tok.find('='); eq != std::string::npos) {
      value = tok.substr(eq + 1);
      tok = tok.substr(0, eq);
      has_value = true;
    } else if (!kFlags.count(tok) && i + 1 < argv.size() && argv[i + 1].rfind("--", 0) != 0) {
      value = argv[++i];
      has_value = true;
    }
    a.order.push_back(tok);
    if (has_value) a.values[tok] = value;
    else a.flags.insert(tok);
  }
  return a;
}

int integer(const Args& a, const std::string& key, int fallback) {
  const auto it = a.values.find(key);
  if (it == a.values.end()) return fallback;
  try {
    size_t used = 0;
    const long v = std::stol(it->second, &used);
    if (used != it->second.size() || v < 0 || v > 1000000000L) throw std::invalid_argument("range");
    return static_cast<int>(v);
  } catch (const std::exception&) {
    throw ConfigError(kSource, key, "'" + it->second + "' is not an integer from 0 to 1000000000");
  }
}

double real(const Args& a, const std::string& key, double fallback) {
  const auto it = a.values.find(key);
  if (it == a.values.end()) return fallback;
  try {
    size_t used = 0;
    const double v = std::stod(it->second, &used);
    if (used != it->second.size() || !(v >= 0)) throw std::invalid_argument("range");
    return v;
  } catch (const std::exception&) {
    throw ConfigError(kSource, key, "'" + it->second + "' is not a non-negative number");
  }
}

std::string text(const Args& a, const std::string& key) {
  const auto it = a.values.find(key);
  return it == a.values.end() ? std::string() : it->second;
}

}  // namespace

std::vector<std::string> split_command_line(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  std::string tok;
  while (in >> tok) {
    if (tok == "\\") continue;
    out.push_back(tok);
  }
  // Skip the launcher and the script: everything up to the first '--' argument.
  const auto first = std::find_if(out.begin(), out.end(), [](const std::string& s) { return s.rfind("--", 0) == 0; });
  out.erase(out.begin(), first);
  return out;
}

Imported read_megatron_args(const std::vector<std::string>& argv) {
  const Args a = parse(argv);
  Imported imp;
  imp.source = kSource;
  std::set<std::string> used;
  auto use = [&](std::initializer_list<const char*> names) { for (const char* n : names) used.insert(n); };
  auto has = [&](const std::string& k) { return a.flags.count(k) > 0 || a.values.count(k) > 0; };

  // Model.
  imp.num_layers = integer(a, "--num-layers", 0);
  imp.hidden_size = integer(a, "--hidden-size", 0);
  imp.num_attention_heads = integer(a, "--num-attention-heads", 0);
  imp.seq_length = integer(a, "--seq-length", 0);
  imp.swiglu = has("--swiglu");
  imp.ffn_hidden_size = integer(a, "--ffn-hidden-size", 0);
  if (imp.ffn_hidden_size == 0 && imp.hidden_size > 0) {
    imp.ffn_hidden_size = default_ffn_hidden_size(imp.hidden_size, imp.swiglu, kSource);
    imp.assumed.push_back("--ffn-hidden-size " + std::to_string(imp.ffn_hidden_size) +
                          (imp.swiglu ? " (Megatron's SwiGLU default: 2/3 of 4h, multiple of 64)" : " (Megatron's default 4h)"));
  }
  imp.num_query_groups = has("--group-query-attention") ? integer(a, "--num-query-groups", 1) : 0;
  imp.untie_embeddings = has("--untie-embeddings-and-output-weights");
  use({"--num-layers", "--hidden-size", "--num-attention-heads", "--seq-length", "--swiglu", "--ffn-hidden-size",
       "--group-query-attention", "--num-query-groups", "--untie-embeddings-and-output-weights"});
  // Vocabulary: --vocab-size (NullTokenizer), or the GPT-2 BPE files (50,257 tokens), padded as
  // Megatron pads it.
  int vocab = integer(a, "--vocab-size", 0);
  const std::string tokenizer = text(a, "--tokenizer-type");
  if (vocab == 0 && (has("--vocab-file") || tokenizer == "GPT2BPETokenizer")) {
    vocab = 50257;
    imp.assumed.push_back("vocabulary 50,257 tokens (the GPT-2 BPE files of --vocab-file), before padding");
  } else if (vocab == 0 && !tokenizer.empty()) {
    imp.unknown.push_back("--tokenizer-type " + tokenizer + ": its vocabulary size is not known here; give --vocab-size");
  }
  const int divisible = integer(a, "--make-vocab-size-divisible-by", 128);
  imp.tp = std::max(1, integer(a, "--tensor-model-parallel-size", 1));
  if (vocab > 0) {
    imp.vocab_size = padded_vocab(vocab, divisible, imp.tp, kSource);
    if (imp.vocab_size != vocab)
      imp.assumed.push_back("vocabulary padded to " + std::to_string(imp.vocab_size) + " (a multiple of " +
                            std::to_string(divisible) + " x TP, Megatron's _vocab_size_with_padding)");
  }
  use({"--vocab-size", "--tokenizer-type", "--vocab-file", "--make-vocab-size-divisible-by", "--tensor-model-parallel-size"});
  // Mixture of experts.
  imp.num_experts = integer(a, "--num-experts", 0);
  if (imp.num_experts > 1) {
    imp.moe_router_topk = integer(a, "--moe-router-topk", 2);
    imp.moe_capacity_factor = real(a, "--moe-expert-capacity-factor", 1.0);
    if (!has("--moe-expert-capacity-factor"))
      imp.assumed.push_back("dropless routing modeled as capacity factor 1 (balanced load)");
    imp.moe_layer_freq = integer(a, "--moe-layer-freq", 1);
  }
  imp.ep = std::max(1, integer(a, "--expert-model-parallel-size", 1));
  imp.moe_ffn_hidden_size = integer(a, "--moe-ffn-hidden-size", 0);
  // The shared experts as one intermediate size (Megatron-core): count = size / expert width.
  const int shared = integer(a, "--moe-shared-expert-intermediate-size", 0);
  const int expert_width = imp.moe_ffn_hidden_size > 0 ? imp.moe_ffn_hidden_size : imp.ffn_hidden_size;
  if (shared > 0 && expert_width > 0) imp.moe_shared_experts = std::max(1, shared / expert_width);
  // Node-limited routing: the router's groups are nodes; group top-k = nodes one token may reach.
  imp.moe_router_max_nodes = integer(a, "--moe-router-group-topk", 0);
  imp.mtp_depth = integer(a, "--mtp-num-layers", 0);
  use({"--num-experts", "--moe-router-topk", "--moe-expert-capacity-factor", "--moe-layer-freq",
       "--expert-model-parallel-size", "--moe-ffn-hidden-size", "--moe-shared-expert-intermediate-size",
       "--moe-router-group-topk", "--moe-router-num-groups", "--mtp-num-layers"});
  // Hidden dropout (Megatron's default 0.1): a model without it keeps no dropout masks.
  if (has("--hidden-dropout")) imp.dropout = real(a, "--hidden-dropout", 0.1) > 0;
  use({"--hidden-dropout"});
  // Multi-head latent attention (--multi-latent-attention with the MLA dimensions).
  if (has("--multi-latent-attention")) {
    imp.q_lora_rank = integer(a, "--q-lora-rank", 0);
    imp.kv_lora_rank = integer(a, "--kv-lora-rank", 0);
    imp.qk_nope_head_dim = integer(a, "--qk-head-dim", 0);
    imp.qk_rope_head_dim = integer(a, "--qk-pos-emb-head-dim", 0);
    imp.v_head_dim = integer(a, "--v-head-dim", 0);
    use({"--multi-latent-attention", "--q-lora-rank", "--kv-lora-rank", "--qk-head-dim", "--qk-pos-emb-head-dim",
         "--v-head-dim"});
  }

  // Layout.
  imp.pp = std::max(1, integer(a, "--pipeline-model-parallel-size", 1));
  imp.cp = std::max(1, integer(a, "--context-parallel-size", 1));
  imp.vpp = std::max(1, integer(a, "--virtual-pipeline-model-parallel-size", 1));
  if (const int per = integer(a, "--num-layers-per-virtual-pipeline-stage", 0); per > 0) {
    if (imp.num_layers % (static_cast<long long>(imp.pp) * per) != 0)  // both up to 10^9
      throw ConfigError(kSource, "--num-layers-per-virtual-pipeline-stage",
                        std::to_string(per) + " does not divide the " + std::to_string(imp.num_layers) +
                            " layers of " + std::to_string(imp.pp) + " pipeline stages evenly");
    imp.vpp = imp.num_layers / imp.pp / per;
  }
  imp.sequence_parallel = has("--sequence-parallel");
  imp.microbatch_group_size = integer(a, "--microbatch-group-size-per-virtual-pipeline-stage", 0);
  imp.first_stage_layers = integer(a, "--decoder-first-pipeline-num-layers", 0);
  imp.last_stage_layers = integer(a, "--decoder-last-pipeline-num-layers", 0);
  imp.embedding_as_layer = has("--account-for-embedding-in-pipeline-split");
  imp.loss_as_layer = has("--account-for-loss-in-pipeline-split");
  // megatron/training/initialize.py: order tp-cp-ep-pp-dp with --use-tp-pp-dp-mapping.
  if (has("--use-tp-pp-dp-mapping")) imp.rank_order = imp.num_experts > 1 ? "tp-cp-ep-pp-dp" : "tp-cp-pp-dp";
  use({"--pipeline-model-parallel-size", "--context-parallel-size", "--virtual-pipeline-model-parallel-size",
       "--num-layers-per-virtual-pipeline-stage", "--sequence-parallel",
       "--microbatch-group-size-per-virtual-pipeline-stage", "--decoder-first-pipeline-num-layers",
       "--decoder-last-pipeline-num-layers", "--account-for-embedding-in-pipeline-split",
       "--account-for-loss-in-pipeline-split", "--use-tp-pp-dp-mapping"});
  // Recomputation: --recompute-granularity; the 2021 --checkpoint-activations (full); the
  // --recompute-activations shorthand (selective); --recompute-method (uniform / block) is a
  // method of full recomputation only (arguments.py), so alone it means full.
  const std::string gran = text(a, "--recompute-granularity");
  if (!gran.empty()) {
    if (gran != "full" && gran != "selective")
      throw ConfigError(kSource, "--recompute-granularity", "'" + gran + "': expected full or selective");
    imp.recompute = gran;
  } else if (has("--checkpoint-activations")) {
    imp.recompute = "full";
  } else if (has("--recompute-activations")) {
    imp.recompute = "selective";
  } else if (has("--recompute-method")) {
    imp.recompute = "full";
    imp.assumed.push_back("--recompute-method " + text(a, "--recompute-method") +
                          " without --recompute-granularity: full recomputation (the only granularity with a method)");
  }
  if (has("--recompute-num-layers") && imp.recompute == "full")
    imp.unsupported.push_back("--recompute-num-layers " + text(a, "--recompute-num-layers") +
                              ": partial recomputation; every layer is recomputed");
  use({"--recompute-granularity", "--checkpoint-activations", "--recompute-activations", "--recompute-method",
       "--recompute-num-layers"});
  // Data parallelism: the distributed optimizer (ZeRO-1); overlap of the gradient reduction:
  // --overlap-grad-reduce, or PyTorch DDP (--DDP-impl torch, 2021) whose buckets overlap the
  // backward; Megatron's own DDP of 2021 (local) reduces after the backward.
  imp.distributed_optimizer = has("--use-distributed-optimizer");
  const std::string ddp = text(a, "--DDP-impl");
  if (!ddp.empty() && ddp != "torch" && ddp != "local")
    throw ConfigError(kSource, "--DDP-impl", "'" + ddp + "': expected torch or local");
  imp.overlap_grad_reduce = has("--overlap-grad-reduce") || ddp == "torch";
  imp.overlap_param_gather = has("--overlap-param-gather");
  if (has("--use-torch-fsdp2")) {
    imp.zero_stage = 3;
    imp.overlap_param_gather = true;
  }
  use({"--use-distributed-optimizer", "--DDP-impl", "--overlap-grad-reduce", "--overlap-param-gather", "--use-torch-fsdp2"});

  // Batch and numerics.
  imp.micro_batch_size = std::max(1, integer(a, "--micro-batch-size", 1));
  imp.global_batch_size = integer(a, "--global-batch-size", 0);
  // Training length: --train-iters x global batch, or --train-samples, in tokens.
  if (const int iters = integer(a, "--train-iters", 0); iters > 0)
    imp.train_tokens = input_integer<long long>(static_cast<double>(iters) * imp.global_batch_size * imp.seq_length,
                                                kSource, "--train-iters", "--train-iters x --global-batch-size x --seq-length tokens",
                                                0, limits::kMaxTrainTokens);
  else if (const int samples = integer(a, "--train-samples", 0); samples > 0)
    imp.train_tokens = input_integer<long long>(static_cast<double>(samples) * imp.seq_length, kSource, "--train-samples",
                                                "--train-samples x --seq-length tokens", 0, limits::kMaxTrainTokens);
  use({"--train-iters", "--train-samples"});
  if (has("--bf16")) imp.precision = "bf16";
  else if (has("--fp16")) imp.precision = "fp16";
  else imp.unsupported.push_back("fp32 training (neither --bf16 nor --fp16): modeled as bf16");
  // FP8 (Transformer Engine): --fp8-format with --fp8-recipe (delayed, Megatron's default;
  // tensorwise = current scaling; mxfp8; blockwise) and --fp8-param-gather (FP8 weights).
  if (has("--fp8-format")) {
    imp.precision = "fp8";
    const std::string recipe = text(a, "--fp8-recipe");
    if (recipe.empty() || recipe == "delayed") imp.fp8_recipe = "delayed";
    else if (recipe == "tensorwise") imp.fp8_recipe = "current";
    else if (recipe == "mxfp8" || recipe == "blockwise") imp.fp8_recipe = recipe;
    else throw ConfigError(kSource, "--fp8-recipe", "'" + recipe + "': expected delayed, tensorwise, mxfp8 or blockwise");
    imp.fp8_param_gather = has("--fp8-param-gather");
  } else if (has("--fp8-recipe") || has("--fp8-param-gather")) {
    imp.ignored.push_back("--fp8-recipe / --fp8-param-gather without --fp8-format (no FP8, no effect)");
  }
  use({"--micro-batch-size", "--global-batch-size", "--bf16", "--fp16", "--fp8-format", "--fp8-recipe", "--fp8-param-gather"});
  // Gradients: Megatron-LM reduces bf16 gradients in fp32 unless --grad-reduce-in-bf16.
  imp.grad_reduce_in_fp32 = !has("--grad-reduce-in-bf16");
  use({"--grad-reduce-in-bf16"});
  const std::string backend = text(a, "--attention-backend");
  imp.flash_attention = has("--use-flash-attn") || backend == "flash" || backend == "fused";
  if (!imp.flash_attention)
    imp.assumed.push_back("unfused attention (no --use-flash-attn; Megatron's local softmax over the s x s scores)");
  use({"--use-flash-attn", "--attention-backend"});
  imp.tp_comm_overlap = has("--tp-comm-overlap");
  if (has("--moe-grouped-gemm"))
    imp.unsupported.push_back("--moe-grouped-gemm: each local expert's GEMMs are timed on their own");
  // Megatron-LM of 2021 (the vocabulary of --DDP-impl and --checkpoint-activations, both removed
  // since) sent pipeline activations with blocking batch_isend_irecv and accumulated gradients in
  // a separate pass. Today's Megatron-LM overlaps the interleaved schedule's sends unless
  // --no-overlap-p2p-communication and fuses gradient accumulation into the weight-gradient GEMM
  // unless --no-gradient-accumulation-fusion (arguments.py, both store_false).
  const bool megatron_2021 = has("--DDP-impl") || has("--checkpoint-activations");
  imp.overlap_p2p_comm = !megatron_2021 && imp.vpp > 1 && !has("--no-overlap-p2p-communication");
  imp.gradient_accumulation_fusion = !megatron_2021 && !has("--no-gradient-accumulation-fusion");
  if (megatron_2021)
    imp.assumed.push_back("Megatron-LM of 2021 (--DDP-impl / --checkpoint-activations): blocking pipeline sends, "
                          "unfused gradient accumulation");
  else if (!has("--no-gradient-accumulation-fusion"))
    imp.assumed.push_back("gradient accumulation fused into the weight-gradient GEMM (Megatron-LM's default)");
  use({"--tp-comm-overlap", "--moe-grouped-gemm", "--no-gradient-accumulation-fusion", "--no-overlap-p2p-communication"});
  // Activation offloading: --cpu-offloading with --cpu-offloading-num-layers (Megatron-core).
  if (has("--cpu-offloading")) imp.cpu_offloading_num_layers = integer(a, "--cpu-offloading-num-layers", 0);
  else if (has("--cpu-offloading-num-layers"))
    imp.ignored.push_back("--cpu-offloading-num-layers without --cpu-offloading (no offloading, no effect)");
  use({"--cpu-offloading", "--cpu-offloading-num-layers"});

  for (const std::string& k : a.order) {
    if (used.count(k)) continue;
    const std::string shown = a.values.count(k) ? k + " " + a.values.at(k) : k;
    if (kIgnored.count(k)) imp.ignored.push_back(shown);
    else imp.unknown.push_back(shown);
    used.insert(k);  // list each once
  }
  return imp;
}

}  // namespace fleetsim::importer
