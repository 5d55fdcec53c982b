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

}  // namespace fleetsim::step
