#include "sim/serving/replica.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/core/error.hpp"

namespace fleetsim::serving {
namespace {

step::CollectiveModel replica_collectives(const ClusterSpec& cluster) { return step::CollectiveModel(cluster); }

}  // namespace

ReplicaModel::ReplicaModel(const ClusterSpec& cluster, const ServingSpec& spec)
    : spec_(spec), gpu_(cluster.gpu), coll_(replica_collectives(cluster)), gpu_spec_(cluster.gpu) {
  const ModelSpec& m = spec.model;
  const GpuSpec& g = cluster.gpu;
  const int tp = spec.tp, pp = spec.pp, ep = spec.ep;
  hbm_ = g.hbm_bandwidth.si() * g.hbm_efficiency;
  peak16_ = g.peak_bf16.si();
  eff16_ = g.gemm_efficiency;
  if (spec.precision == ServingPrecision::Fp8) {
    peak_ = g.peak_fp8.si();
    eff_ = g.gemm_efficiency_fp8;
  } else {
    peak_ = peak16_;
    eff_ = eff16_;
  }
  wbytes_ = serving_bytes(spec.precision);
  kvbytes_ = serving_bytes(spec.kv_cache_precision);
  block_tokens_ = spec.engine.kv_block_tokens;

  // Layers per pipeline stage: the fullest stage sets the pace and the memory (ceil).
  stage_layers_ = (m.num_layers + pp - 1) / pp;
  const double h = m.hidden_size;
  const double heads = m.num_attention_heads;
  const double kvh = m.num_query_groups > 0 ? m.num_query_groups : heads;
  head_dim_ = h / heads;
  heads_gpu_ = heads / tp;
  // Grouped-query attention under TP: each GPU holds kvh / tp KV heads, or one replicated head
  // when TP exceeds the KV heads (TensorRT-LLM / Megatron replicate KV heads then).
  kv_heads_gpu_ = std::max(1.0, kvh / tp);
  ffn_gpu_ = static_cast<double>(m.ffn_hidden_size) / tp;
  const double up = m.swiglu ? 2.0 : 1.0;  // up (and gate) projections
  const double mlp_mats = up + 1.0;

  // MoE: experts sharded over EP (whole experts) and the rest of TP within each expert
  // (TensorRT-LLM moe_ep_size x moe_tp_size = tp_size).
  double layer_params_gpu = h * (heads_gpu_ + 2 * kv_heads_gpu_) * head_dim_ + heads_gpu_ * head_dim_ * h;
  if (m.is_moe()) {
    const int dense_first = m.moe_first_dense_layers;
    const double moe_layers = std::max(0, m.num_layers - dense_first) / static_cast<double>(std::max(1, m.moe_layer_freq));
    moe_share_ = std::clamp(moe_layers / m.num_layers, 0.0, 1.0);
    experts_gpu_ = static_cast<double>(m.num_experts) / ep;
    expert_ffn_gpu_ = static_cast<double>(m.expert_ffn()) * ep / tp;
    const double moe_mlp = experts_gpu_ * mlp_mats * h * expert_ffn_gpu_ + h * m.num_experts +
                           m.moe_shared_experts * mlp_mats * h * expert_ffn_gpu_;
    const double dense_mlp = mlp_mats * h * ffn_gpu_;
    layer_params_gpu += moe_share_ * moe_mlp + (1 - moe_share_) * dense_mlp;
  } else {
    layer_params_gpu += mlp_mats * h * ffn_gpu_;
  }
  // Embedding on the first stage, output layer on the last (vocabulary-parallel over TP), both
  // kept in 16 bits (TensorRT-LLM's FP8 recipe quantizes the linear layers of the blocks only).
  const double vocab_gpu = static_cast<double>(m.vocab_size) * h / tp;
  const double ends = pp == 1 ? (m.untie_embeddings_and_output_weights ? 2.0 : 1.0) : 1.0;
  weights_per_gpu_ = stage_layers_ * layer_params_gpu * wbytes_ + ends * vocab_gpu * 2.0;

  // Activation workspace the engine reserves for one iteration of max_num_tokens tokens (the
  // widest intermediate, the residual stream and the QKV output, 16-bit) and the logits of a full
  // batch (fp32).
  const double widest = std::max(up * std::max(ffn_gpu_, expert_ffn_gpu_), (heads_gpu_ + 2 * kv_heads_gpu_) * head_dim_);
  const double workspace = spec.engine.max_num_tokens * (widest + 3 * h) * 2.0 +
                           static_cast<double>(spec.engine.max_batch_size) * m.vocab_size / tp * 4.0;
  const double free_bytes = g.memory.si() - g.usable_memory_reserve.si() - weights_per_gpu_ - workspace;
  kv_bytes_per_token_ = 2.0 * stage_layers_ * kv_heads_gpu_ * head_dim_ * kvbytes_;
  if (free_bytes <= 0)
    throw ConfigError("", "serving.tensor_model_parallel_size",
                      spec.model_name + " does not fit in a replica of " + std::to_string(spec.gpus()) + " x " + g.name +
                          ": " + std::to_string(weights_per_gpu_ / (1u << 30)).substr(0, 6) + " GiB of weights per GPU (" +
                          serving_precision_name(spec.precision) + ") and the engine's workspace leave no memory of the " +
                          std::to_string(g.memory.si() / (1u << 30)).substr(0, 6) +
                          " GiB for the KV cache; use a larger tensor_model_parallel_size or pipeline_model_parallel_size, "
                          "or precision fp8");
  kv_bytes_per_gpu_ = free_bytes * spec.engine.kv_cache_memory_fraction;
  kv_blocks_ = static_cast<long long>(kv_bytes_per_gpu_ / (kv_bytes_per_token_ * block_tokens_));
  const long long need = blocks_for(static_cast<long long>(spec.input_tokens) + spec.output_tokens);
  if (kv_blocks_ < need)
    throw ConfigError("", "serving.tensor_model_parallel_size",
                      spec.model_name + " leaves room for " + std::to_string(kv_blocks_) + " KV-cache blocks of " +
                          std::to_string(block_tokens_) + " tokens per replica, and one request of " +
                          std::to_string(spec.input_tokens) + " + " + std::to_string(spec.output_tokens) +
                          " tokens needs " + std::to_string(need) +
                          ": the model does not fit with one request; use a larger tensor_model_parallel_size or "
                          "pipeline_model_parallel_size, kv_cache_precision fp8, or shorter requests");
}

// Weight GEMMs: the engine picks the faster of a 128 x 128-tile kernel (the step model's GEMM,
// with its tile, wave and ramp efficiencies, fit for prompt-sized M) and a small-M split-K
// kernel that streams the weights at the HBM rate and computes at the GPU's GEMM ceiling
// (decode GEMMs with M = batch; TensorRT-LLM's GEMV / split-K plugins). Roofline either way.
double ReplicaModel::gemm(double m, double n, double k) const {
  if (m <= 0) return 0;
  const double tiled = spec_.precision == ServingPrecision::Fp8 ? gpu_.gemm_fp8(m, n, k).si() : gpu_.gemm(m, n, k).si();
  const double bytes = wbytes_ * (m * k + k * n) + 2.0 * m * n;
  const double skinny = std::max(bytes / hbm_, 2.0 * m * n * k / (peak_ * eff_));
  return std::min(tiled, skinny);
}

double ReplicaModel::gemm16(double m, double n, double k) const {
  if (m <= 0) return 0;
  const double bytes = 2.0 * (m * k + k * n) + 2.0 * m * n;
  return std::min(gpu_.gemm(m, n, k).si(), std::max(bytes / hbm_, 2.0 * m * n * k / (peak16_ * eff16_)));
}

// One pipeline stage's layers for the tokens of `l`. Per layer (Llama / Mixtral block):
//   QKV (n x h -> (a/t + 2 g/t) d), attention, output projection ((a/t) d -> h), MLP up/gate and
//   down (or the routed experts), two RMSNorms, residual adds, RoPE, the MLP activation, and two
//   TP all-reduces of the n x h output (Megatron-style TP; Shoeybi et al. 2019, Sec. 3).
double ReplicaModel::stage_time(const IterationLoad& l, IterationBreakdown& b) const {
  const ModelSpec& m = spec_.model;
  const double h = m.hidden_size;
  const double n = l.decode_seqs + l.prefill_tokens;
  if (n <= 0) return 0;
  const double d = head_dim_;
  const double up = m.swiglu ? 2.0 : 1.0;
  double gemm_t = gemm(n, (heads_gpu_ + 2 * kv_heads_gpu_) * d, h) + gemm(n, h, heads_gpu_ * d);
  const double dense_mlp = gemm(n, up * ffn_gpu_, h) + gemm(n, h, ffn_gpu_);
  double mlp = dense_mlp;
  if (m.is_moe()) {
    // Top-k routing, balanced: the expected number of this GPU's experts that receive at least one
    // of the n tokens is E_gpu (1 - (1 - k/E)^n); each reads its weights once and computes its
    // n k / E_active share of the routed tokens.
    const double E = m.num_experts, k = std::max(1, m.moe_router_topk);
    const double hit = 1.0 - std::pow(1.0 - k / E, n);
    const double active = std::max(1e-9, experts_gpu_ * hit);
    const double tokens_per_expert = n * k / E / hit;  // over the experts hit
    const double routed = active * (gemm(tokens_per_expert, up * expert_ffn_gpu_, h) + gemm(tokens_per_expert, h, expert_ffn_gpu_));
    const double shared = m.moe_shared_experts * (gemm(n, up * expert_ffn_gpu_, h) + gemm(n, h, expert_ffn_gpu_));
    const double router = gemm16(n, E, h);
    mlp = moe_share_ * (routed + shared + router) + (1 - moe_share_) * dense_mlp;
  }
  gemm_t += mlp;
  // Attention. Decode: the KV cache of every sequence is read once (memory bound; Pope et al.
  // 2022, "Efficiently Scaling Transformer Inference", Sec. 2); prefill: fused causal attention,
  // 4 d flops per query-key pair per head (QK^T and PV), at the GPU's flash-attention efficiency.
  const double kv_read = l.decode_context * 2.0 * kv_heads_gpu_ * d * kvbytes_;
  const double decode_flops = 4.0 * l.decode_context * heads_gpu_ * d;
  const double attn = std::max(gpu_.memory_bound(Bytes(kv_read)).si(), gpu_.attention(Flops(decode_flops)).si()) +
                      gpu_.attention(Flops(4.0 * l.prefill_pairs * heads_gpu_ * d)).si();
  // Elementwise (16-bit): two RMSNorms and two residual adds (read and write h each), RoPE on Q
  // and K, the activation (read up * f/t, write f/t), and the KV write.
  const double act_ffn = m.is_moe() ? moe_share_ * m.moe_router_topk * expert_ffn_gpu_ + (1 - moe_share_) * ffn_gpu_ : ffn_gpu_;
  const double elem_bytes = n * 2.0 * (8 * h + 2 * (heads_gpu_ + kv_heads_gpu_) * d + (up + 1) * act_ffn) +
                            n * 2.0 * kv_heads_gpu_ * d * kvbytes_;
  const double elem = gpu_.memory_bound(Bytes(elem_bytes)).si();
  const double tp = spec_.tp > 1 ? 2.0 * coll_.time(step::Collective::AllReduce, Bytes(n * h * 2.0), {spec_.tp, 1}).si() : 0.0;
  const double L = stage_layers_;
  b.gemm += L * gemm_t;
  b.attention += L * attn;
  b.elementwise += L * elem;
  b.tp_comm += L * tp;
  b.overhead += L * spec_.engine.layer_overhead_s;
  return L * (gemm_t + attn + elem + tp + spec_.engine.layer_overhead_s);
}

// With PP stages, the engine keeps PP micro-batches in flight (TensorRT-LLM pipeline parallelism):
// every sequence advances one token per PP stage times of its micro-batch, so an iteration of
// the whole batch takes PP x the stage time of 1/PP of it, plus the PP - 1 activation sends.
IterationBreakdown ReplicaModel::breakdown(const IterationLoad& load) const {
  IterationBreakdown b;
  const double p = spec_.pp;
  IterationLoad part = load;
  part.decode_seqs /= p;
  part.decode_context /= p;
  part.prefill_seqs /= p;
  part.prefill_tokens /= p;
  part.prefill_pairs /= p;
  IterationBreakdown one;
  stage_time(part, one);
  b.gemm = p * one.gemm;
  b.attention = p * one.attention;
  b.elementwise = p * one.elementwise;
  b.tp_comm = p * one.tp_comm;
  b.overhead = p * one.overhead + spec_.engine.iteration_overhead_s;
  const double n = part.decode_seqs + part.prefill_tokens;
  if (spec_.pp > 1 && n > 0)
    b.pp_comm = (p - 1) * coll_.p2p(Bytes(n * spec_.model.hidden_size * 2.0), spec_.tp).si();
  // The output layer on the last stage: logits for every sequence that emits a token.
  const double rows = load.decode_seqs + load.prefill_seqs;
  b.logits = gemm16(rows, static_cast<double>(spec_.model.vocab_size) / spec_.tp, spec_.model.hidden_size);
  return b;
}

}  // namespace fleetsim::serving
