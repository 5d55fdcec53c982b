#include "sim/step/tp_overlap.hpp"

#include <algorithm>
#include <cmath>

namespace fleetsim::step {
namespace {

// Relative throughput at `m_eq` along the measured row of inner size `k` (its points at one n),
// without allocating: the step model calls this for every overlapped op of every evaluation.
double along_m(const std::vector<GemmMPoint>& curve, double k, double m, double n) {
  const GemmMPoint *top = nullptr, *low = nullptr;
  for (const auto& p : curve) {
    if (p.k != k) continue;
    if (top == nullptr || p.m > top->m) top = &p;
    if (low == nullptr || p.m < low->m) low = &p;
  }
  if (top == nullptr) return 1.0;
  const double m_eq = m * n / top->n;
  if (m_eq >= top->m) return 1.0;
  // Below the smallest measured M the kernel takes at least that M's time (latency floor).
  if (m_eq <= low->m) return low->tflops / top->tflops * m_eq / low->m;
  const GemmMPoint *a = low, *b = top;  // the measured points just below and above m_eq
  for (const auto& p : curve) {
    if (p.k != k) continue;
    if (p.m <= m_eq && p.m > a->m) a = &p;
    if (p.m >= m_eq && p.m < b->m) b = &p;
  }
  if (b->m <= a->m) return a->tflops / top->tflops;
  const double w = std::log(m_eq / a->m) / std::log(b->m / a->m);
  return (a->tflops + w * (b->tflops - a->tflops)) / top->tflops;
}

}  // namespace

double gemm_m_curve_relative(const std::vector<GemmMPoint>& curve, double m, double n, double k) {
  if (curve.empty() || m <= 0 || n <= 0 || k <= 0) return 1.0;
  // The measured K just below and above k (clamped to the measured range), interpolated in log K.
  double k_lo = 0, k_hi = 0, k_min = curve.front().k, k_max = curve.front().k;
  for (const auto& p : curve) {
    k_min = std::min(k_min, p.k);
    k_max = std::max(k_max, p.k);
  }
  const double kc = std::clamp(k, k_min, k_max);
  k_lo = k_min; k_hi = k_max;
  for (const auto& p : curve) {
    if (p.k <= kc && p.k > k_lo) k_lo = p.k;
    if (p.k >= kc && p.k < k_hi) k_hi = p.k;
  }
  const double lo = along_m(curve, k_lo, m, n);
  if (k_hi <= k_lo) return lo;
  const double w = std::log(kc / k_lo) / std::log(k_hi / k_lo);
  return (1.0 - w) * lo + w * along_m(curve, k_hi, m, n);
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
