// Fits the Hopper / Blackwell per-GPU efficiency parameters of the step model on the CALIBRATION
// part of NVIDIA's published pre-training throughput (data/validation/nemo_perf_summary.csv) and
// prints how the fit does on both parts. Run through `scripts/calibrate --gpu h100|b200`.
//
// The split is fixed before fitting (sim/reproduce/nemo.hpp, nemo_cases): calibration = rows on
// at most 16 GPUs (one or two DGX nodes: Llama 2 7B / Llama 3 8B on 8 GPUs, Llama 2 13B on 16),
// judged = every other row. Only calibration rows enter the objective; judged rows are printed
// for information and gate nothing here (tests/validation/step_nemo_test.cpp does that).
//
// Fitted, inside a physical bound with its source: gemm_efficiency_fp8, the fraction of the FP8
// dense peak a large FP8 GEMM reaches. Tried and not identified by these rows (a joint fit runs
// every parameter into a bound): attention_efficiency and hbm_efficiency, set from measurements
// in the preset. Not fitted either: gemm_efficiency (BF16; the MAMF measurement),
// gemm_half_efficiency_work, kernel_launch_overhead.
// Objective: mean absolute relative error of tokens/s per GPU, minimized inside the bounds by
// sim/uncertainty/parameter_fit.cpp (grid + golden section in one parameter), the estimator the
// parameter bootstrap refits (scripts/calibrate --bootstrap).
//
// `--gpu h100 --fp8-blockwise` fits fp8_blockwise_gemm_ratio instead, on its own calibration pair
// (sim/reproduce/nemo.hpp, nemo_h100_fp8_blockwise_pair): the one H100 layout NVIDIA measured with
// both per-tensor and DeepSeek-V3-style blockwise FP8 (model TFLOP/s 338 and 330). The ratio is
// bisected so that the step model's throughput ratio of the two recipes matches the published
// one; the per-tensor calibration above is taken as it is in the preset.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/step/step_model.hpp"
#include "sim/reproduce/deepseek_v3.hpp"
#include "sim/reproduce/megatron_bridge.hpp"
#include "sim/reproduce/nemo.hpp"
#include "sim/reproduce/step_sources.hpp"
#include "sim/uncertainty/parameter_fit.hpp"

using namespace fleetsim;

namespace {

// The rows' relative errors at parameter values x (the family's parameters, in order).
std::vector<double> errors(const std::vector<reproduce::StepCase>& cases, const uncertainty::CalibrationFamily& f,
                           const std::vector<double>& x) {
  std::vector<double> e;
  for (const auto& c : cases) {
    ClusterSpec cl = c.scenario.cluster;
    for (size_t k = 0; k < f.params.size(); ++k) f.params[k].set(cl.gpu, x[k]);
    const StepResult r = evaluate_step(cl, c.scenario.workload);
    const double pred = reproduce::predicted_metric(c, r);
    e.push_back((pred - c.published) / c.published);
  }
  return e;
}

double mean_abs(const std::vector<double>& e) {
  double s = 0;
  for (double v : e) s += std::fabs(v);
  return e.empty() ? 0 : s / static_cast<double>(e.size());
}

void print_cases(const char* part, const std::vector<reproduce::StepCase>& cases, const std::vector<double>& e) {
  std::printf("  %s:\n", part);
  for (size_t i = 0; i < cases.size(); ++i)
    std::printf("    %-78s published %8.0f  error %+6.1f%%\n", cases[i].name.c_str(), cases[i].published, 100 * e[i]);
  double worst = 0;
  for (double v : e) worst = std::max(worst, std::fabs(v));
  std::printf("    mean |error| %.1f%%, worst %.1f%% over %zu rows\n", 100 * mean_abs(e), 100 * worst, e.size());
}

// Bounds of fp8_blockwise_gemm_ratio and their sources.
constexpr double kBlockwiseLo = 0.80, kBlockwiseHi = 1.0;
const char* kBlockwiseBounds =
    "upper: no faster than the per-tensor FP8 GEMM (same tensor-core work plus the per-block scale "
    "multiplies); lower: DeepGEMM's first-release peak of 1,350+ FP8 TFLOP/s on Hopper (deepseek-ai/DeepGEMM "
    "README, Feb 2025) over cuBLASLt's per-tensor 1,600-1,630 = 0.83, rounded down";

int fit_blockwise() {
  const reproduce::Fp8BlockwisePair p = reproduce::nemo_h100_fp8_blockwise_pair();
  const double preset = p.blockwise.cluster.gpu.fp8_blockwise_gemm_ratio;
  std::printf("calibration pair: %s\n  and the same layout with fp8_recipe blockwise\n", p.per_tensor.name.c_str());
  std::printf("published blockwise / per-tensor model TFLOP/s: %.4f\n", p.published_ratio);
  std::printf("preset fp8_blockwise_gemm_ratio %.3f -> predicted %.4f\n", preset, reproduce::predicted_blockwise_ratio(p, preset));
  double lo = kBlockwiseLo, hi = kBlockwiseHi;
  const double at_lo = reproduce::predicted_blockwise_ratio(p, lo), at_hi = reproduce::predicted_blockwise_ratio(p, hi);
  if (p.published_ratio <= at_lo || p.published_ratio >= at_hi) {
    const double b = p.published_ratio <= at_lo ? lo : hi;
    std::printf("the published ratio is outside what the bounds give (%.4f .. %.4f)\n", at_lo, at_hi);
    std::printf("  fp8_blockwise_gemm_ratio: %.3f   bound [%.2f, %.2f] AT BOUND: %s\n", b, lo, hi, kBlockwiseBounds);
    return 0;
  }
  for (int it = 0; it < 40; ++it) {  // the throughput ratio rises monotonically with r
    const double mid = 0.5 * (lo + hi);
    (reproduce::predicted_blockwise_ratio(p, mid) < p.published_ratio ? lo : hi) = mid;
  }
  const double r = 0.5 * (lo + hi);
  std::printf("fitted -> predicted %.4f\n\nfitted parameter (paste into models/gpus/h100-sxm-80gb.yaml, h800, h200):\n",
              reproduce::predicted_blockwise_ratio(p, r));
  std::printf("  fp8_blockwise_gemm_ratio: %.3f   bound [%.2f, %.2f]: %s\n", r, kBlockwiseLo, kBlockwiseHi, kBlockwiseBounds);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string gpu = "h100";
    bool blockwise = false, nvfp4 = false;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--gpu" && i + 1 < argc) gpu = argv[++i];
      else if (a == "--fp8-blockwise") blockwise = true;
      else if (a == "--nvfp4") nvfp4 = true;
      else if (a == "--iterations" && i + 1 < argc) ++i;  // accepted for old scripts; the 1-D fit needs none
      else {
        std::fprintf(stderr, "calibrate_nemo: unknown argument '%s' (use --gpu h100|b200|gb200|gb300, --fp8-blockwise, --nvfp4)\n", a.c_str());
        return 2;
      }
    }
    if (nvfp4) {
      // gemm_efficiency_fp4 on the Megatron-Bridge NVFP4 calibration rows (megatron_bridge.hpp);
      // B200 / B300 carry GB200's / GB300's fit (the same dies, no NVFP4 dense row of their own).
      if (gpu != "gb200" && gpu != "gb300") {
        std::fprintf(stderr, "calibrate_nemo: --nvfp4 has calibration rows for gb200 and gb300 only, got '%s'\n", gpu.c_str());
        return 2;
      }
      const uncertainty::CalibrationFamily fam = uncertainty::calibration_family(gpu + "-nvfp4");
      std::vector<reproduce::StepCase> judged;
      for (auto& c : reproduce::megatron_bridge_dense_cases())
        if (!c.calibration && c.precision_label == "NVFP4" && c.system == fam.rows.front().system) judged.push_back(std::move(c));
      const std::vector<double> x0 = fam.preset();
      print_cases("calibration (preset)", fam.rows, errors(fam.rows, fam, x0));
      const std::vector<double> best = uncertainty::fit_family(fam, x0);
      print_cases("calibration (fitted on)", fam.rows, errors(fam.rows, fam, best));
      print_cases("judged (not fitted on)", judged, errors(judged, fam, best));
      const auto& p = fam.params.front();
      std::printf("\n  %s: %.3f   bound [%.2f, %.2f]%s: %s\n", p.name.c_str(), best[0], p.lo, p.hi,
                  (best[0] <= p.lo + 1e-6 || best[0] >= p.hi - 1e-6) ? " AT BOUND" : "", p.bound_source.c_str());
      return 0;
    }
    if (gpu != "h100" && gpu != "b200" && gpu != "gb300") {
      std::fprintf(stderr, "calibrate_nemo: --gpu must be h100, b200 or gb300, got '%s'\n", gpu.c_str());
      return 2;
    }
    if (blockwise) {
      if (gpu != "h100") {
        std::fprintf(stderr, "calibrate_nemo: --fp8-blockwise has a calibration pair for h100 only, got '%s'\n", gpu.c_str());
        return 2;
      }
      return fit_blockwise();
    }
    // The family (rows, bounds with their sources, the fit) is sim/uncertainty/parameter_fit's, the
    // same estimator its bootstrap refits (scripts/calibrate --bootstrap).
    const uncertainty::CalibrationFamily fam = uncertainty::calibration_family(gpu + "-fp8");
    std::vector<reproduce::StepCase> judged;
    for (auto& c : reproduce::nemo_cases(fam.rows.front().system))
      if (!c.calibration) judged.push_back(std::move(c));
    std::printf("NeMo %s: %zu calibration rows (<= %d GPUs), %zu judged rows (%s/nemo_perf_summary.csv)\n",
                fam.rows.front().system.c_str(), fam.rows.size(), reproduce::kNemoCalibrationMaxGpus, judged.size(),
                validation_dir().c_str());
    const std::vector<double> x0 = fam.preset();
    std::printf("preset:\n");
    print_cases("calibration", fam.rows, errors(fam.rows, fam, x0));
    const std::vector<double> best = uncertainty::fit_family(fam, x0);
    std::printf("fitted:\n");
    print_cases("calibration (fitted on)", fam.rows, errors(fam.rows, fam, best));
    print_cases("judged (not fitted on)", judged, errors(judged, fam, best));
    std::printf("\nfitted parameters (paste into models/gpus/%s*.yaml), with their physical bounds:\n", gpu.c_str());
    for (size_t k = 0; k < fam.params.size(); ++k) {
      const auto& p = fam.params[k];
      std::printf("  %s: %.3f   bound [%.2f, %.2f]%s: %s\n", p.name.c_str(), best[k], p.lo, p.hi,
                  (best[k] <= p.lo + 1e-6 || best[k] >= p.hi - 1e-6) ? " AT BOUND" : "", p.bound_source.c_str());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "calibrate_nemo: %s\n", e.what());
    return 2;
  }
}
