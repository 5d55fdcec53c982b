// The step model against NVIDIA's DGX Cloud benchmark recipes for Llama 3.1 8B / 70B / 405B on
// DGX H100 (data/validation/dgxc_h100_llama31.csv; SOURCES.md "dgxc_h100_llama31.csv"): BF16 and
// FP8 on the same layouts, tokens/s per GPU (issue 24).
//
// Split, written down before any fit (sim/reproduce/dgxc_llama31.hpp): CALIBRATION = rows on at
// most 64 GPUs and every proxy-model row; JUDGED = the full models on more than 64 GPUs. On this
// branch nothing is fitted on either part (gemm_efficiency 0.80 is the MAMF measurement,
// gemm_efficiency_fp8 0.562 the NeMo <= 16-GPU fit).
//
// Targets (issue 24): judged rows within 5% mean and 10% worst, BF16 and FP8 each. Neither is met
// by today's model: BF16 is 14-25% fast on the TP4/TP8 rows, FP8 up to 12% slow on the 70B PP8 CP1
// rows (sim/step/README.md, "Hopper TP overlap (issue 24)"). Both are gated at today's error
// (BF16 mean 17.6%, worst 24.5%; FP8 mean 6.0%, worst 12.2%) with the targets named; tighten
// when the gap closes.
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

TEST_CASE("DGX Cloud Llama 3.1 FP8 judged rows: within 6.5% mean and 12.5% worst (targets 5% / 10%, issue 24)", "[validation]") {
  const Summary s = judged(reproduce::dgxc_llama31_cases(), "fp8");
  REQUIRE(s.n >= 12);
  CHECK(s.mean <= 0.065);
  CHECK(s.worst <= 0.125);
}

TEST_CASE("DGX Cloud Llama 3.1 BF16 judged rows: within 18% mean and 25% worst (targets 5% / 10%, issue 24)", "[validation]") {
  const Summary s = judged(reproduce::dgxc_llama31_cases(), "bf16");
  REQUIRE(s.n >= 10);
  CHECK(s.mean <= 0.18);
  CHECK(s.worst <= 0.25);
}
