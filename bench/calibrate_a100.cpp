// Re-derives the A100 efficiency parameters of the step model from the single-node vTrain
// measurements (data/validation/vtrain_singlenode.csv, 1,440 iterations on 2-8 A100 in one
// node) and prints how well they fit. Run through scripts/calibrate.
//
// Fitted (physical meaning in sim/hardware/specs.hpp and the GPU preset):
//   gemm_efficiency, gemm_half_efficiency_work, hbm_efficiency, kernel_launch_overhead (GPU).
// nvlink_efficiency stays at its preset (NCCL all-reduce bus bandwidth / link rate, nccl-tests):
// tensor-parallel traffic is a few percent of these iterations and does not identify it.
// attention_efficiency is not identifiable here (the measured runs use unfused attention); it
// stays at its preset value. Objective: mean absolute relative error of the iteration time,
// minimized by Nelder-Mead over bounded parameters, started from the preset values.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/config/load.hpp"
#include "sim/core/paths.hpp"
#include "sim/step/collectives.hpp"
#include "sim/step/gemm_efficiency.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/step/step_model.hpp"
#include "sim/reproduce/step_sources.hpp"

using namespace fleetsim;

namespace {

constexpr int kParams = 4;
using Vec = std::array<double, kParams>;
struct Bound { double lo, hi; const char* name; };
// x: gemm_efficiency, log10 half-efficiency work (FLOP), hbm_efficiency,
//    log10 kernel overhead (s), nvlink_efficiency
std::array<Bound, kParams> kBounds{{{0.3, 1.0, "gemm_efficiency"},
                                    {6.0, 12.0, "log10 gemm_half_efficiency_work"},
                                    {0.3, 1.0, "hbm_efficiency"},
                                    {-6.5, -3.5, "log10 kernel_launch_overhead"}}};
// `--physical`: the fit held to physically attainable values. GEMM efficiency at most the
// best-shape cuBLAS BF16 matmul rate measured on A100 SXM, 267.9 of 312 TFLOP/s = 0.859
// ("Maximum Achievable Matmul FLOPS" table, stas00/ml-engineering compute/accelerator/README.md);
// host time per PyTorch op at most 25 us (CUDA launch ~5 us plus eager PyTorch dispatch from Python);
// HBM efficiency at most 0.88: a hand-tuned streaming read kernel on A100 80GB SXM reaches
// 1.80 of 2.04 TB/s (88%, confirmed by Nsight Compute; NVIDIA developer forum "Trouble to Reach
// Peak Bandwidth of A100", 2025, which cites ~90% as the best any kernel achieved in a GTC talk),
// and PyTorch's elementwise kernels mix reads and writes.
void use_physical_bounds() {
  kBounds[0].hi = 0.859;
  kBounds[2].hi = 0.88;
  kBounds[3].hi = std::log10(25e-6);
}
// `--fixed-gemm E`: gemm_efficiency held at E (not identifiable from this set: it trades off
// against hbm_efficiency), the other three fitted.
void fix_gemm(double e) { kBounds[0].lo = kBounds[0].hi = e; }

Vec clamp(Vec x) {
  for (int i = 0; i < kParams; ++i) x[static_cast<size_t>(i)] = std::clamp(x[static_cast<size_t>(i)], kBounds[static_cast<size_t>(i)].lo, kBounds[static_cast<size_t>(i)].hi);
  return x;
}

void apply(const Vec& x, ClusterSpec& c) {
  c.gpu.gemm_efficiency = x[0];
  c.gpu.gemm_half_efficiency_work = Flops(std::pow(10.0, x[1]));
  c.gpu.hbm_efficiency = x[2];
  c.gpu.kernel_launch_overhead = Seconds(std::pow(10.0, x[3]));
}

std::vector<double> errors(const std::vector<reproduce::StepCase>& cases, const Vec& x) {
  std::vector<double> e;
  e.reserve(cases.size());
  for (const auto& c : cases) {
    ClusterSpec cl = c.scenario.cluster;
    apply(x, cl);
    const StepResult r = evaluate_step(cl, c.scenario.workload);
    const double pred = 1e3 * r.iteration_time.si();
    e.push_back((pred - c.published) / c.published);
  }
  return e;
}

double objective(const std::vector<reproduce::StepCase>& cases, const Vec& x) {
  double s = 0;
  for (double e : errors(cases, x)) s += std::fabs(e);
  return s / static_cast<double>(cases.size());
}

Vec nelder_mead(const std::vector<reproduce::StepCase>& cases, Vec x0, int iterations) {
  std::array<Vec, kParams + 1> p;
  std::array<double, kParams + 1> f;
  p[0] = clamp(x0);
  for (int i = 0; i < kParams; ++i) {
    Vec v = x0;
    const auto& b = kBounds[static_cast<size_t>(i)];
    v[static_cast<size_t>(i)] += 0.15 * (b.hi - b.lo);
    p[static_cast<size_t>(i + 1)] = clamp(v);
  }
  for (size_t i = 0; i < p.size(); ++i) f[i] = objective(cases, p[i]);
  for (int it = 0; it < iterations; ++it) {
    std::array<size_t, kParams + 1> order;
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return f[a] < f[b]; });
    const size_t best = order[0], worst = order[kParams], second = order[kParams - 1];
    Vec centroid{};
    for (size_t i = 0; i < kParams; ++i)
      for (int k = 0; k < kParams; ++k) centroid[static_cast<size_t>(k)] += p[order[i]][static_cast<size_t>(k)] / kParams;
    auto along = [&](double t) {
      Vec v;
      for (int k = 0; k < kParams; ++k) v[static_cast<size_t>(k)] = centroid[static_cast<size_t>(k)] + t * (p[worst][static_cast<size_t>(k)] - centroid[static_cast<size_t>(k)]);
      return clamp(v);
    };
    const Vec xr = along(-1.0);
    const double fr = objective(cases, xr);
    if (fr < f[best]) {
      const Vec xe = along(-2.0);
      const double fe = objective(cases, xe);
      if (fe < fr) { p[worst] = xe; f[worst] = fe; } else { p[worst] = xr; f[worst] = fr; }
    } else if (fr < f[second]) {
      p[worst] = xr; f[worst] = fr;
    } else {
      const Vec xc = along(0.5);
      const double fc = objective(cases, xc);
      if (fc < f[worst]) { p[worst] = xc; f[worst] = fc; }
      else {
        for (size_t i = 0; i < p.size(); ++i) {
          if (i == best) continue;
          for (int k = 0; k < kParams; ++k) p[i][static_cast<size_t>(k)] = p[best][static_cast<size_t>(k)] + 0.5 * (p[i][static_cast<size_t>(k)] - p[best][static_cast<size_t>(k)]);
          f[i] = objective(cases, p[i]);
        }
      }
    }
  }
  size_t best = 0;
  for (size_t i = 1; i < f.size(); ++i) if (f[i] < f[best]) best = i;
  return p[best];
}

void report(const char* label, const std::vector<double>& e) {
  std::vector<double> a;
  for (double v : e) a.push_back(std::fabs(v));
  std::sort(a.begin(), a.end());
  double mean = 0, bias = 0;
  for (double v : a) mean += v;
  for (double v : e) bias += v;
  mean /= static_cast<double>(a.size());
  bias /= static_cast<double>(e.size());
  auto within = [&](double t) { return 100.0 * static_cast<double>(std::upper_bound(a.begin(), a.end(), t) - a.begin()) / static_cast<double>(a.size()); };
  std::printf("%-10s MAPE %5.1f%%  bias %+5.1f%%  median %5.1f%%  p90 %5.1f%%  max %5.1f%%  within 10%%: %4.1f%%  within 20%%: %4.1f%%\n",
              label, 100 * mean, 100 * bias, 100 * a[a.size() / 2], 100 * a[a.size() * 9 / 10], 100 * a.back(), within(0.10), within(0.20));
}

// `calibrate_a100 --breakdown`: per-case breakdown of the published validation rows (Megatron
// SC'21, Llama 3, vTrain multi-node) into compute / TP / PP / DP / bubble / optimizer, to compare
// with what the papers imply. Diagnostic only; fits nothing.
void print_breakdown(const std::vector<reproduce::StepCase>& cases, bool summary_only) {
  double sum = 0;
  for (const auto& c : cases) {
    const StepResult r = evaluate_step(c.scenario.cluster, c.scenario.workload);
    const ValidationCase v = reproduce::compare(c, r);
    sum += std::fabs(v.error);
    if (summary_only) continue;
    {
      // One middle chunk per layer: forward / backward / recompute split (ms per microbatch).
      const step::GpuCompute gpu(c.scenario.cluster.gpu);
      const step::CollectiveModel net(c.scenario.cluster);
      const auto sc = step::stage_costs(c.scenario.cluster, c.scenario.workload, gpu, net);
      const auto& ch = sc.chunks[sc.chunks.size() / 2];
      const double L = std::max(1, ch.layers);
      auto ms = [&](Seconds x) { return 1e3 * x.si() / L; };
      std::printf("    per layer ms: fwd math %.3f mem %.3f tp %.3f | bwd math %.3f mem %.3f tp %.3f | "
                  "p2p %.3f ms, m %d\n",
                  ms(ch.forward.math), ms(ch.forward.memory), ms(ch.forward.tp_comm), ms(ch.backward.math),
                  ms(ch.backward.memory), ms(ch.backward.tp_comm), 1e3 * sc.p2p_time.si(), r.microbatches);
    }
    const auto& b = r.breakdown;
    // Share of the iteration that the unfused attention calibration adds (its key off vs on).
    ClusterSpec off = c.scenario.cluster;
    off.gpu.unfused_attention_hbm_efficiency = 0;
    const double attn_share = 1.0 - evaluate_step(off, c.scenario.workload).iteration_time.si() / r.iteration_time.si();
    std::printf("    unfused-attention calibration: %.1f%% of the iteration\n", 100 * attn_share);
    std::printf("%-62s pub %8.1f pred %8.1f err %+6.1f%s | it %8.3fs comp %5.1f%% tp %4.1f%% pp %4.1f%% "
                "bub %4.1f%% dp %4.1f%% opt %4.1f%% (math %4.1f%%) mem %5.1f GiB\n",
                c.name.c_str(), v.published, v.predicted,
                v.error_is_absolute ? v.error : 100 * v.error, v.error_is_absolute ? "pt" : "% ",
                r.iteration_time.si(), 100 * b.compute.si() / r.iteration_time.si(),
                100 * b.tp_comm.si() / r.iteration_time.si(), 100 * b.pp_comm.si() / r.iteration_time.si(),
                100 * b.bubble.si() / r.iteration_time.si(), 100 * b.dp_comm.si() / r.iteration_time.si(),
                100 * b.optimizer.si() / r.iteration_time.si(), 100 * r.compute_busy_fraction,
                units::to_gib(r.memory_per_gpu));
  }
  if (!cases.empty())
    std::printf("%s: mean |error| %.2f%s over %zu cases\n\n", cases.front().source.c_str(),
                cases.front().metric == reproduce::CaseMetric::MfuPercent ? sum / cases.size() : 100 * sum / cases.size(),
                cases.front().metric == reproduce::CaseMetric::MfuPercent ? " points" : "%", cases.size());
}

using reproduce::KorthikantiRow;
using reproduce::korthikanti_rows;

reproduce::LayerTimes layer_times(const Scenario& s, double unfused_hbm) {
  ClusterSpec cl = s.cluster;
  cl.gpu.unfused_attention_hbm_efficiency = unfused_hbm;
  return reproduce::layer_times(cl, s.workload);
}

// `calibrate_a100 --attention`: fits unfused_attention_hbm_efficiency on Table 4's attention
// core: selective recomputation re-runs exactly QK^T, softmax, dropout and AV in the backward,
// so backward(selective) - backward(none), with and without sequence parallelism, is the
// measured time of that path (1.3 ms both). Bisection inside the physical bounds [0.40, 0.88]
// (0.88: the preset's streaming HBM efficiency, i.e. the mechanism off). Judged elsewhere:
// Megatron SC'21 Table 1, vTrain multi-node (never used here).
int fit_unfused_attention() {
  const auto rows = korthikanti_rows();
  auto find = [&](Recompute rc, bool sp) -> const KorthikantiRow& {
    size_t i = 0;
    while (i < rows.size() && !(rows[i].scenario.workload.parallel.recompute_granularity == rc &&
                                rows[i].scenario.workload.parallel.sequence_parallel == sp))
      ++i;
    if (i == rows.size()) throw std::runtime_error("korthikanti2022_table4.csv: a recomputation/SP row is missing");
    return rows[i];
  };
  const std::pair<const KorthikantiRow*, const KorthikantiRow*> pairs[] = {
      {&find(Recompute::None, false), &find(Recompute::Selective, false)},
      {&find(Recompute::None, true), &find(Recompute::Selective, true)}};
  double measured = 0;
  for (const auto& p : pairs) measured += (p.second->bwd_ms - p.first->bwd_ms) / 2.0;
  auto model_core = [&](double e) {
    double m = 0;
    for (const auto& p : pairs) m += (layer_times(p.second->scenario, e).bwd_ms - layer_times(p.first->scenario, e).bwd_ms) / 2.0;
    return m;
  };
  constexpr double kLo = 0.40, kHi = 0.88;
  std::printf("Korthikanti et al. 2022 Table 4 (22B, 8 A100, TP 8, seq 2048): attention core measured %.2f ms per layer\n", measured);
  std::printf("  model at the bounds: %.3f ms (e = %.2f), %.3f ms (e = %.2f)\n", model_core(kHi), kHi, model_core(kLo), kLo);
  double lo = kLo, hi = kHi;
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (model_core(mid) > measured ? lo : hi) = mid;
  }
  const double e = 0.5 * (lo + hi);
  std::printf("  fitted unfused_attention_hbm_efficiency: %.3f (model attention core %.3f ms)\n", e, model_core(e));
  std::printf("  per-layer times at the fit (not fitted; Table 4 rows):\n");
  for (const auto& r : rows) {
    const reproduce::LayerTimes lt = layer_times(r.scenario, e);
    std::printf("    %-24s fwd %6.2f ms (measured %4.1f, %+5.1f%%)  bwd %6.2f ms (measured %4.1f, %+5.1f%%)\n", r.name.c_str(),
                lt.fwd_ms, r.fwd_ms, 100 * (lt.fwd_ms - r.fwd_ms) / r.fwd_ms, lt.bwd_ms, r.bwd_ms,
                100 * (lt.bwd_ms - r.bwd_ms) / r.bwd_ms);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc > 1 && std::string(argv[1]) == "--attention") return fit_unfused_attention();
    if (argc > 1 && std::string(argv[1]) == "--breakdown") {
      print_breakdown(reproduce::megatron_sc21_table1_cases(), false);
      print_breakdown(reproduce::llama3_table4_cases(), false);
      print_breakdown(reproduce::vtrain_multinode_cases(), argc > 2 && std::string(argv[2]) == "--quiet");
      print_breakdown(reproduce::vtrain_singlenode_cases(), true);
      return 0;
    }
    int arg = 1;
    if (argc > arg && std::string(argv[arg]) == "--physical") { use_physical_bounds(); ++arg; }
    if (argc > arg + 1 && std::string(argv[arg]) == "--fixed-gemm") { fix_gemm(std::atof(argv[arg + 1])); arg += 2; }
    const int iterations = argc > arg ? std::atoi(argv[arg]) : 400;
    const auto cases = reproduce::vtrain_singlenode_cases();
    const ClusterSpec& preset = cases.front().scenario.cluster;
    const Vec x0{preset.gpu.gemm_efficiency, std::log10(std::max(1.0, preset.gpu.gemm_half_efficiency_work.si())),
                 preset.gpu.hbm_efficiency, std::log10(std::max(1e-7, preset.gpu.kernel_launch_overhead.si()))};
    std::printf("vTrain single-node calibration set: %zu measured iterations (%s)\n", cases.size(),
                (validation_dir() + "/vtrain_singlenode.csv").c_str());
    report("preset", errors(cases, clamp(x0)));
    // Several starts across the GEMM-efficiency range (the objective has a shallow valley
    // along GEMM vs HBM efficiency); keep the best, restarted once to escape a collapsed simplex.
    Vec x = x0;
    double fx = objective(cases, clamp(x0));
    for (double start : {0.6, 0.75, 0.9}) {
      Vec s = x0;
      s[0] = start;
      // Start inside the bounds: a vertex clamped onto a bound collapses the simplex there.
      for (int k = 0; k < kParams; ++k) {
        const auto& b = kBounds[static_cast<size_t>(k)];
        if (b.hi > b.lo) s[static_cast<size_t>(k)] = std::clamp(s[static_cast<size_t>(k)], b.lo + 0.05 * (b.hi - b.lo), b.hi - 0.2 * (b.hi - b.lo));
      }
      Vec y = nelder_mead(cases, s, iterations);
      y = nelder_mead(cases, y, iterations / 2);
      const double fy = objective(cases, y);
      std::printf("  start gemm_efficiency %.2f -> MAPE %.2f%% at (%.3f, %.3g GFLOP, %.3f, %.3g us)\n", start,
                  100 * fy, y[0], std::pow(10.0, y[1]) / 1e9, y[2], std::pow(10.0, y[3]) * 1e6);
      if (fy < fx) { fx = fy; x = y; }
    }
    report("fitted", errors(cases, x));
    std::printf("\nfitted parameters (paste into models/gpus/a100-*.yaml ):\n");
    std::printf("  gemm_efficiency: %.3f\n", x[0]);
    std::printf("  gemm_half_efficiency_work: %.3g GFLOP\n", std::pow(10.0, x[1]) / 1e9);
    std::printf("  hbm_efficiency: %.3f\n", x[2]);
    std::printf("  kernel_launch_overhead: %.3g us\n", std::pow(10.0, x[3]) * 1e6);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "calibrate: %s\n", e.what());
    return 2;
  }
}
