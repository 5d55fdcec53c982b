// Prices an op list (op_time.hpp). A pass's ops are summed in list order, unit by unit: the
// times of a unit's ops (its memory-bound ops: their bytes, as one pass) are added first, then
// the unit enters the pass (layer_ops.hpp). Communication is priced after the compute, since the
// TP collectives hidden behind GEMMs need those GEMMs' times.
#include "sim/step/op_time.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "sim/step/moe.hpp"
#include "sim/step/tp_overlap.hpp"

namespace fleetsim::step {

namespace {

enum class Pass { Forward, Backward, Recompute };

bool in_pass(Phase p, Pass pass) {
  switch (pass) {
    case Pass::Forward: return p == Phase::Forward;
    case Pass::Backward: return p == Phase::Dgrad || p == Phase::Wgrad;
    case Pass::Recompute: return p == Phase::Recompute;
  }
  return false;
}

bool is_compute(OpKind k) {
  return k != OpKind::TpCollective && k != OpKind::CpExchange && k != OpKind::ExpertAllToAll;
}

// The math running sum of a pass before and after each unit entered it: the window a hidden
// collective overlaps (units [first, last]) and what a Repeat re-runs.
struct Window {
  Seconds before, after;
  Seconds wgrad;  // of it, weight-gradient GEMMs (backward)
};
using Windows = std::array<Window, kMaxUnits>;

Seconds window_time(const Windows& w, int first, int last) { return w[static_cast<size_t>(last)].after - w[static_cast<size_t>(first)].before; }

// One unit's accumulated ops.
struct UnitSum {
  int unit = -1;
  Seconds math, wgrad;
  double mem_bytes = 0, scores_bytes = 0, launch_kernels = 0;
  bool has_mem = false, has_scores = false, has_launch = false;
};

void flush(UnitSum& u, PhaseTime& pt, Windows& win, const GpuCompute& gpu) {
  if (u.unit < 0) return;
  Window& w = win[static_cast<size_t>(u.unit)];
  w.before = pt.math;
  pt.math += u.math;
  w.after = pt.math;
  w.wgrad = u.wgrad;
  pt.wgrad += u.wgrad;
  if (u.has_mem || u.has_scores || u.has_launch) {
    Seconds t;
    if (u.has_mem) t += gpu.memory_bound(Bytes(u.mem_bytes));
    if (u.has_scores) t += gpu.memory_bound_scores(Bytes(u.scores_bytes));
    if (u.has_launch) t += gpu.launch(u.launch_kernels);
    pt.memory += t;
  }
  u = UnitSum{};
}

Seconds compute_time(const Op& op, const GpuCompute& gpu, const Windows* forward) {
  switch (op.kind) {
    case OpKind::Gemm: return gpu.gemm(op.m, op.n, op.k, op.count);
    case OpKind::GemmFp8: return gpu.gemm_fp8(op.m, op.n, op.k, op.count, op.factor);
    case OpKind::ScoresGemm: return gpu.gemm_scores(op.m, op.n, op.k, op.count);
    case OpKind::Attention: return gpu.attention(Flops(op.flops));
    case OpKind::Repeat: return forward ? window_time(*forward, op.window_first, op.window_last) : Seconds(0);
    default: return Seconds(0);
  }
}

// Exposed collectives of one pass: identical ones (kind, bytes) are timed once and multiplied
// by how often they occur, in order of first appearance.
struct Exposed {
  Collective coll;
  double bytes;
  double n;
};

PhaseTime price_pass(const Op* begin, const Op* end, Pass pass, const OpPricing& p, bool host_dispatch,
                     Windows& win, const Windows* forward, Bytes* ep_bytes) {
  PhaseTime pt;
  UnitSum u;
  double kernels = 0;
  for (const Op* op = begin; op != end; ++op) {
    if (!in_pass(op->phase, pass)) continue;
    kernels += op->kernels;
    if (!is_compute(op->kind)) continue;
    if (op->unit != u.unit) {
      flush(u, pt, win, p.gpu);
      u.unit = op->unit;
    }
    switch (op->kind) {
      case OpKind::MemoryBound: u.mem_bytes += op->bytes; u.has_mem = true; break;
      case OpKind::ScoresMemory: u.scores_bytes += op->bytes; u.has_scores = true; break;
      case OpKind::Launch: u.launch_kernels += op->kernels; u.has_launch = true; break;
      default: {
        const Seconds t = compute_time(*op, p.gpu, forward);
        u.math += t;
        if (op->phase == Phase::Wgrad) u.wgrad += t;
      }
    }
  }
  flush(u, pt, win, p.gpu);

  std::array<Exposed, 8> exposed{};
  size_t n_exposed = 0;
  Seconds ep_acc;
  for (const Op* op = begin; op != end; ++op) {
    if (!in_pass(op->phase, pass) || is_compute(op->kind)) continue;
    switch (op->kind) {
      case OpKind::TpCollective: {
        if (op->window_first < 0) {
          size_t i = 0;
          while (i < n_exposed && !(exposed[i].coll == op->collective && exposed[i].bytes == op->bytes)) ++i;
          if (i == n_exposed) {
            if (n_exposed == exposed.size()) throw std::length_error("op list: more than 8 distinct exposed collectives");
            exposed[n_exposed++] = {op->collective, op->bytes, 0.0};
          }
          exposed[i].n += op->count;
          break;
        }
        const Seconds comm = p.net.time(op->collective, Bytes(op->bytes), p.layout.tp_group);
        Seconds gemm = window_time(win, op->window_first, op->window_last);
        Seconds e;
        if (op->overlap == TpOverlapKind::Bound) {
          // Split into `factor` (TP) chunks pipelined with the GEMM's chunks: a pair takes
          // max(comm, GEMM) + min(comm, GEMM) / TP (one chunk to fill the pipe). The hidden part
          // is reported as overlapped.
          e = max(Seconds(0), comm - gemm) + Seconds(std::min(comm.si(), gemm.si()) / op->factor);
        } else {
          // Transformer Engine userbuffers, the method NeMo's recipe gives the op (tp_overlap.hpp):
          // the pair's time beyond its GEMM.
          const Window& w = win[static_cast<size_t>(op->window_first)];
          if (op->window_phase == Phase::Wgrad) gemm = w.wgrad;
          else if (op->window_phase == Phase::Dgrad) gemm = gemm - w.wgrad;
          const TpPair pair{gemm, comm, op->m, op->n, op->k};
          const auto& curve = p.gpu.gemm_m_curve();
          const double share = p.gpu.tp_overlap_exposed_share();
          switch (op->overlap) {
            case TpOverlapKind::RingExchange:
              e = ring_exchange_extra(pair, curve, static_cast<int>(op->factor * (op->aggregate ? 2 : 1)), op->aggregate,
                                      p.gpu.sms(), op->comm_sms, share);
              break;
            case TpOverlapKind::Pipeline:
              e = pipeline_extra(pair, curve, static_cast<int>(op->factor), p.gpu.sms(), op->comm_sms, share);
              break;
            default: e = bulk_extra(pair, p.gpu.sms(), op->comm_sms);
          }
        }
        pt.tp_comm += e;
        pt.tp_hidden += max(Seconds(0), comm - e);
        break;
      }
      case OpKind::CpExchange: {
        // The ring's time beyond the attention that hides it (`factor` of its time).
        const Seconds ring = p.net.time(op->collective, Bytes(op->bytes), p.layout.cp_group) * op->count;
        const Seconds attn = op->flops > 0 ? p.gpu.attention(Flops(op->flops)) : Seconds(0);
        const Seconds e = max(Seconds(0), ring - attn * op->factor);
        pt.cp_comm += e;
        pt.cp_hidden += ring - e;
        break;
      }
      case OpKind::ExpertAllToAll: {
        const EpTransfer x = ep_transfer(p.model, p.layout, p.net, op->tokens, op->factor, p.rank_load);
        ep_acc += x.time;
        if (ep_bytes) *ep_bytes = *ep_bytes + x.fabric_bytes + x.nvlink_bytes;
        break;
      }
      default: break;
    }
  }
  for (size_t i = 0; i < n_exposed; ++i)
    pt.tp_comm += p.net.time(exposed[i].coll, Bytes(exposed[i].bytes), p.layout.tp_group) * exposed[i].n;
  pt.ep_comm += ep_acc;

  // Host dispatch: the CPU issues kernels asynchronously ahead of the GPU, so a pass costs
  // max(GPU time, kernels x per-kernel host overhead) (small layers are launch-bound). The excess
  // counts as compute time. The host issues ~3 PyTorch ops per kernel counted here: views,
  // splits, transposes, the RNG-state fork/restore around dropout, checkpoint and autograd
  // bookkeeping (Megatron's ParallelTransformerLayer forward is ~45-50 Python-level ops for the
  // ~15 kernels counted; megatron/model/transformer.py, 2021-2023). `kernel_launch_overhead` is
  // the host time of one such op (eager PyTorch from Python: ~10-20 us).
  if (host_dispatch && pass != Pass::Recompute) {
    const Seconds gpu_time = pt.math + pt.memory + pt.tp_comm + pt.cp_comm + pt.ep_comm;
    const Seconds host = p.gpu.launch(kernels * kHostOpsPerKernel);
    if (host > gpu_time) pt.memory += host - gpu_time;
  }
  return pt;
}

}  // namespace

PricedOps price_ops(const Op* begin, const Op* end, bool host_dispatch, bool full_recompute, const OpPricing& p) {
  PricedOps out;
  Windows fwd_win, bwd_win, rec_win;
  out.fwd = price_pass(begin, end, Pass::Forward, p, host_dispatch, fwd_win, nullptr, &out.ep_bytes);
  out.bwd = price_pass(begin, end, Pass::Backward, p, host_dispatch, bwd_win, nullptr, nullptr);
  out.recompute = full_recompute ? out.fwd : price_pass(begin, end, Pass::Recompute, p, false, rec_win, &fwd_win, nullptr);
  return out;
}

}  // namespace fleetsim::step
