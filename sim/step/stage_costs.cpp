#include "sim/step/stage_costs.hpp"

#include <algorithm>
#include <cmath>

#include "sim/step/flops.hpp"
#include "sim/step/fp8.hpp"
#include "sim/step/moe.hpp"

namespace fleetsim::step {

PhaseTime& PhaseTime::operator+=(const PhaseTime& o) {
  math += o.math; memory += o.memory; tp_comm += o.tp_comm; cp_comm += o.cp_comm;
  ep_comm += o.ep_comm; cp_hidden += o.cp_hidden; tp_hidden += o.tp_hidden; wgrad += o.wgrad;
  return *this;
}

PhaseTime PhaseTime::scaled(double k) const {
  PhaseTime p;
  p.math = math * k; p.memory = memory * k; p.tp_comm = tp_comm * k; p.cp_comm = cp_comm * k;
  p.ep_comm = ep_comm * k; p.cp_hidden = cp_hidden * k; p.tp_hidden = tp_hidden * k;
  p.wgrad = wgrad * k;
  return p;
}

namespace {

constexpr double kAct = 2.0;  // bytes per 16-bit activation element

struct Ctx {
  const ModelSpec& m;
  const ParallelSpec& par;
  const Layout& l;
  const GpuCompute& gpu;
  const CollectiveModel& net;
  bool flash;
  double weight_bytes;  // bytes per 16-bit weight / new gradient element (w.training.bytes_per_param)
  double acc_bytes;     // bytes per accumulated gradient element (fp32 with bf16, TrainingSpec)
  bool fp8;             // linear layers in FP8 (Transformer Engine, fp8.hpp)
  double cast_bytes;    // HBM bytes per element to quantize a GEMM operand (fp8.hpp)
  double cast_kernels;  // kernels per quantized tensor
  double fp8_ratio;     // the recipe's FP8 GEMM throughput over per-tensor scaling (fp8.hpp)
  bool grad_acc_fused;  // TrainingSpec::gradient_accumulation_fusion
  double rank_load;     // busiest expert-parallel rank's routed tokens over the mean (moe.hpp)
  // Shapes on one GPU for one microbatch.
  double b, s_loc, s, T, Tsp, h, hd, heads_loc, kv_heads_loc, f, t;
};

struct LayerCost {
  PhaseTime fwd, bwd, recompute;
  double params = 0, expert_params = 0;
  double linear_params = 0;  // weights of the linear layers (FP8 GEMMs under fp8)
  Bytes tp_bytes, cp_bytes, ep_bytes;
};

// Forward and backward time of one GEMM (backward: input gradient (M x K, inner N) and weight
// gradient (K x N, inner M)).
void add_gemm(const Ctx& c, PhaseTime& fwd, PhaseTime& bwd, double m, double n, double k,
              double count = 1.0) {
  fwd.math += c.gpu.gemm(m, n, k, count);
  const Seconds w = c.gpu.gemm(k, n, m, count);
  bwd.math += c.gpu.gemm(m, k, n, count) + w;
  bwd.wgrad += w;
}

// A linear layer (Transformer Engine module): under fp8 its three GEMMs run in FP8 and the
// forward quantizes the input X (m x k), the backward the output gradient dY (m x n), each a
// memory-bound cast(-transpose) kernel (fp8.hpp); otherwise the 16-bit GEMMs above. Returns the
// extra kernels per forward (the backward launches the same number).
double add_linear(const Ctx& c, PhaseTime& fwd, PhaseTime& bwd, double m, double n, double k,
                  double count = 1.0) {
  if (!c.fp8) {
    add_gemm(c, fwd, bwd, m, n, k, count);
    return 0.0;
  }
  fwd.math += c.gpu.gemm_fp8(m, n, k, count, c.fp8_ratio);
  const Seconds w = c.gpu.gemm_fp8(k, n, m, count, c.fp8_ratio);
  bwd.math += c.gpu.gemm_fp8(m, k, n, count, c.fp8_ratio) + w;
  bwd.wgrad += w;
  fwd.memory += c.gpu.memory_bound(Bytes(c.cast_bytes * m * k * count));
  bwd.memory += c.gpu.memory_bound(Bytes(c.cast_bytes * m * n * count));
  return c.cast_kernels;
}

LayerCost layer_cost(const Ctx& c, bool moe) {
  LayerCost lc;
  PhaseTime fwd, bwd;
  const double T = c.T, h = c.h, t = c.t;
  const double q_cols = c.heads_loc * c.hd, kv_cols = 2.0 * c.kv_heads_loc * c.hd;
  double kernels_fwd = 0;

  // Attention block: QKV projection, attention core, output projection.
  // GEMM time of each linear layer per pass: the windows that TP communication can hide behind.
  Seconds gemm_f[4], gemm_b[4];
  auto linear = [&](int i, double m_, double n_, double k_, double count = 1.0) {
    const Seconds f0 = fwd.math, b0 = bwd.math;
    kernels_fwd += add_linear(c, fwd, bwd, m_, n_, k_, count);
    gemm_f[i] = fwd.math - f0; gemm_b[i] = bwd.math - b0;
  };
  Seconds mla_up;             // MLA up-projection GEMMs, forward (recomputed under selective)
  double swiglu_bytes = 0;    // SwiGLU activation pass (recomputed with MLA under selective)
  // Attention work of the causal half of the scores (QK^T and AV), forward, this GPU.
  double attn_work = 4.0 * c.b * c.s_loc * c.s * q_cols * 0.5;
  if (c.m.is_mla()) {
    // Multi-head latent attention (DeepSeek-V2 arXiv:2405.04434 §2.1; V3 arXiv:2412.19437 §2.1.1):
    // Q = up(down_q(x)) (q_lora_rank), [K_nope, V] = up_kv(c_kv) from the joint compression
    // c_kv = down_kv(x) (kv_lora_rank, plus the shared rotary key of qk_rope_head_dim), heads of
    // qk_nope + qk_rope for scores and v_head_dim for values. The down-projections are
    // replicated over TP (Megatron-core MLA), the up-projections and output split by heads.
    const double dqk = c.m.qk_nope_head_dim + c.m.qk_rope_head_dim, dv = c.m.v_head_dim;
    const double hl = c.heads_loc, ql = c.m.q_lora_rank, kvl = c.m.kv_lora_rank;
    const Seconds f0 = fwd.math, b0 = bwd.math;
    double lin = 0;
    if (ql > 0) {
      kernels_fwd += add_linear(c, fwd, bwd, T, ql, h);
      const Seconds u = fwd.math;
      kernels_fwd += add_linear(c, fwd, bwd, T, hl * dqk, ql);
      mla_up += fwd.math - u;
      lin += h * ql + ql * hl * dqk;
    } else {
      kernels_fwd += add_linear(c, fwd, bwd, T, hl * dqk, h);
      lin += h * hl * dqk;
    }
    kernels_fwd += add_linear(c, fwd, bwd, T, kvl + c.m.qk_rope_head_dim, h);
    const Seconds u1 = fwd.math;
    kernels_fwd += add_linear(c, fwd, bwd, T, hl * (c.m.qk_nope_head_dim + dv), kvl);
    mla_up += fwd.math - u1;
    lin += h * (kvl + c.m.qk_rope_head_dim) + kvl * hl * (c.m.qk_nope_head_dim + dv);
    gemm_f[0] = fwd.math - f0; gemm_b[0] = bwd.math - b0;
    linear(1, T, h, hl * dv);
    lin += hl * dv * h;
    lc.linear_params += lin;
    lc.params += lin + (ql > 0 ? ql : 0.0) + kvl + h;  // weights, the two latent norms, no biases
    attn_work = 2.0 * c.b * c.s_loc * c.s * hl * (dqk + dv) * 0.5;
    kernels_fwd += 6;
    fwd.math += c.gpu.attention(Flops(attn_work));
    bwd.math += c.gpu.attention(Flops(2.5 * attn_work));
    kernels_fwd += 1;
  } else {
  linear(0, T, q_cols + kv_cols, h);
  linear(1, T, h, q_cols);
  lc.linear_params += h * (q_cols + kv_cols) + q_cols * h;
  kernels_fwd += 2;
  if (c.flash) {
    // Causal flash attention computes the unmasked half of the s x s scores (with CP,
    // load-balanced chunks keep the half); FlashAttention-2 backward is 2.5x its forward (it
    // recomputes the scores: 5 matmuls instead of 2; Dao 2023, Sec. 3).
    const double work = 4.0 * c.b * c.s_loc * c.s * q_cols * 0.5;
    fwd.math += c.gpu.attention(Flops(work));
    bwd.math += c.gpu.attention(Flops(2.5 * work));
    kernels_fwd += 1;
  } else {
    // Unfused (Megatron 2021): batched QK^T and AV GEMMs over the full s x s scores, then the
    // fused scale-mask-softmax (read 2 + write 2 bytes per score) and dropout (read 2, write 2,
    // mask 1); backward: 4 batched GEMMs and 11 bytes per score (Korthikanti et al. 2022, Sec. 4).
    // Every kernel of this path moves the s x s scores through HBM and reaches the bandwidth
    // measured for it (unfused_attention_hbm_efficiency, fitted on Korthikanti et al. 2022
    // Table 4: its selective recomputation re-runs exactly this path; gemm_efficiency.hpp).
    const double count = c.b * c.heads_loc;
    fwd.math += c.gpu.gemm_scores(c.s_loc, c.s, c.hd, count) + c.gpu.gemm_scores(c.s_loc, c.hd, c.s, count);
    bwd.math += c.gpu.gemm_scores(c.s_loc, c.hd, c.s, count) + c.gpu.gemm_scores(c.s, c.hd, c.s_loc, count) +
                c.gpu.gemm_scores(c.s_loc, c.s, c.hd, count) + c.gpu.gemm_scores(c.s, c.hd, c.s_loc, count);
    const double scores = count * c.s_loc * c.s;
    fwd.memory += c.gpu.memory_bound_scores(Bytes(9.0 * scores));
    bwd.memory += c.gpu.memory_bound_scores(Bytes(11.0 * scores));
    kernels_fwd += 4;
  }
  lc.params += h * (q_cols + kv_cols) + (q_cols + kv_cols) + q_cols * h + h;  // weights + biases
  }

  // MLP (dense) or routed experts (MoE).
  const double up_cols = (c.m.swiglu ? 2.0 : 1.0) * c.f / t;
  const double mats = c.m.swiglu ? 3.0 : 2.0;
  double act_elems;
  if (!moe) {
    linear(2, T, up_cols, h);
    linear(3, T, h, c.f / t);
    act_elems = T * c.f / t;
    lc.params += mats * h * c.f / t;
    lc.linear_params += mats * h * c.f / t;
    kernels_fwd += 3;
  } else {
    // Tokens reach the local experts from every EP rank; with capacity factor cf each expert
    // processes up to cf times its balanced share (padded dispatch), so the slowest expert's
    // GEMMs are cf x the balanced ones. Expert weights are TP-sharded like the dense MLP.
    // The busiest EP rank receives rank_load x the balanced share (moe.hpp) and sets the pace.
    // Experts of moe_ffn_hidden_size (DeepSeek-V3's fine-grained experts; Mixtral: the MLP
    // width); shared experts (DeepSeek-V3 §2.1.2) run on every token like a dense MLP.
    const double E = c.m.num_experts, k = c.m.moe_router_topk;
    const double cf = std::max(1.0, c.m.moe_capacity_factor);
    const double fe = c.m.expert_ffn();
    const double up_e = (c.m.swiglu ? 2.0 : 1.0) * fe / t;
    const double local_experts = E / c.l.ep;
    const double tokens_per_expert = T * k * cf * c.l.ep / E * c.rank_load;
    add_gemm(c, fwd, bwd, c.Tsp, E, h);  // router
    linear(2, tokens_per_expert, up_e, h, local_experts);
    linear(3, tokens_per_expert, h, fe / t, local_experts);
    act_elems = tokens_per_expert * local_experts * fe / t;
    lc.params += h * E;
    lc.expert_params = local_experts * mats * h * fe / t;
    lc.params += lc.expert_params;
    lc.linear_params += lc.expert_params;
    if (c.m.moe_shared_experts > 0) {
      const double fs = c.m.moe_shared_experts * fe;
      kernels_fwd += add_linear(c, fwd, bwd, T, (c.m.swiglu ? 2.0 : 1.0) * fs / t, h) +
                     add_linear(c, fwd, bwd, T, h, fs / t);
      act_elems += T * fs / t;
      lc.params += mats * h * fs / t;
      lc.linear_params += mats * h * fs / t;
      kernels_fwd += 3;
    }
    // Permute / unpermute of the routed tokens (read + write), and the all-to-alls.
    fwd.memory += c.gpu.memory_bound(Bytes(2.0 * 2.0 * c.Tsp * k * cf * h * kAct * c.rank_load));
    kernels_fwd += 7;
    if (c.l.ep > 1) {
      // Dispatch in FP8 under fp8 training (DeepSeek-V3 §3.3.2; a 16-bit flat dispatch otherwise),
      // combine in BF16; the backward sends the gradients the same two ways (§3.3.3: activation
      // gradients before the down-projection are FP8 too).
      const double disp_b = c.fp8 && c.m.moe_router_max_nodes > 0 ? fp8_dispatch_bytes_per_element() : kAct;
      const EpTransfer disp = ep_transfer(c.m, c.l, c.net, c.Tsp, disp_b, c.rank_load);
      const EpTransfer comb = ep_transfer(c.m, c.l, c.net, c.Tsp, kAct, c.rank_load);
      fwd.ep_comm += disp.time + comb.time;
      bwd.ep_comm += disp.time + comb.time;
      lc.ep_bytes = disp.fabric_bytes + disp.nvlink_bytes + comb.fabric_bytes + comb.nvlink_bytes;
    }
  }
  // Memory-bound elementwise kernels (Korthikanti et al. 2022 Sec. 4's activation tensors):
  // two norms (read + write) and two bias-dropout-residual adds (read 2, write 1, mask 0.5) on
  // the hidden state, sharded by TP only with sequence parallelism; the MLP activation reads
  // its input(s) and writes its output (GELU 2, SwiGLU 3 passes). Backward moves ~2x the bytes.
  const double hidden = c.Tsp * h * kAct;
  const double act = act_elems * kAct * (c.m.swiglu ? 3.0 : 2.0);
  swiglu_bytes = act;
  const Bytes elementwise(11.0 * hidden + act);
  fwd.memory += c.gpu.memory_bound(elementwise);
  bwd.memory += c.gpu.memory_bound(elementwise * 2.0);
  lc.params += 4.0 * h;  // two norms (replicated over TP)
  // Gradient accumulation over microbatches: without a GEMM-fused accumulation (Megatron-LM of
  // 2021: LocalDDP's hook `param.main_grad.add_(param.grad)`; PyTorch DDP/autograd AccumulateGrad
  // `grad += new_grad`), every microbatch after the first reads the new 16-bit weight gradient and
  // the accumulator (fp32 under bf16, 16-bit under fp16) and writes the accumulator back, a
  // memory-bound kernel in the backward of every layer ((m - 1) / m of the microbatches).
  // With gradient_accumulation_fusion (Megatron-core's fused wgrad kernels, APEX
  // fused_weight_gradient_mlp_cuda / TE) the GEMM adds into the main gradient: no extra pass.
  if (c.l.microbatches > 1 && !c.grad_acc_fused) {
    const double share = (c.l.microbatches - 1.0) / c.l.microbatches;
    const double bytes = c.weight_bytes + 2.0 * c.acc_bytes;
    bwd.memory += c.gpu.memory_bound(Bytes(share * bytes * lc.params));
  }

  // Tensor parallelism (Shoeybi et al. 2019; Korthikanti et al. 2022 Sec. 4.2.2): per layer and
  // pass, two all-reduces of the b s h activation, or with sequence parallelism two all-gathers
  // and two reduce-scatters of the same (unsharded) size.
  double tp_kernels = 0;
  if (c.l.tp > 1) {
    const Bytes full(T * h * kAct);
    Seconds tp;
    if (c.par.sequence_parallel) {
      tp = (c.net.time(Collective::AllGather, full, c.l.tp_group) +
            c.net.time(Collective::ReduceScatter, full, c.l.tp_group)) * 2.0;
      tp_kernels = 4;
    } else {
      tp = c.net.time(Collective::AllReduce, full, c.l.tp_group) * 2.0;
      tp_kernels = 2;
    }
    if (c.par.sequence_parallel && c.par.tp_comm_overlap) {
      // Transformer Engine userbuffers (Megatron-core --tp-comm-overlap; Wang et al., ASPLOS'23,
      // "Overlap communication with dependent computation via decomposition"): each all-gather
      // feeding a column-parallel GEMM (QKV, FC1) and each reduce-scatter after a row-parallel
      // GEMM (output projection, FC2) is split into TP chunks pipelined with the GEMM's chunks,
      // so a pair takes max(comm, GEMM) + min(comm, GEMM) / TP (one chunk to fill the pipe).
      // Backward: the dY all-gathers and dX reduce-scatters against the same layers' dgrad +
      // wgrad GEMMs. The hidden part is reported as overlapped.
      const Seconds ag = c.net.time(Collective::AllGather, full, c.l.tp_group);
      const Seconds rs = c.net.time(Collective::ReduceScatter, full, c.l.tp_group);
      auto exposed = [&](Seconds comm, Seconds gemm) {
        return max(Seconds(0), comm - gemm) + Seconds(std::min(comm.si(), gemm.si()) / c.t);
      };
      const Seconds coll[4] = {ag, rs, ag, rs};
      for (int i = 0; i < 4; ++i) {
        const Seconds ef = exposed(coll[i], gemm_f[i]), eb = exposed(coll[i], gemm_b[i]);
        fwd.tp_comm += ef; fwd.tp_hidden += coll[i] - ef;
        bwd.tp_comm += eb; bwd.tp_hidden += coll[i] - eb;
      }
    } else {
      fwd.tp_comm += tp;
      bwd.tp_comm += tp;
    }
    lc.tp_bytes = full * (c.par.sequence_parallel ? 4.0 : 2.0);
  }
  // Context parallelism (ring attention, Liu et al. 2023; Megatron-core CP): each rank receives
  // the K and V of the other cp - 1 chunks, overlapped with the attention of the chunk it holds;
  // backward moves K, V and their gradients (2x).
  if (c.l.cp > 1) {
    const double kv_chunk = c.b * c.s_loc * kv_cols * kAct;
    lc.cp_bytes = Bytes(kv_chunk * c.l.cp);
    const Seconds ring = c.net.time(Collective::AllGather, lc.cp_bytes, c.l.cp_group);
    // Attention time available to hide the exchange: all but the first chunk's share.
    const double share = (c.l.cp - 1.0) / c.l.cp;
    const Seconds attn_f = c.flash ? c.gpu.attention(Flops(4.0 * c.b * c.s_loc * c.s * q_cols * 0.5)) : Seconds(0);
    const Seconds exposed_f = max(Seconds(0), ring - attn_f * share);
    const Seconds exposed_b = max(Seconds(0), ring * 2.0 - attn_f * (2.5 * share));
    fwd.cp_comm += exposed_f; fwd.cp_hidden += ring - exposed_f;
    bwd.cp_comm += exposed_b; bwd.cp_hidden += ring * 2.0 - exposed_b;
  }
  // Host dispatch: the CPU issues kernels asynchronously ahead of the GPU, so a pass costs
  // max(GPU time, kernels x per-kernel host overhead) (small layers are launch-bound); the
  // backward launches about twice the forward's kernels. The excess counts as compute time.
  // The host issues ~3 PyTorch ops per kernel counted here: views, splits, transposes, the
  // RNG-state fork/restore around dropout, checkpoint and autograd bookkeeping (Megatron's
  // ParallelTransformerLayer forward is ~45-50 Python-level ops for the ~15 kernels counted;
  // megatron/model/transformer.py, 2021-2023). `kernel_launch_overhead` is the host time of one
  // such op (eager PyTorch from Python: ~10-20 us).
  constexpr double kHostOpsPerKernel = 3.0;
  auto host_bound = [&](PhaseTime& ph, double kernels) {
    const Seconds gpu_time = ph.math + ph.memory + ph.tp_comm + ph.cp_comm + ph.ep_comm;
    const Seconds host = c.gpu.launch(kernels * kHostOpsPerKernel);
    if (host > gpu_time) ph.memory += host - gpu_time;
  };
  host_bound(fwd, kernels_fwd + 4 + tp_kernels);
  host_bound(bwd, 2.0 * (kernels_fwd + 4) + tp_kernels);

  lc.fwd = fwd;
  lc.bwd = bwd;
  switch (c.par.recompute_granularity) {
    case Recompute::Full: lc.recompute = fwd; break;  // whole layer forward again, comm included
    case Recompute::Selective: {
      // Korthikanti et al. 2022 Sec. 5: only the attention core (scores, softmax, dropout, AV).
      PhaseTime r;
      if (c.m.is_mla()) {
        // DeepSeek-V3 (§3.2.3): the RMSNorms and the MLA up-projections (and the SwiGLU outputs,
        // §3.3.4) are recomputed, not the attention core (memory.cpp keeps its output).
        r.math = mla_up;
        r.memory = c.gpu.memory_bound(Bytes(2.0 * 2.0 * 2.0 * c.Tsp * h * kAct + swiglu_bytes));
        lc.recompute = r;
        break;
      }
      if (c.flash) {
        r.math = c.gpu.attention(Flops(attn_work));
      } else {
        const double count = c.b * c.heads_loc;
        r.math = c.gpu.gemm_scores(c.s_loc, c.s, c.hd, count) + c.gpu.gemm_scores(c.s_loc, c.hd, c.s, count);
        r.memory = c.gpu.memory_bound_scores(Bytes(9.0 * count * c.s_loc * c.s));
      }
      lc.recompute = r;
      break;
    }
    case Recompute::None: break;
  }
  return lc;
}

}  // namespace

PhaseTime rank_busy_time(const StageCosts& sc, int rank) {
  const Layout& l = sc.layout;
  PhaseTime busy;
  for (int c = 0; c < l.vpp; ++c) {
    const ChunkCost& ch = sc.chunks[static_cast<size_t>(c * l.pp + rank)];
    busy += ch.forward;
    busy += ch.backward;
    busy += ch.recompute;
  }
  return busy.scaled(l.microbatches);
}

StageCosts stage_costs(const ClusterSpec& cluster, const WorkloadSpec& w, const GpuCompute& gpu,
                       const CollectiveModel& net) {
  StageCosts sc;
  sc.layout = make_layout(cluster, w);
  const Layout& l = sc.layout;
  const ModelSpec& m = w.model;
  const double heads = m.num_attention_heads;
  const double groups = m.num_query_groups > 0 ? m.num_query_groups : heads;
  Ctx c{m, w.parallel, l, gpu, net, w.training.use_flash_attn,
        static_cast<double>(w.training.bytes_per_param), w.training.grad_bytes(),
        w.training.precision == Precision::Fp8, fp8_cast_bytes_per_element(w.training.fp8_recipe),
        fp8_cast_kernels(w.training.fp8_recipe), fp8_gemm_ratio(w.training.fp8_recipe, cluster.gpu),
        w.training.gradient_accumulation_fusion,
        moe_rank_load(m, l.ep), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
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

  const LayerCost dense = layer_cost(c, false);
  const LayerCost moe = m.is_moe() ? layer_cost(c, true) : dense;

  // Embedding (first chunk): a vocab-parallel lookup written once (plus learned positions for
  // GPT-style models without rotary embeddings), reduced over TP; backward scatters gradients.
  PhaseTime emb_f, emb_b;
  const double emb_params = static_cast<double>(m.vocab_size) * c.h / c.t + (m.swiglu ? 0.0 : c.s * c.h);
  emb_f.memory = gpu.memory_bound(Bytes(c.T * c.h * kAct * 2.0)) + gpu.launch(3);
  emb_b.memory = gpu.memory_bound(Bytes(c.T * c.h * 4.0 * 2.0)) + gpu.launch(3);
  if (l.tp > 1) {
    const Bytes full(c.T * c.h * kAct);
    emb_f.tp_comm = w.parallel.sequence_parallel ? net.time(Collective::ReduceScatter, full, l.tp_group)
                                                 : net.time(Collective::AllReduce, full, l.tp_group);
    emb_b.tp_comm = w.parallel.sequence_parallel ? net.time(Collective::AllGather, full, l.tp_group) : Seconds(0);
  }
  // Logits and loss (last chunk): final norm, [SP all-gather], the vocab-parallel logits GEMM,
  // then Megatron's vocab-parallel cross-entropy in fp32, one PyTorch op per pass over the
  // logits (megatron/mpu/cross_entropy.py, 2021; megatron/core/tensor_parallel/cross_entropy.py
  // without --cross-entropy-loss-fusion). Forward: the 16-bit logits cast to fp32 (read 2,
  // write 4), max (read 4), subtract max in place (8), exp in place (8), sum (4), divide in place
  // to keep the softmax for backward (8): 38 B per logit. Backward: scale the saved softmax by
  // the loss gradient in place (8), cast back to 16 bits (read 4, write 2): 14 B per logit.
  constexpr double kLossForwardBytesPerLogit = 38.0;
  constexpr double kLossBackwardBytesPerLogit = 14.0;
  PhaseTime log_f, log_b;
  {
    PhaseTime f, b;
    const double vocab_loc = static_cast<double>(m.vocab_size) / c.t;
    const double logits = c.T * vocab_loc;
    add_gemm(c, f, b, c.T, vocab_loc, c.h);
    f.memory += gpu.memory_bound(Bytes(logits * kLossForwardBytesPerLogit + 2.0 * c.Tsp * c.h * kAct)) +
                gpu.launch(8);
    b.memory += gpu.memory_bound(Bytes(logits * kLossBackwardBytesPerLogit + 4.0 * c.Tsp * c.h * kAct)) +
                gpu.launch(8);
    if (l.tp > 1 && w.parallel.sequence_parallel) {
      const Bytes full(c.T * c.h * kAct);
      f.tp_comm = net.time(Collective::AllGather, full, l.tp_group);
      b.tp_comm = net.time(Collective::ReduceScatter, full, l.tp_group);
    }
    log_f = f; log_b = b;
  }
  const double out_params = static_cast<double>(m.vocab_size) * c.h / c.t;

  // Chunks: layer index of chunk j's first layer follows the global chunk order.
  const int J = l.chunks();
  sc.chunks.resize(static_cast<size_t>(J));
  int first_layer = 0;
  for (int j = 0; j < J; ++j) {
    ChunkCost& ch = sc.chunks[static_cast<size_t>(j)];
    ch.layers = l.chunk_layers[static_cast<size_t>(j)];
    int n_moe = 0;
    for (int i = 0; i < ch.layers; ++i) n_moe += is_moe_layer(m, first_layer + i) ? 1 : 0;
    first_layer += ch.layers;
    const int n_dense = ch.layers - n_moe;
    ch.forward = dense.fwd.scaled(n_dense); ch.forward += moe.fwd.scaled(n_moe);
    ch.backward = dense.bwd.scaled(n_dense); ch.backward += moe.bwd.scaled(n_moe);
    ch.recompute = dense.recompute.scaled(n_dense); ch.recompute += moe.recompute.scaled(n_moe);
    ch.params = dense.params * n_dense + moe.params * n_moe;
    ch.linear_params = dense.linear_params * n_dense + moe.linear_params * n_moe;
    ch.expert_params = moe.expert_params * n_moe;
    ch.largest_unit_params = std::max(n_dense > 0 ? dense.params : 0.0, n_moe > 0 ? moe.params : 0.0);
    if (j == 0) {
      ch.has_embedding = true;
      ch.forward += emb_f; ch.backward += emb_b;
      ch.params += emb_params;
      ch.largest_unit_params = std::max(ch.largest_unit_params, emb_params);
    }
    if (j == J - 1) {
      ch.has_logits = true;
      ch.forward += log_f; ch.backward += log_b;
      // Multi-token prediction (DeepSeek-V3 §2.2): each module projects [norm(h); norm(emb)]
      // (2h -> h), runs one more transformer layer (a MoE layer like the main model's) and the
      // shared output head with its loss, on the last stage; embedding and head are shared.
      for (int d = 0; d < m.mtp_depth; ++d) {
        const LayerCost& lay = m.is_moe() ? moe : dense;
        PhaseTime pf, pb;
        add_linear(c, pf, pb, c.T, c.h / c.t, 2.0 * c.h);
        ch.forward += lay.fwd; ch.forward += log_f; ch.forward += pf;
        ch.backward += lay.bwd; ch.backward += log_b; ch.backward += pb;
        ch.recompute += lay.recompute;
        const double projection = 2.0 * c.h * c.h / c.t;
        const double module_params = lay.params + projection + 4.0 * c.h;  // + its two norms
        ch.params += module_params;
        ch.linear_params += lay.linear_params + projection;
        ch.expert_params += lay.expert_params;
        ch.largest_unit_params = std::max(ch.largest_unit_params, module_params);
      }
      const double head = (m.untie_embeddings_and_output_weights || J > 1) ? out_params : 0.0;
      ch.params += head;
      ch.params += 2.0 * c.h;  // final norm
      ch.largest_unit_params = std::max(ch.largest_unit_params, head + 2.0 * c.h);
    }
  }
  sc.rank_params.assign(static_cast<size_t>(l.pp), 0.0);
  sc.rank_expert_params.assign(static_cast<size_t>(l.pp), 0.0);
  sc.rank_linear_params.assign(static_cast<size_t>(l.pp), 0.0);
  for (int j = 0; j < J; ++j) {
    sc.rank_linear_params[static_cast<size_t>(l.rank_of_chunk(j))] += sc.chunks[static_cast<size_t>(j)].linear_params;
    sc.rank_params[static_cast<size_t>(l.rank_of_chunk(j))] += sc.chunks[static_cast<size_t>(j)].params;
    sc.rank_expert_params[static_cast<size_t>(l.rank_of_chunk(j))] += sc.chunks[static_cast<size_t>(j)].expert_params;
  }

  // Point-to-point between stages: the b s h activation; with TP, Megatron's scatter/gather
  // optimization (SC'21 Sec. 4.1) sends 1/t of it per TP rank and all-gathers it over NVLink
  // on the receiving side (already sharded with sequence parallelism).
  const Bytes act(c.T * c.h * kAct);
  sc.p2p_bytes = l.tp > 1 ? act / c.t : act;
  sc.p2p_time = l.pp > 1 ? net.p2p(sc.p2p_bytes, l.pp_group.stride) : Seconds(0);
  if (l.pp > 1 && l.tp > 1 && !w.parallel.sequence_parallel)
    sc.p2p_time += net.time(Collective::AllGather, act, l.tp_group);

  // Collective volumes.
  CollectiveVolumes& v = sc.volumes;
  v.tp_per_layer_forward = dense.tp_bytes;
  v.cp_kv_per_layer_forward = dense.cp_bytes;
  v.ep_per_layer_forward = moe.ep_bytes;
  const double grad_bytes = w.training.grad_bytes();  // fp32 under bf16, 16-bit under fp16
  const double rank0_params = *std::max_element(sc.rank_params.begin(), sc.rank_params.end());
  const double rank0_expert = *std::max_element(sc.rank_expert_params.begin(), sc.rank_expert_params.end());
  v.dp_grad_per_rank = Bytes((rank0_params - rank0_expert) * grad_bytes);
  v.dp_expert_grad_per_rank = Bytes(rank0_expert * grad_bytes);
  // Gradients of dense weights are reduced over DP x CP (CP ranks hold the same weights); the
  // members span the CP block and the DP stride. Expert weights over DP x CP / EP.
  v.dp_grad_group = GroupPlacement{l.dp * l.cp, std::max(1, l.dp_group.stride / l.cp)};
  v.expert_dp_group = GroupPlacement{std::max(1, l.dp * l.cp / l.ep),
                                     std::max(1, l.dp_group.stride / l.cp) * l.ep};
  const bool sharded = w.parallel.effective_zero_stage() >= 1;
  v.dp_param_gather_per_rank = sharded ? Bytes(rank0_params * w.training.bytes_per_param) : Bytes(0);
  return sc;
}

}  // namespace fleetsim::step
