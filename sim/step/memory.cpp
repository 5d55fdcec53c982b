#include "sim/step/memory.hpp"

#include <algorithm>
#include <cstdio>

#include "sim/step/flops.hpp"
#include "sim/step/fp8.hpp"
#include "sim/step/moe.hpp"

namespace fleetsim::step {

Bytes layer_activation_bytes(const WorkloadSpec& w, const Layout& l, bool moe_layer,
                             bool stored_for_backward) {
  const ModelSpec& m = w.model;
  const double t = l.tp;
  const double T = static_cast<double>(l.micro_batch) * m.seq_length / l.cp;  // tokens on this rank
  const double h = m.hidden_size;
  const double heads = m.num_attention_heads;
  const double groups = m.num_query_groups > 0 ? m.num_query_groups : heads;
  const double hd = h / heads;
  const double sp = w.parallel.sequence_parallel ? t : 1.0;
  const Recompute rc = w.parallel.recompute_granularity;
  if (stored_for_backward && rc == Recompute::Full) return Bytes(2.0 * T * h / sp);  // layer input

  if (stored_for_backward && rc == Recompute::Selective && m.is_mla()) {
    // DeepSeek-V3's recipe (arXiv:2412.19437 §3.2.3, §3.3.4), what `selective` means for an MLA
    // model: RMSNorm outputs and the MLA up-projections (Q, K, V) are recomputed in the backward,
    // so a layer keeps the two norm inputs (2 x 2Th), the latents (q_lora + kv_lora + rope), the
    // attention output (the output projection's input; E5M6, 1.5 B, under fp8) and the flash
    // log-sum-exp; a MoE layer keeps the dispatched expert inputs and the SwiGLU inputs (FP8
    // under fp8, the SwiGLU output recomputed); a dense layer its MLP input and SwiGLU input.
    const bool fp8 = w.training.precision == Precision::Fp8;
    const double lo = fp8 ? 1.0 : 2.0;
    double b = 4.0 * T * h / sp;
    b += 2.0 * T * (m.q_lora_rank + m.kv_lora_rank + m.qk_rope_head_dim);
    b += (fp8 ? 1.5 : 2.0) * T * heads / t * m.v_head_dim + 4.0 * T * heads / t;
    if (moe_layer) {
      // The busiest expert-parallel rank holds rank_load x the balanced share (moe.hpp).
      const double routed = T * m.moe_router_topk * std::max(1.0, m.moe_capacity_factor) * moe_rank_load(m, l.ep);
      const double tokens = routed + T * m.moe_shared_experts;
      b += lo * routed * h + lo * T * h * (m.moe_shared_experts > 0 ? 1.0 : 0.0);
      b += lo * tokens * 2.0 * m.expert_ffn() / t;
    } else {
      const double f = m.ffn_hidden_size > 0 ? m.ffn_hidden_size : 4.0 * h;
      b += lo * T * h / sp + lo * T * 2.0 * f / t;
    }
    return Bytes(b);
  }
  // Non-TP part: inputs of the two norms (2 x 2Th), inputs of QKV and the first MLP GEMM
  // (2 x 2Th), two dropout masks (2 x Th): 10 T h, divided by t with sequence parallelism. A model
  // trained without dropout (Llama 2/3: no dropout in the architecture) keeps no masks: 8 T h.
  double bytes = (m.dropout ? 10.0 : 8.0) * T * h / sp;
  // Attention: Q, K, V (for the scores and AV) and the output projection's input.
  double q_cols = heads / t * hd, kv_cols = 2.0 * std::max(1.0, groups / t) * hd;
  if (m.is_mla()) {
    // MLA: Q and K of qk_nope + qk_rope per head, V of v_head_dim, and the latent inputs of the
    // up-projections (q_lora_rank, kv_lora_rank + rope) that their weight gradients need.
    q_cols = heads / t * (m.qk_nope_head_dim + m.qk_rope_head_dim);
    kv_cols = heads / t * (m.qk_nope_head_dim + m.qk_rope_head_dim + m.v_head_dim);
    bytes += 2.0 * T * (m.q_lora_rank + m.kv_lora_rank + m.qk_rope_head_dim);
    bytes += 2.0 * T * (q_cols + kv_cols) + 2.0 * T * heads / t * m.v_head_dim;
  } else {
    bytes += 2.0 * T * (q_cols + kv_cols) + 2.0 * T * q_cols;
  }
  const double score_elems = static_cast<double>(l.micro_batch) * (heads / t) *
                             (static_cast<double>(m.seq_length) / l.cp) * m.seq_length;
  if (!w.training.use_flash_attn && rc != Recompute::Selective)
    bytes += 5.0 * score_elems;  // softmax output (2), dropout mask (1), dropout output (2)
  else if (w.training.use_flash_attn)
    bytes += 4.0 * static_cast<double>(l.micro_batch) * (heads / t) * T / l.micro_batch;  // logsumexp
  // MLP: first GEMM's output(s) and the activation's output (GELU: 8Th/t + 8Th/t for f = 4h).
  double f = m.ffn_hidden_size > 0 ? m.ffn_hidden_size : 4.0 * h;
  double tokens = T;
  if (moe_layer) {
    // Routed tokens with capacity padding, plus the permuted copy of the input; shared experts
    // as further tokens through an expert-wide MLP.
    const double cf = std::max(1.0, m.moe_capacity_factor);
    tokens = T * m.moe_router_topk * cf * moe_rank_load(m, l.ep) + T * m.moe_shared_experts;
    f = m.expert_ffn();
    bytes += 2.0 * T * m.moe_router_topk * cf * moe_rank_load(m, l.ep) * h / sp;
  }
  bytes += 2.0 * tokens * (m.swiglu ? 2.0 : 1.0) * f / t + 2.0 * tokens * f / t;
  if (w.training.precision == Precision::Fp8) {
    // Transformer Engine saves the FP8 copies of the linear layers' inputs for the weight-gradient
    // GEMMs (fp8.hpp): 1 B instead of 2 for the QKV and first-MLP inputs (the norm outputs), the
    // attention output (input of the output projection) and the activation output (FC2 input).
    bytes -= 2.0 * T * h / sp + T * q_cols + tokens * f / t;
  }
  return Bytes(bytes);
}

std::vector<StageMemory> stage_memory(const WorkloadSpec& w, const StageCosts& costs,
                                      const InFlight& in_flight) {
  const Layout& l = costs.layout;
  const ModelSpec& m = w.model;
  const ParallelSpec& par = w.parallel;
  std::vector<StageMemory> out(static_cast<size_t>(l.pp));
  // Mixed-precision Adam (Rajbhandari et al. 2020, ZeRO, Sec. 3.1; Megatron-LM
  // docs/distrib_optimizer.md): 16-bit weights (2 B), fp32 main gradients (4 B; 2 B with
  // grad_reduce_in_fp32 off), fp32 master weights + Adam m and v (12 B) = 18 B/param; the
  // distributed optimizer (ZeRO-1) shards the
  // 12 B over the data-parallel group, ZeRO-2 also the gradients, ZeRO-3/FSDP also the weights
  // (and keeps the unit computing and the fsdp_prefetch_ops prefetched ones unsharded; a unit is
  // a layer, the embedding or the head: ChunkCost::largest_unit_params).
  const int zero = par.effective_zero_stage();
  const double wb = w.training.bytes_per_param;
  const double shard_dense = static_cast<double>(l.dp) * l.cp;
  const double shard_expert = std::max(1.0, shard_dense / l.ep);
  const bool moe_model = m.is_moe();
  const Bytes dense_layer = layer_activation_bytes(w, l, false);
  const Bytes moe_layer = moe_model ? layer_activation_bytes(w, l, true) : dense_layer;
  // The MoE layers' share (every moe_layer_freq-th after the first dense ones).
  const double moe_share = moe_model ? static_cast<double>(moe_layer_count(m)) / m.num_layers : 0.0;
  const Bytes per_layer = dense_layer * (1.0 - moe_share) + moe_layer * moe_share;
  const Bytes working = par.recompute_granularity == Recompute::Full
                            ? layer_activation_bytes(w, l, moe_model, false)
                            : Bytes(0);
  const double T = static_cast<double>(l.micro_batch) * m.seq_length / l.cp;
  const double h = m.hidden_size;
  // FSDP gathers one unit (a layer, the embedding, the head) at a time (ChunkCost).
  double largest_unit = 0;
  for (const auto& c : costs.chunks) largest_unit = std::max(largest_unit, c.largest_unit_params);

  for (int r = 0; r < l.pp; ++r) {
    StageMemory& s = out[static_cast<size_t>(r)];
    const double p = costs.rank_params[static_cast<size_t>(r)];
    const double pe = costs.rank_expert_params[static_cast<size_t>(r)];
    const double pd = p - pe;
    auto shard = [&](double bytes_per_param, bool sharded) {
      return sharded ? pd * bytes_per_param / shard_dense + pe * bytes_per_param / shard_expert
                     : p * bytes_per_param;
    };
    // Without resharding after forward (Llama 3 §3.3.2), a chunk's gathered weights stay until its
    // backward; with microbatches of every chunk in flight that is the whole stage unsharded.
    const bool sharded_weights = zero >= 3 && par.fsdp_reshard_after_forward;
    s.weights = Bytes(shard(wb, sharded_weights));
    // FP8 weight copies (and transposes) of the linear layers stay resident (fp8.hpp). With FP8
    // parameters (fp8_param_gather: TE fp8_model_init) those copies are the weights: the linear
    // layers keep no 16-bit copy (the fp32 main weights are the optimizer's 12 B). Under ZeRO-3
    // the 16-bit shard is kept as is (not modelled for FP8 parameters), and exist only for the units gathered (Megatron FSDP with
    // keep_fp8_transpose_cache off, Megatron-Bridge's FSDP perf recipes): TE quantizes a unit's
    // weights when it is gathered and drops them with it; counted with the gathered units below.
    if (w.training.precision == Precision::Fp8 && !sharded_weights) {
      const double linear = costs.rank_linear_params[static_cast<size_t>(r)];
      s.weights += Bytes(linear * fp8_weight_copy_bytes(w.training.fp8_recipe));
      if (w.training.fp8_param_gather) s.weights -= Bytes(linear * wb);
    }
    // The unit computing plus the fsdp_prefetch_ops units gathered ahead (0, "unlimited" in
    // time, is held to one ahead in memory as before).
    const double unsharded_units = 1.0 + std::max(1, par.fsdp_prefetch_ops);
    if (sharded_weights) {
      const double copies = w.training.precision == Precision::Fp8 ? fp8_weight_copy_bytes(w.training.fp8_recipe) : 0.0;
      s.weights += Bytes(unsharded_units * largest_unit * (wb + copies));
    }
    // Main gradients: fp32 (4 B) unless grad_reduce_in_fp32 is off: a 16-bit gradient buffer, 2 B
    // (Megatron-LM docs/distrib_optimizer.md: "bf16 param, fp32 grads" 6 + 12/d against "fp16
    // param, fp16 grads" 4 + 16/d; the extra 4/d there is the fp32 copy of the gradient shard,
    // made in the optimizer step when no activations are held, so it does not set the peak).
    // Under fp16 the 16-bit reduced gradients become fp32 main gradients (4 B).
    const double grad_mem = w.training.precision == Precision::Fp16 ? 4.0 : w.training.grad_bytes();
    s.gradients = Bytes(shard(grad_mem, zero >= 2));
    s.optimizer = Bytes(shard(12.0, zero >= 1));
    // Activation offloading (ParallelSpec::cpu_offloading_num_layers): of each chunk's layers,
    // that many keep their saved activations in host memory; the in-flight layer-microbatches
    // shrink in proportion (every chunk-microbatch in flight holds its chunk's layers).
    double resident = 1.0;
    if (par.cpu_offloading_num_layers > 0) {
      double layers = 0, offloaded = 0;
      for (int c = 0; c < l.vpp; ++c) {
        const int n = costs.chunks[static_cast<size_t>(c * l.pp + r)].layers;
        layers += n;
        offloaded += std::min(n, par.cpu_offloading_num_layers);
      }
      if (layers > 0) resident = 1.0 - offloaded / layers;
    }
    s.activations = per_layer * (in_flight.peak_layer_microbatches[static_cast<size_t>(r)] * resident) + working;
    // Pipeline send/receive buffers: one activation and one gradient in each direction.
    s.buffers = costs.p2p_bytes * (l.pp > 1 ? 4.0 : 0.0);
    if (r == 0) {
      // Embedding output kept for its backward (Korthikanti Sec. 4.3: dropout mask, s b h).
      s.activations += Bytes(T * h * in_flight.first_chunk_peak / (par.sequence_parallel ? l.tp : 1));
    }
    if (r == l.pp - 1) {
      // Logits (16-bit) and their fp32 softmax for the microbatch between its forward and
      // backward (Korthikanti Sec. 4.3: 4 s b v / t), plus the final norm's input.
      const double vocab_loc = static_cast<double>(m.vocab_size) / l.tp;
      s.logits = Bytes(T * vocab_loc * (2.0 + 4.0) + 4.0 * T * h / (par.sequence_parallel ? l.tp : 1));
      // Multi-token prediction: its layer's activations for the microbatches in flight on the
      // last chunk, and its own logits (DeepSeek-V3 §2.2).
      if (m.mtp_depth > 0) {
        s.logits = s.logits * (1.0 + m.mtp_depth);
        s.activations += moe_layer * (static_cast<double>(m.mtp_depth) * std::max(1, in_flight.last_chunk_peak));
      }
    }
  }
  return out;
}

std::string memory_error_message(const StageMemory& peak, int stage, const GpuSpec& gpu) {
  auto gib = [](Bytes b) { return units::to_gib(b); };
  char buf[640];
  std::snprintf(buf, sizeof buf,
                "the layout needs %.1f GiB per GPU on pipeline stage %d (weights %.1f, gradients "
                "%.1f, optimizer states %.1f, activations %.1f, logits %.1f, buffers %.1f GiB) "
                "but a %s has %.1f GiB usable (%.1f GiB minus a %.1f GiB reserve); use more "
                "tensor/pipeline parallelism, a distributed optimizer, recomputation or a smaller "
                "micro_batch_size",
                gib(peak.total()), stage, gib(peak.weights), gib(peak.gradients),
                gib(peak.optimizer), gib(peak.activations), gib(peak.logits), gib(peak.buffers),
                gpu.name.c_str(), gib(gpu.memory - gpu.usable_memory_reserve), gib(gpu.memory),
                gib(gpu.usable_memory_reserve));
  return buf;
}

}  // namespace fleetsim::step
