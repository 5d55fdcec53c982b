#include "sim/step/tp_overlap.hpp"

#include <algorithm>
#include <cmath>

namespace fleetsim::step {
namespace {

// Relative throughput at `m_eq` along one measured K row (points sorted by m, same k).
double along_m(const std::vector<const GemmMPoint*>& row, double m_eq) {
  const GemmMPoint& top = *row.back();
  if (m_eq >= top.m) return 1.0;
  const GemmMPoint& low = *row.front();
  if (m_eq <= low.m) {
    // Below the smallest measured M the kernel takes at least that M's time (latency floor).
    return low.tflops / top.tflops * m_eq / low.m;
  }
  for (size_t i = 1; i < row.size(); ++i) {
    const GemmMPoint& a = *row[i - 1];
    const GemmMPoint& b = *row[i];
    if (m_eq <= b.m) {
      const double w = std::log(m_eq / a.m) / std::log(b.m / a.m);
      return (a.tflops + w * (b.tflops - a.tflops)) / top.tflops;
    }
  }
  return 1.0;
}

}  // namespace

double gemm_m_curve_relative(const std::vector<GemmMPoint>& curve, double m, double n, double k) {
  if (curve.empty() || m <= 0 || n <= 0 || k <= 0) return 1.0;
  // The measured K values, ascending; each row's points ascending in M (the loader sorts them).
  std::vector<double> ks;
  for (const auto& p : curve)
    if (std::find(ks.begin(), ks.end(), p.k) == ks.end()) ks.push_back(p.k);
  std::sort(ks.begin(), ks.end());
  auto row_value = [&](double kk) {
    std::vector<const GemmMPoint*> row;
    for (const auto& p : curve)
      if (p.k == kk) row.push_back(&p);
    std::sort(row.begin(), row.end(), [](const GemmMPoint* a, const GemmMPoint* b) { return a->m < b->m; });
    return along_m(row, m * n / row.front()->n);
  };
  const double kc = std::clamp(k, ks.front(), ks.back());
  for (size_t i = 1; i < ks.size(); ++i) {
    if (kc <= ks[i]) {
      const double w = std::log(kc / ks[i - 1]) / std::log(ks[i] / ks[i - 1]);
      return (1.0 - w) * row_value(ks[i - 1]) + w * row_value(ks[i]);
    }
  }
  return row_value(ks.front());
}

double chunk_slowdown(const std::vector<GemmMPoint>& curve, double m, double n, double k, double chunks) {
  if (chunks <= 1) return 1.0;
  const double whole = gemm_m_curve_relative(curve, m, n, k);
  const double part = gemm_m_curve_relative(curve, m / chunks, n, k);
  return part > 0 ? whole / part : 1.0;
}

Seconds ring_exchange_extra(const TpPair& p, const std::vector<GemmMPoint>& curve, int tp, bool aggregate, int sms,
                            int comm_sms, double exposed_share) {
  if (tp <= 1) return Seconds(0);
  const int chunks = aggregate && tp >= 4 ? tp / 2 : tp;
  const double margin = sms > comm_sms ? static_cast<double>(sms) / (sms - comm_sms) : 1.0;
  const double g = p.gemm.si() / chunks * chunk_slowdown(curve, p.m, p.n, p.k, chunks) * margin;
  const double c = p.comm.si() / (chunks - 1);
  const double pair = g + (chunks - 1) * std::max(g, c) + exposed_share * p.comm.si();
  return Seconds(std::max(0.0, pair - p.gemm.si()));
}

Seconds pipeline_extra(const TpPair& p, const std::vector<GemmMPoint>& curve, int splits, int sms, int comm_sms,
                       double exposed_share) {
  const int n = std::max(1, splits);
  const double margin = sms > comm_sms ? static_cast<double>(sms) / (sms - comm_sms) : 1.0;
  const double g = p.gemm.si() / n * chunk_slowdown(curve, p.m, p.n, p.k, n) * margin;
  const double c = p.comm.si() / n;
  const double pair = g + (n - 1) * std::max(g, c) + c + exposed_share * p.comm.si();
  return Seconds(std::max(0.0, pair - p.gemm.si()));
}

Seconds bulk_extra(const TpPair& p, int sms, int comm_sms) {
  const double share = sms > 0 ? std::clamp(static_cast<double>(comm_sms) / sms, 0.0, 1.0) : 0.0;
  const double c = p.comm.si(), g = p.gemm.si();
  return Seconds(std::max(0.0, c - g) + std::min(c, g) * share);
}

TpOverlapCost tp_overlap_layer(const ParallelSpec& par, const GpuSpec& gpu, const TpLinear (&lin)[4],
                               const TpCollectives& coll, int tp, bool fp8) {
  TpOverlapCost out;
  if (gpu.gemm_m_curve.empty()) {
    // No measured chunk GEMMs for this GPU (Blackwell: none public): issue 24's bound, each pair
    // max(0, comm - GEMM) + min(comm, GEMM) / TP over the forward and backward GEMMs of the layer,
    // 16-bit collectives (the NeMo Blackwell tables are judged with it; README, issue 35).
    const Seconds colls[4] = {coll.ag16, coll.rs16, coll.ag16, coll.rs16};
    for (int i = 0; i < 4; ++i) {
      auto exposed = [&](Seconds comm, Seconds gemm) {
        return max(Seconds(0), comm - gemm) + Seconds(std::min(comm.si(), gemm.si()) / tp);
      };
      const Seconds ef = exposed(colls[i], lin[i].fprop), eb = exposed(colls[i], lin[i].dgrad + lin[i].wgrad);
      out.fwd_exposed += ef; out.fwd_hidden += colls[i] - ef;
      out.bwd_exposed += eb; out.bwd_hidden += colls[i] - eb;
    }
    return out;
  }
  const auto& curve = gpu.gemm_m_curve;
  const int sms = gpu.sm_count > 0 ? gpu.sm_count : 108;
  const double eps = gpu.tp_overlap_exposed_share;
  const bool agg = par.tp_comm_overlap_aggregate;
  auto sm_at = [](const std::vector<int>& v, size_t i, int fallback) { return i < v.size() ? v[i] : fallback; };
  // All-gathers move FP8 operands under fp8 (TE casts the norm output and dY before gathering).
  const Seconds ag = fp8 ? coll.ag8 : coll.ag16;
  const Seconds rs_fwd = fp8 && par.tp_comm_overlap_rs_fp8_buf ? coll.rs8 : coll.rs16;
  auto add = [](Seconds& exposed, Seconds& hidden, Seconds extra, Seconds comm) {
    exposed += extra;
    hidden += max(Seconds(0), comm - extra);
  };
  // Forward: QKV and FC1 behind ring-exchange all-gathers; the attention output and FC2 before
  // their reduce-scatters (pipelined on num_sm SMs, or ring exchange on 1).
  for (int i : {0, 2}) {
    const TpPair p{lin[i].fprop, ag, lin[i].m, lin[i].n, lin[i].k};
    add(out.fwd_exposed, out.fwd_hidden, ring_exchange_extra(p, curve, tp, agg, sms, 0, eps), ag);
  }
  for (int i : {1, 3}) {
    const TpPair p{lin[i].fprop, rs_fwd, lin[i].m, lin[i].n, lin[i].k};
    const Seconds extra =
        par.tp_comm_overlap_rs_method == TpOverlapMethod::Pipeline
            ? pipeline_extra(p, curve, par.tp_comm_overlap_splits, sms, sm_at(par.tp_comm_overlap_rs_sms, i / 2, 16), eps)
            : ring_exchange_extra(p, curve, tp, false, sms, 1, eps);
    add(out.fwd_exposed, out.fwd_hidden, extra, rs_fwd);
  }
  // Backward: the row-parallel layers' dgrad behind the ring-exchange all-gather of dY (its
  // wgrad reuses the gathered dY); the column-parallel layers' input re-gather beside their
  // dgrad and their dX reduce-scatter beside their wgrad (bulk; 16-bit dX).
  for (int i : {1, 3}) {
    const TpPair p{lin[i].dgrad, ag, lin[i].m, lin[i].k, lin[i].n};
    add(out.bwd_exposed, out.bwd_hidden, ring_exchange_extra(p, curve, tp, agg, sms, 0, eps), ag);
  }
  for (int i : {0, 2}) {
    const size_t base = i == 0 ? 0 : 2;
    const TpPair d{lin[i].dgrad, ag, lin[i].m, lin[i].k, lin[i].n};
    add(out.bwd_exposed, out.bwd_hidden, bulk_extra(d, sms, sm_at(par.tp_comm_overlap_bulk_sms, base, 2)), ag);
    const TpPair w{lin[i].wgrad, coll.rs16, lin[i].k, lin[i].n, lin[i].m};
    add(out.bwd_exposed, out.bwd_hidden, bulk_extra(w, sms, sm_at(par.tp_comm_overlap_bulk_sms, base + 1, 2)),
        coll.rs16);
  }
  return out;
}

}  // namespace fleetsim::step
