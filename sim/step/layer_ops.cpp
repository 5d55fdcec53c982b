// The op lists of a transformer layer, the embedding, the head and an MTP projection
// (layer_ops.hpp). Shapes and sources follow the physics each op stands for; op_time.cpp prices
// them. The order of a pass's ops is the order their times are summed (README.md, "The op list").
#include "sim/step/layer_ops.hpp"

#include <algorithm>

#include "sim/step/fp8.hpp"
#include "sim/step/moe.hpp"

namespace fleetsim::step {

namespace {

constexpr double kAct = 2.0;  // bytes per 16-bit activation element
constexpr std::uint8_t kNoUnit = 0xFF;  // collectives: priced on their own (op_time.cpp)

// Appends ops to one list, unit by unit.
template <std::size_t N>
class Ops {
 public:
  Ops(OpArray<N>& ops, const OpShape& c) : ops_(ops), c_(c) {}

  std::uint8_t unit() {
    const std::uint8_t u = ops_.next_unit();
    if (u >= kMaxUnits) throw std::length_error("op list: more than 64 units");
    return u;
  }

  Op& add(std::string_view name, OpKind kind, Phase phase, std::uint8_t unit) {
    Op op;
    op.name = name; op.kind = kind; op.phase = phase; op.unit = unit;
    return ops_.add(op);
  }
  Op& gemm(std::string_view name, OpKind kind, Phase phase, std::uint8_t unit, double m, double n, double k,
           double count) {
    Op& op = add(name, kind, phase, unit);
    op.m = m; op.n = n; op.k = k; op.count = count;
    if (kind == OpKind::GemmFp8) op.factor = c_.fp8_ratio;
    return op;
  }
  Op& memory(std::string_view name, Phase phase, std::uint8_t unit, double bytes, double kernels,
             OpKind kind = OpKind::MemoryBound) {
    Op& op = add(name, kind, phase, unit);
    op.bytes = bytes; op.kernels = kernels;
    return op;
  }

  // A GEMM with its backward (input gradient M x K with inner N, weight gradient K x N with
  // inner M), always 16-bit (router, logits). `kernels`: launched per forward (backward: twice).
  std::uint8_t gemm16(std::string_view name, double m, double n, double k, double count, double kernels) {
    const std::uint8_t u = unit();
    gemm(name, OpKind::Gemm, Phase::Forward, u, m, n, k, count).kernels = kernels;
    gemm(name, OpKind::Gemm, Phase::Dgrad, u, m, k, n, count).kernels = 2.0 * kernels;
    gemm(name, OpKind::Gemm, Phase::Wgrad, u, k, n, m, count);
    return u;
  }

  // A linear layer (Transformer Engine module): under fp8 its three GEMMs run in FP8 and the
  // forward quantizes the input X (m x k), the backward the output gradient dY (m x n), each a
  // memory-bound cast(-transpose) kernel (fp8.hpp); otherwise the 16-bit GEMMs above.
  std::uint8_t linear(std::string_view name, double m, double n, double k, double count, double kernels) {
    if (!c_.fp8) return gemm16(name, m, n, k, count, kernels);
    const std::uint8_t u = unit();
    gemm(name, OpKind::GemmFp8, Phase::Forward, u, m, n, k, count).kernels = kernels;
    memory("fp8_cast", Phase::Forward, u, c_.cast_bytes * m * k * count, c_.cast_kernels);
    gemm(name, OpKind::GemmFp8, Phase::Dgrad, u, m, k, n, count).kernels = 2.0 * kernels;
    gemm(name, OpKind::GemmFp8, Phase::Wgrad, u, k, n, m, count);
    memory("fp8_cast", Phase::Dgrad, u, c_.cast_bytes * m * n * count, 2.0 * c_.cast_kernels);
    return u;
  }

  // A tensor-parallel collective of `bytes`; hidden behind the math of units [first, last] of
  // its pass when `first` >= 0 (split into TP chunks), exposed otherwise.
  Op& tp(std::string_view name, Collective coll, Phase phase, double bytes, int first, int last) {
    Op& op = add(name, OpKind::TpCollective, phase, kNoUnit);
    op.stream = OpStream::Tp; op.group = OpGroup::Tp; op.collective = coll; op.bytes = bytes; op.kernels = 1;
    op.window_first = static_cast<std::int8_t>(first); op.window_last = static_cast<std::int8_t>(last);
    op.factor = c_.t;
    return op;
  }

  // A collective Transformer Engine's userbuffers overlaps with one GEMM of unit `u` (issue 35,
  // tp_overlap.hpp): `gemm_phase` names which (the forward GEMM, or the unit's dgrad or wgrad),
  // (m, n, k) its shape along the chunked rows.
  void tp_overlap(std::string_view name, Collective coll, Phase phase, double bytes, int u, Phase gemm_phase,
                  TpOverlapKind kind, int comm_sms, double chunks, double m, double n, double k, bool aggregate) {
    Op& op = tp(name, coll, phase, bytes, u, u);
    op.overlap = kind; op.window_phase = gemm_phase; op.comm_sms = static_cast<std::uint8_t>(comm_sms);
    op.factor = chunks; op.m = m; op.n = n; op.k = k; op.aggregate = aggregate;
  }

 private:
  OpArray<N>& ops_;
  const OpShape& c_;
};

}  // namespace

OpShape op_shape(const ClusterSpec& cluster, const WorkloadSpec& w, const Layout& l) {
  const ModelSpec& m = w.model;
  OpShape c;
  c.model = &m; c.parallel = &w.parallel; c.layout = &l;
  c.flash = w.training.use_flash_attn;
  c.weight_bytes = static_cast<double>(w.training.bytes_per_param);
  c.acc_bytes = w.training.grad_bytes();
  c.fp8 = w.training.precision == Precision::Fp8;
  c.cast_bytes = fp8_cast_bytes_per_element(w.training.fp8_recipe);
  c.cast_kernels = fp8_cast_kernels(w.training.fp8_recipe);
  c.fp8_ratio = fp8_gemm_ratio(w.training.fp8_recipe, cluster.gpu);
  c.grad_acc_fused = w.training.gradient_accumulation_fusion;
  c.rank_load = moe_rank_load(m, l.ep);
  c.tp_overlap_per_op = !cluster.gpu.gemm_m_curve.empty();
  const double heads = m.num_attention_heads;
  const double groups = m.num_query_groups > 0 ? m.num_query_groups : heads;
  c.b = l.micro_batch;
  c.s = m.seq_length;
  c.s_loc = c.s / l.cp;
  c.T = c.b * c.s_loc;
  c.t = l.tp;
  c.Tsp = w.parallel.sequence_parallel ? c.T / c.t : c.T;
  c.h = m.hidden_size;
  c.hd = c.h / heads;
  c.heads_loc = heads / l.tp;
  c.kv_heads_loc = std::max(1.0, groups / l.tp);  // with fewer groups than TP ranks, replicated
  c.f = m.ffn_hidden_size > 0 ? m.ffn_hidden_size : 4.0 * c.h;
  return c;
}

void build_layer_ops(const OpShape& c, bool moe, LayerOps& lc) {
  lc = LayerOps{};
  lc.host_dispatch = true;
  Ops<kMaxLayerOps> o(lc.ops, c);
  const ModelSpec& m = *c.model;
  const ParallelSpec& par = *c.parallel;
  const Layout& l = *c.layout;
  const double T = c.T, h = c.h, t = c.t;
  const double q_cols = c.heads_loc * c.hd, kv_cols = 2.0 * c.kv_heads_loc * c.hd;
  // The units whose GEMMs the four TP collectives can hide behind: QKV (all MLA projections
  // before the attention), output projection, FC1, FC2.
  int win_first[4] = {-1, -1, -1, -1}, win_last[4] = {-1, -1, -1, -1};
  auto window = [&](int i, int first, int last) { win_first[i] = first; win_last[i] = last; };
  int mla_q_up = -1, mla_kv_up = -1;  // MLA up-projections (recomputed under selective)

  if (m.is_mla()) {
    // Multi-head latent attention (DeepSeek-V2 arXiv:2405.04434 §2.1; V3 arXiv:2412.19437 §2.1.1):
    // Q = up(down_q(x)) (q_lora_rank), [K_nope, V] = up_kv(c_kv) from the joint compression
    // c_kv = down_kv(x) (kv_lora_rank, plus the shared rotary key of qk_rope_head_dim), heads of
    // qk_nope + qk_rope for scores and v_head_dim for values. The down-projections are
    // replicated over TP (Megatron-core MLA), the up-projections and output split by heads.
    const double dqk = m.qk_nope_head_dim + m.qk_rope_head_dim, dv = m.v_head_dim;
    const double hl = c.heads_loc, ql = m.q_lora_rank, kvl = m.kv_lora_rank;
    double lin = 0;
    int first;
    if (ql > 0) {
      first = o.linear("q_down", T, ql, h, 1.0, 0.0);
      mla_q_up = o.linear("q_up", T, hl * dqk, ql, 1.0, 0.0);
      lin += h * ql + ql * hl * dqk;
    } else {
      first = o.linear("q", T, hl * dqk, h, 1.0, 0.0);
      lin += h * hl * dqk;
    }
    o.linear("kv_down", T, kvl + m.qk_rope_head_dim, h, 1.0, 0.0);
    mla_kv_up = o.linear("kv_up", T, hl * (m.qk_nope_head_dim + dv), kvl, 1.0, 0.0);
    lin += h * (kvl + m.qk_rope_head_dim) + kvl * hl * (m.qk_nope_head_dim + dv);
    window(0, first, mla_kv_up);
    const int out = o.linear("out_proj", T, h, hl * dv, 1.0, 0.0);
    window(1, out, out);
    lin += hl * dv * h;
    lc.linear_params += lin;
    lc.params += lin + (ql > 0 ? ql : 0.0) + kvl + h;  // weights, the two latent norms, no biases
    // The latent RMSNorms, RoPE and the splits: kernels the host launches (their bytes are not
    // modelled).
    const std::uint8_t un = o.unit();
    o.memory("mla_norms_rope", Phase::Forward, un, 0.0, 6.0);
    o.memory("mla_norms_rope", Phase::Dgrad, un, 0.0, 12.0);
    const double attn_work = 2.0 * c.b * c.s_loc * c.s * hl * (dqk + dv) * 0.5;
    const std::uint8_t u = o.unit();
    Op& fa = o.add("core_attention", OpKind::Attention, Phase::Forward, u);
    fa.flops = attn_work; fa.kernels = 1;
    Op& ba = o.add("core_attention", OpKind::Attention, Phase::Dgrad, u);
    ba.flops = 2.5 * attn_work; ba.kernels = 2;
  } else {
    const int qkv = o.linear("qkv", T, q_cols + kv_cols, h, 1.0, 1.0);
    const int out = o.linear("out_proj", T, h, q_cols, 1.0, 1.0);
    window(0, qkv, qkv);
    window(1, out, out);
    lc.linear_params += h * (q_cols + kv_cols) + q_cols * h;
    const std::uint8_t u = o.unit();
    if (c.flash) {
      // Causal flash attention computes the unmasked half of the s x s scores (with CP,
      // load-balanced chunks keep the half); FlashAttention-2 backward is 2.5x its forward (it
      // recomputes the scores: 5 matmuls instead of 2; Dao 2023, Sec. 3).
      const double work = 4.0 * c.b * c.s_loc * c.s * q_cols * 0.5;
      Op& f = o.add("core_attention", OpKind::Attention, Phase::Forward, u);
      f.flops = work; f.kernels = 1;
      Op& b = o.add("core_attention", OpKind::Attention, Phase::Dgrad, u);
      b.flops = 2.5 * work; b.kernels = 2;
    } else {
      // Unfused (Megatron 2021): batched QK^T and AV GEMMs over the full s x s scores, then the
      // fused scale-mask-softmax (read 2 + write 2 bytes per score) and dropout (read 2, write 2,
      // mask 1); backward: 4 batched GEMMs, dropout (read 2, mask 1, write 2) and softmax (read
      // the gradient and the output 2 + 2, write 2): 11 bytes per score (Korthikanti et al.
      // 2022, Sec. 4). Every kernel of this path moves the s x s scores through HBM and reaches
      // the bandwidth measured for it (unfused_attention_hbm_efficiency, fitted on Korthikanti
      // et al. 2022 Table 4: its selective recomputation re-runs exactly this path).
      const double count = c.b * c.heads_loc;
      const double scores = count * c.s_loc * c.s;
      o.gemm("attention_scores", OpKind::ScoresGemm, Phase::Forward, u, c.s_loc, c.s, c.hd, count).kernels = 1;
      o.gemm("attention_values", OpKind::ScoresGemm, Phase::Forward, u, c.s_loc, c.hd, c.s, count).kernels = 1;
      o.memory("softmax", Phase::Forward, u, 4.0 * scores, 1.0, OpKind::ScoresMemory);
      o.memory("attention_dropout", Phase::Forward, u, 5.0 * scores, 1.0, OpKind::ScoresMemory);
      o.gemm("attention_values", OpKind::ScoresGemm, Phase::Dgrad, u, c.s_loc, c.hd, c.s, count).kernels = 2;
      o.gemm("attention_values", OpKind::ScoresGemm, Phase::Dgrad, u, c.s, c.hd, c.s_loc, count).kernels = 2;
      o.gemm("attention_scores", OpKind::ScoresGemm, Phase::Dgrad, u, c.s_loc, c.s, c.hd, count).kernels = 2;
      o.gemm("attention_scores", OpKind::ScoresGemm, Phase::Dgrad, u, c.s, c.hd, c.s_loc, count).kernels = 2;
      o.memory("attention_dropout", Phase::Dgrad, u, 5.0 * scores, 0.0, OpKind::ScoresMemory);
      o.memory("softmax", Phase::Dgrad, u, 6.0 * scores, 0.0, OpKind::ScoresMemory);
    }
    lc.params += h * (q_cols + kv_cols) + (q_cols + kv_cols) + q_cols * h + h;  // weights + biases
  }

  // MLP (dense) or routed experts (MoE).
  const double up_cols = (m.swiglu ? 2.0 : 1.0) * c.f / t;
  const double mats = m.swiglu ? 3.0 : 2.0;
  double act_elems;
  double act_kernels = 1;
  if (!moe) {
    const int fc1 = o.linear("fc1", T, up_cols, h, 1.0, 1.0);
    const int fc2 = o.linear("fc2", T, h, c.f / t, 1.0, 1.0);
    window(2, fc1, fc1);
    window(3, fc2, fc2);
    act_elems = T * c.f / t;
    lc.params += mats * h * c.f / t;
    lc.linear_params += mats * h * c.f / t;
  } else {
    // Tokens reach the local experts from every EP rank; with capacity factor cf each expert
    // processes up to cf times its balanced share (padded dispatch), so the slowest expert's
    // GEMMs are cf x the balanced ones. Expert weights are TP-sharded like the dense MLP.
    // The busiest EP rank receives rank_load x the balanced share (moe.hpp) and sets the pace.
    // Experts of moe_ffn_hidden_size (DeepSeek-V3's fine-grained experts; Mixtral: the MLP
    // width); shared experts (DeepSeek-V3 §2.1.2) run on every token like a dense MLP.
    const double E = m.num_experts, k = m.moe_router_topk;
    const double cf = std::max(1.0, m.moe_capacity_factor);
    const double fe = m.expert_ffn();
    const double up_e = (m.swiglu ? 2.0 : 1.0) * fe / t;
    const double local_experts = E / l.ep;
    const double tokens_per_expert = T * k * cf * l.ep / E * c.rank_load;
    o.gemm16("router", c.Tsp, E, h, 1.0, 2.0);  // the router GEMM and its softmax / top-k
    const int fc1 = o.linear("expert_fc1", tokens_per_expert, up_e, h, local_experts, 1.0);
    const int fc2 = o.linear("expert_fc2", tokens_per_expert, h, fe / t, local_experts, 1.0);
    window(2, fc1, fc1);
    window(3, fc2, fc2);
    act_elems = tokens_per_expert * local_experts * fe / t;
    lc.params += h * E;
    lc.expert_params = local_experts * mats * h * fe / t;
    lc.params += lc.expert_params;
    lc.linear_params += lc.expert_params;
    if (m.moe_shared_experts > 0) {
      const double fs = m.moe_shared_experts * fe;
      o.linear("shared_fc1", T, (m.swiglu ? 2.0 : 1.0) * fs / t, h, 1.0, 1.0);
      o.linear("shared_fc2", T, h, fs / t, 1.0, 1.0);
      act_elems += T * fs / t;
      lc.params += mats * h * fs / t;
      lc.linear_params += mats * h * fs / t;
      act_kernels += 1;
    }
    // Permute / unpermute of the routed tokens (read + write each).
    const double permute = 2.0 * 2.0 * c.Tsp * k * cf * h * kAct * c.rank_load;
    const std::uint8_t u = o.unit();
    o.memory("permute", Phase::Forward, u, 0.5 * permute, 1.0);
    o.memory("unpermute", Phase::Forward, u, 0.5 * permute, 1.0);
    // The backward's permutes: launched (host dispatch), their bytes not modelled.
    o.memory("permute", Phase::Dgrad, u, 0.0, 2.0);
    o.memory("unpermute", Phase::Dgrad, u, 0.0, 2.0);
    if (l.ep > 1) {
      // Dispatch in FP8 under fp8 training (DeepSeek-V3 §3.3.2; a 16-bit flat dispatch otherwise),
      // combine in BF16; the backward sends the gradients the same two ways (§3.3.3: activation
      // gradients before the down-projection are FP8 too). moe.hpp prices them.
      const double disp_b = c.fp8 && m.moe_router_max_nodes > 0 ? fp8_dispatch_bytes_per_element() : kAct;
      const std::uint8_t ue = o.unit();
      for (Phase p : {Phase::Forward, Phase::Dgrad}) {
        for (int which = 0; which < 2; ++which) {
          Op& a = o.add(which == 0 ? "expert_dispatch" : "expert_combine", OpKind::ExpertAllToAll, p, ue);
          a.stream = OpStream::Ep; a.group = OpGroup::Ep;
          a.tokens = c.Tsp; a.factor = which == 0 ? disp_b : kAct;
        }
      }
    }
  }
  // Memory-bound elementwise kernels (Korthikanti et al. 2022 Sec. 4's activation tensors):
  // two norms (read + write) and two bias-dropout-residual adds (read 2, write 1, mask 0.5) on
  // the hidden state, sharded by TP only with sequence parallelism; the MLP activation reads
  // its input(s) and writes its output (GELU 2, SwiGLU 3 passes). Backward moves ~2x the bytes.
  // One unit: priced as one pass over their bytes (the same bandwidth).
  const double hidden = c.Tsp * h * kAct;
  const double act = act_elems * kAct * (m.swiglu ? 3.0 : 2.0);
  const std::string_view act_name = m.swiglu ? "swiglu" : "gelu";
  const std::uint8_t ue = o.unit();
  for (Phase p : {Phase::Forward, Phase::Dgrad}) {
    const double x = p == Phase::Forward ? 1.0 : 2.0;
    o.memory("input_norm", p, ue, x * (2.0 * hidden), x);
    o.memory("attention_residual", p, ue, x * (3.5 * hidden), x);
    o.memory("pre_mlp_norm", p, ue, x * (2.0 * hidden), x);
    o.memory("mlp_residual", p, ue, x * (3.5 * hidden), x);
    o.memory(act_name, p, ue, x * act, x * act_kernels);
  }
  lc.params += 4.0 * h;  // two norms (replicated over TP)
  // Gradient accumulation over microbatches: without a GEMM-fused accumulation (Megatron-LM of
  // 2021: LocalDDP's hook `param.main_grad.add_(param.grad)`; PyTorch DDP/autograd AccumulateGrad
  // `grad += new_grad`), every microbatch after the first reads the new 16-bit weight gradient and
  // the accumulator (fp32 under bf16, 16-bit under fp16) and writes the accumulator back, a
  // memory-bound kernel in the backward of every layer ((m - 1) / m of the microbatches).
  // With gradient_accumulation_fusion (Megatron-core's fused wgrad kernels, APEX
  // fused_weight_gradient_mlp_cuda / TE) the GEMM adds into the main gradient: no extra pass.
  if (l.microbatches > 1 && !c.grad_acc_fused) {
    const double share = (l.microbatches - 1.0) / l.microbatches;
    const double bytes = c.weight_bytes + 2.0 * c.acc_bytes;
    o.memory("grad_accumulation", Phase::Wgrad, o.unit(), share * bytes * lc.params, 0.0);
  }

  // Tensor parallelism (Shoeybi et al. 2019; Korthikanti et al. 2022 Sec. 4.2.2): per layer and
  // pass, two all-reduces of the b s h activation, or with sequence parallelism two all-gathers
  // (before QKV and FC1) and two reduce-scatters (after the output projection and FC2) of the
  // same (unsharded) size. With tp_comm_overlap (Transformer Engine userbuffers, Megatron-core
  // --tp-comm-overlap; Wang et al., ASPLOS'23, "Overlap communication with dependent computation
  // via decomposition") each is split into TP chunks pipelined with its GEMM's chunks; in the
  // backward the same four collectives are hidden behind the same layers' dgrad + wgrad GEMMs
  // (the model's pairing, op_time.cpp).
  // The four linear layers' shapes (output columns, inner; rows T), for the chunk GEMMs. Per-op
  // userbuffers for dense, non-MLA layers (one unit per linear layer); MoE and MLA layers keep
  // the bound.
  const double lin_n[4] = {q_cols + kv_cols, h, up_cols, h}, lin_k[4] = {h, q_cols, h, c.f / t};
  if (l.tp > 1 && par.sequence_parallel && par.tp_comm_overlap && c.tp_overlap_per_op && !moe && !m.is_mla()) {
    // Transformer Engine userbuffers per op (issue 35; tp_overlap.hpp; NeMo's
    // TransformerLayerTPOverlapCfg): forward, the QKV and FC1 inputs all-gathered by ring
    // exchange and the attention output's and FC2's outputs reduce-scattered (pipelined on SMs or
    // ring exchange); backward, dY of the attention output and FC2 all-gathered by ring exchange
    // behind their dgrad, and the QKV and FC1 inputs re-gathered beside their dgrad and their dX
    // reduce-scattered beside their wgrad (bulk). Under fp8 the all-gathers move FP8 operands
    // (TE quantizes the norm output and dY before gathering), a pipelined forward reduce-scatter
    // with fp8_buf the GEMM's FP8 output; dX stays 16-bit.
    const double full = T * h * kAct, full8 = T * h;
    const double ag = c.fp8 ? full8 : full;
    const bool ring_rs = par.tp_comm_overlap_rs_method == TpOverlapMethod::RingExchange;
    const double rs_fwd = c.fp8 && !ring_rs && par.tp_comm_overlap_rs_fp8_buf ? full8 : full;
    const bool agg = par.tp_comm_overlap_aggregate && l.tp >= 4;
    const double ring_chunks = agg ? t / 2 : t;
    auto sms = [](const std::vector<int>& v, size_t i, int d) { return i < v.size() ? v[i] : d; };
    const auto& rs_sms = par.tp_comm_overlap_rs_sms;
    const auto& bulk_sms = par.tp_comm_overlap_bulk_sms;
    for (int i : {0, 1, 2, 3}) {
      const int u = win_first[i];
      if (i % 2 == 0) {
        o.tp_overlap("tp_all_gather", Collective::AllGather, Phase::Forward, ag, u, Phase::Forward,
                     TpOverlapKind::RingExchange, 0, ring_chunks, T, lin_n[i], lin_k[i], agg);
      } else {
        o.tp_overlap("tp_reduce_scatter", Collective::ReduceScatter, Phase::Forward, rs_fwd, u, Phase::Forward,
                     ring_rs ? TpOverlapKind::RingExchange : TpOverlapKind::Pipeline, ring_rs ? 1 : sms(rs_sms, i / 2, 16),
                     ring_rs ? t : par.tp_comm_overlap_splits, T, lin_n[i], lin_k[i], false);
      }
    }
    for (int i : {1, 3})
      o.tp_overlap("tp_all_gather", Collective::AllGather, Phase::Dgrad, ag, win_first[i], Phase::Dgrad,
                   TpOverlapKind::RingExchange, 0, ring_chunks, T, lin_k[i], lin_n[i], agg);
    for (int i : {0, 2}) {
      const size_t b = i == 0 ? 0 : 2;
      o.tp_overlap("tp_all_gather", Collective::AllGather, Phase::Dgrad, ag, win_first[i], Phase::Dgrad,
                   TpOverlapKind::Bulk, sms(bulk_sms, b, 2), 1, T, lin_k[i], lin_n[i], false);
      o.tp_overlap("tp_reduce_scatter", Collective::ReduceScatter, Phase::Dgrad, full, win_first[i], Phase::Wgrad,
                   TpOverlapKind::Bulk, sms(bulk_sms, b + 1, 2), 1, lin_k[i], lin_n[i], T, false);
    }
    lc.tp_bytes = Bytes(full) * 4.0;
  } else if (l.tp > 1) {
    const double full = T * h * kAct;
    const bool overlap = par.sequence_parallel && par.tp_comm_overlap;
    for (Phase p : {Phase::Forward, Phase::Dgrad}) {
      if (par.sequence_parallel) {
        const Collective coll[4] = {Collective::AllGather, Collective::ReduceScatter, Collective::AllGather,
                                    Collective::ReduceScatter};
        for (int i = 0; i < 4; ++i)
          o.tp(i % 2 == 0 ? "tp_all_gather" : "tp_reduce_scatter", coll[i], p, full, overlap ? win_first[i] : -1,
               overlap ? win_last[i] : -1);
      } else {
        o.tp("tp_all_reduce", Collective::AllReduce, p, full, -1, -1);
        o.tp("tp_all_reduce", Collective::AllReduce, p, full, -1, -1);
      }
    }
    lc.tp_bytes = Bytes(full) * (par.sequence_parallel ? 4.0 : 2.0);
  }
  // Context parallelism (ring attention, Liu et al. 2023; Megatron-core CP): each rank receives
  // the K and V of the other cp - 1 chunks, overlapped with the attention of the chunk it holds
  // (all but the first chunk's share of it); backward moves K, V and their gradients (2x) behind
  // the 2.5x longer attention backward.
  if (l.cp > 1) {
    const double kv_chunk = c.b * c.s_loc * kv_cols * kAct;
    lc.cp_bytes = Bytes(kv_chunk * l.cp);
    const double share = (l.cp - 1.0) / l.cp;
    const double attn = c.flash ? 4.0 * c.b * c.s_loc * c.s * q_cols * 0.5 : 0.0;
    for (Phase p : {Phase::Forward, Phase::Dgrad}) {
      Op& x = o.add("cp_kv_exchange", OpKind::CpExchange, p, kNoUnit);
      x.stream = OpStream::Cp; x.group = OpGroup::Cp; x.collective = Collective::AllGather;
      x.bytes = lc.cp_bytes.si(); x.flops = attn;
      x.count = p == Phase::Forward ? 1.0 : 2.0;
      x.factor = p == Phase::Forward ? share : 2.5 * share;
    }
  }

  switch (par.recompute_granularity) {
    case Recompute::Full: lc.full_recompute = true; break;  // whole layer forward again, comm included
    case Recompute::Selective: {
      // Korthikanti et al. 2022 Sec. 5: only the attention core (scores, softmax, dropout, AV).
      const std::uint8_t u = o.unit();
      if (m.is_mla()) {
        // DeepSeek-V3 (§3.2.3): the RMSNorms and the MLA up-projections (and the SwiGLU outputs,
        // §3.3.4) are recomputed, not the attention core (memory.cpp keeps its output).
        for (int up : {mla_q_up, mla_kv_up}) {
          if (up < 0) continue;
          Op& r = o.add(up == mla_q_up ? "q_up" : "kv_up", OpKind::Repeat, Phase::Recompute, u);
          r.window_first = r.window_last = static_cast<std::int8_t>(up);
        }
        o.memory("norms_swiglu", Phase::Recompute, o.unit(), 2.0 * 2.0 * 2.0 * c.Tsp * h * kAct + act, 0.0);
        break;
      }
      if (c.flash) {
        o.add("core_attention", OpKind::Attention, Phase::Recompute, u).flops = 4.0 * c.b * c.s_loc * c.s * q_cols * 0.5;
      } else {
        const double count = c.b * c.heads_loc;
        o.gemm("attention_scores", OpKind::ScoresGemm, Phase::Recompute, u, c.s_loc, c.s, c.hd, count);
        o.gemm("attention_values", OpKind::ScoresGemm, Phase::Recompute, u, c.s_loc, c.hd, c.s, count);
        o.memory("softmax_dropout", Phase::Recompute, u, 9.0 * count * c.s_loc * c.s, 0.0, OpKind::ScoresMemory);
      }
      break;
    }
    case Recompute::None: break;
  }
}

void build_embedding_ops(const OpShape& c, EdgeOps& e) {
  // A vocab-parallel lookup written once (plus learned positions for GPT-style models without
  // rotary embeddings), reduced over TP; backward scatters gradients.
  e = EdgeOps{};
  Ops<kMaxEdgeOps> o(e.ops, c);
  const ModelSpec& m = *c.model;
  const Layout& l = *c.layout;
  e.params = static_cast<double>(m.vocab_size) * c.h / c.t + (m.swiglu ? 0.0 : c.s * c.h);
  const std::uint8_t u = o.unit();
  o.memory("embedding", Phase::Forward, u, c.T * c.h * kAct * 2.0, 0.0);
  o.add("embedding", OpKind::Launch, Phase::Forward, u).kernels = 3;
  o.memory("embedding", Phase::Dgrad, u, c.T * c.h * 4.0 * 2.0, 0.0);
  o.add("embedding", OpKind::Launch, Phase::Dgrad, u).kernels = 3;
  if (l.tp > 1) {
    const double full = c.T * c.h * kAct;
    if (c.parallel->sequence_parallel) {
      o.tp("tp_reduce_scatter", Collective::ReduceScatter, Phase::Forward, full, -1, -1);
      o.tp("tp_all_gather", Collective::AllGather, Phase::Dgrad, full, -1, -1);
    } else {
      o.tp("tp_all_reduce", Collective::AllReduce, Phase::Forward, full, -1, -1);
    }
  }
}

void build_head_ops(const OpShape& c, EdgeOps& e) {
  // Final norm, [SP all-gather], the vocab-parallel logits GEMM, then Megatron's vocab-parallel
  // cross-entropy in fp32, one PyTorch op per pass over the logits (megatron/mpu/cross_entropy.py,
  // 2021; megatron/core/tensor_parallel/cross_entropy.py without --cross-entropy-loss-fusion).
  // Forward: the 16-bit logits cast to fp32 (read 2, write 4), max (read 4), subtract max in place
  // (8), exp in place (8), sum (4), divide in place to keep the softmax for backward (8): 38 B per
  // logit. Backward: scale the saved softmax by the loss gradient in place (8), cast back to 16
  // bits (read 4, write 2): 14 B per logit.
  constexpr double kLossForwardBytesPerLogit = 38.0;
  constexpr double kLossBackwardBytesPerLogit = 14.0;
  e = EdgeOps{};
  Ops<kMaxEdgeOps> o(e.ops, c);
  const ModelSpec& m = *c.model;
  const double vocab_loc = static_cast<double>(m.vocab_size) / c.t;
  const double logits = c.T * vocab_loc;
  o.gemm16("logits", c.T, vocab_loc, c.h, 1.0, 0.0);
  const std::uint8_t u = o.unit();
  o.memory("cross_entropy", Phase::Forward, u, logits * kLossForwardBytesPerLogit, 0.0);
  o.memory("final_norm", Phase::Forward, u, 2.0 * c.Tsp * c.h * kAct, 0.0);
  o.add("loss", OpKind::Launch, Phase::Forward, u).kernels = 8;
  o.memory("cross_entropy", Phase::Dgrad, u, logits * kLossBackwardBytesPerLogit, 0.0);
  o.memory("final_norm", Phase::Dgrad, u, 4.0 * c.Tsp * c.h * kAct, 0.0);
  o.add("loss", OpKind::Launch, Phase::Dgrad, u).kernels = 8;
  if (c.layout->tp > 1 && c.parallel->sequence_parallel) {
    const double full = c.T * c.h * kAct;
    o.tp("tp_all_gather", Collective::AllGather, Phase::Forward, full, -1, -1);
    o.tp("tp_reduce_scatter", Collective::ReduceScatter, Phase::Dgrad, full, -1, -1);
  }
}

void build_mtp_projection_ops(const OpShape& c, EdgeOps& e) {
  // Multi-token prediction (DeepSeek-V3 §2.2): each module projects [norm(h); norm(emb)] (2h -> h).
  e = EdgeOps{};
  Ops<kMaxEdgeOps> o(e.ops, c);
  o.linear("mtp_projection", c.T, c.h / c.t, 2.0 * c.h, 1.0, 0.0);
}

std::string_view to_string(OpKind k) {
  switch (k) {
    case OpKind::Gemm: return "gemm";
    case OpKind::GemmFp8: return "gemm_fp8";
    case OpKind::ScoresGemm: return "scores_gemm";
    case OpKind::Attention: return "attention";
    case OpKind::MemoryBound: return "memory_bound";
    case OpKind::ScoresMemory: return "scores_memory";
    case OpKind::Launch: return "launch";
    case OpKind::Repeat: return "repeat";
    case OpKind::TpCollective: return "tp_collective";
    case OpKind::CpExchange: return "cp_exchange";
    case OpKind::ExpertAllToAll: return "expert_all_to_all";
  }
  return "?";
}

std::string_view to_string(Phase p) {
  switch (p) {
    case Phase::Forward: return "forward";
    case Phase::Dgrad: return "dgrad";
    case Phase::Wgrad: return "wgrad";
    case Phase::Recompute: return "recompute";
  }
  return "?";
}

std::string_view to_string(OpStream s) {
  switch (s) {
    case OpStream::Compute: return "compute";
    case OpStream::Tp: return "tp";
    case OpStream::Cp: return "cp";
    case OpStream::Ep: return "ep";
  }
  return "?";
}

std::string_view to_string(OpGroup g) {
  switch (g) {
    case OpGroup::None: return "none";
    case OpGroup::Tp: return "tp";
    case OpGroup::Cp: return "cp";
    case OpGroup::Ep: return "ep";
  }
  return "?";
}

}  // namespace fleetsim::step
