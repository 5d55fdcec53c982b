// The step model against NVIDIA's DGX Cloud benchmark recipes for Llama 3.1 8B / 70B / 405B on
// DGX H100 (data/validation/dgxc_h100_llama31.csv; SOURCES.md "dgxc_h100_llama31.csv"): BF16 and
// FP8 on the same layouts, tokens/s per GPU (issue 24).
//
// Split, written down before any fit (sim/reproduce/dgxc_llama31.hpp): CALIBRATION = rows on at
// most 64 GPUs and every proxy-model row; JUDGED = the full models on more than 64 GPUs. Issue 35
// fits one parameter on the calibration part, gemm_efficiency_fp8 (with the NeMo <= 16-GPU rows:
// 0.696); the TP-overlap parameters come from microbenchmarks (sim/step/README.md, "Hopper TP
// overlap (issue 35)"); gemm_efficiency 0.80 is the MAMF measurement.
//
// Targets (issues 24, 35): judged rows within 5% mean and 10% worst, BF16 and FP8 each. Before
// issue 35: BF16 17.6% / 24.5%, FP8 6.0% / 12.2%. Now FP8 5.1% / 11.5% and BF16 9.6% / 13.7%
// (the 405B TP 8 rows stay 11-14% fast): both gated at today's error with the targets named;
// tighten when the gap closes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/reproduce/dgxc_llama31.hpp"

using namespace fleetsim;

namespace {

struct Summary {
  double mean = 0, worst = 0;
  int n = 0;
};

Summary judged(const std::vector<reproduce::StepCase>& cases, const std::string& precision) {
  Summary s;
  std::printf("\n  DGX Cloud Llama 3.1, %s, judged rows (full models on > %d GPUs)\n", precision.c_str(),
              reproduce::kDgxcCalibrationMaxGpus);
  for (const auto& c : cases) {
    if (c.calibration || c.precision_label != precision) continue;
    const ValidationCase v = reproduce::compare(c);
    std::printf("  %-70s published %8.1f  predicted %8.1f  error %+6.1f%%\n", v.case_name.c_str(), v.published,
                v.predicted, 100 * v.error);
    s.mean += std::fabs(v.error);
    s.worst = std::max(s.worst, std::fabs(v.error));
    ++s.n;
  }
  if (s.n > 0) s.mean /= s.n;
  std::printf("  %d rows: mean |error| %.1f%%, worst %.1f%%\n", s.n, 100 * s.mean, 100 * s.worst);
  return s;
}

}  // namespace

TEST_CASE("DGX Cloud Llama 3.1: the split puts every proxy and every row on <= 64 GPUs in calibration", "[validation]") {
  std::vector<std::string> skipped;
  const auto cases = reproduce::dgxc_llama31_cases(&skipped);
  int calib = 0, judged_rows = 0;
  for (const auto& c : cases) {
    const int gpus = c.scenario.cluster.gpus;
    const bool proxy = c.name.find("proxy") != std::string::npos;
    CHECK(c.calibration == (proxy || gpus <= reproduce::kDgxcCalibrationMaxGpus));
    (c.calibration ? calib : judged_rows) += 1;
  }
  std::printf("\n  DGX Cloud Llama 3.1: %zu configurations (%d calibration, %d judged), %zu duplicates dropped\n",
              cases.size(), calib, judged_rows, skipped.size());
  CHECK(calib >= 10);
  CHECK(judged_rows >= 25);
}

TEST_CASE("DGX Cloud Llama 3.1 FP8 judged rows: within 5.5% mean and 12% worst (targets 5% / 10%, issue 35)", "[validation]") {
  const Summary s = judged(reproduce::dgxc_llama31_cases(), "fp8");
  REQUIRE(s.n >= 12);
  CHECK(s.mean <= 0.055);
  CHECK(s.worst <= 0.12);
}

TEST_CASE("DGX Cloud Llama 3.1 BF16 judged rows: within 10% mean and 14% worst (targets 5% / 10%, issue 35)", "[validation]") {
  const Summary s = judged(reproduce::dgxc_llama31_cases(), "bf16");
  REQUIRE(s.n >= 10);
  CHECK(s.mean <= 0.10);
  CHECK(s.worst <= 0.14);
}
