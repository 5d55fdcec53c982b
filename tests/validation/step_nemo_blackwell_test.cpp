// NVIDIA's GB200 NVL72, GB300 NVL72 and B300 rows (data/validation/nemo_perf_summary.csv: 82 / 57 /
// 14 rows; the other 28 / 30 / 15 of the systems' 110 / 87 / 29 are in
// nemo_perf_summary_other_models.csv, all models without a catalog preset: Llama 4, Qwen, GPT-OSS,
// Nemotron-H, ...) against the step model with the presets added for the planner (issue 26).
//
// Split as for H100 / B200 (sim/reproduce/nemo.hpp): rows on at most 16 GPUs are calibration rows,
// the rest judged.
// - GB200 (models/gpus/gb200.yaml): B200's calibration carried over (the same die and stack; only
//   the 1,200 W limit and the 2.5 / 5 PF peaks differ), not refitted; its 2 calibration rows
//   (Llama 3 8B on 8 GPUs) are printed as a check of that transfer. 11 judged dense rows.
// - GB300 (models/gpus/gb300.yaml): gemm_efficiency_fp8 fitted on its own 2 calibration rows
//   (scripts/calibrate --gpu gb300), 6 judged dense rows.
// - B300: the table has no dense row (only DeepSeek-V3 and Qwen3 MoE rows); the preset carries
//   B200's calibration and is judged on the 2 DeepSeek-V3 rows.
// MoE rows are judged on every system, as for B200 (nemo_moe.cpp).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include "sim/reproduce/nemo.hpp"

using namespace fleetsim;

namespace {

struct Errors {
  double mean = 0, worst = 0;
  int n = 0;
};

Errors check_rows(const std::string& title, const std::vector<reproduce::StepCase>& cases, bool calibration) {
  Errors e;
  std::printf("\n  %s (%s rows)\n", title.c_str(), calibration ? "calibration" : "judged");
  for (const auto& c : cases) {
    if (c.calibration != calibration) continue;
    const auto v = reproduce::compare(c);
    std::printf("    %-80s published %8.0f predicted %8.0f  %+6.1f%%\n", v.case_name.c_str(), v.published, v.predicted,
                100 * v.error);
    e.mean += std::fabs(v.error);
    e.worst = std::max(e.worst, std::fabs(v.error));
    ++e.n;
  }
  if (e.n) e.mean /= e.n;
  std::printf("    mean |error| %.1f%%, worst %.1f%% over %d rows\n", 100 * e.mean, 100 * e.worst, e.n);
  return e;
}

}  // namespace

TEST_CASE("NeMo DGX GB200 FP8 judged rows: tokens/s per GPU within 10% mean and 20% worst", "[validation]") {
  const auto cases = reproduce::nemo_cases("DGX-GB200");
  const Errors calib = check_rows("NeMo DGX-GB200 dense FP8 (B200's calibration carried over)", cases, true);
  CHECK(calib.n == 2);
  const Errors judged = check_rows("NeMo DGX-GB200 dense FP8", cases, false);
  REQUIRE(judged.n == 11);
  CHECK(judged.mean <= 0.10);
  CHECK(judged.worst <= 0.20);
}

// Known gap: the 26.02.01 Llama 3 70B row without interleaving (TP1 PP4, mbs 2) is -25.1%; the
// interleaved layout of the same model (VP5) is -5.5%. Bound: today's worst 26%; target 20%.
TEST_CASE("NeMo DGX GB300 FP8 judged rows: within 10% mean, worst within 26% (known gap, target 20%)", "[validation]") {
  const auto cases = reproduce::nemo_cases("DGX-GB300");
  const Errors calib = check_rows("NeMo DGX-GB300 dense FP8 (fitted on)", cases, true);
  CHECK(calib.n == 2);
  CHECK(calib.mean <= 0.05);
  const Errors judged = check_rows("NeMo DGX-GB300 dense FP8", cases, false);
  REQUIRE(judged.n == 6);
  CHECK(judged.mean <= 0.10);
  CHECK(judged.worst <= 0.26);
}

TEST_CASE("NeMo DGX B300 DeepSeek-V3 rows (judged, B200's calibration): within 15% per row", "[validation]") {
  CHECK(reproduce::nemo_cases("DGX-B300").empty());  // no dense row in the table
  const auto moe = reproduce::nemo_moe_cases("DGX-B300");
  const Errors judged = check_rows("NeMo DGX-B300 MoE", moe, false);
  REQUIRE(judged.n == 2);
  CHECK(judged.worst <= 0.15);
}

// MoE rows on the rack-scale systems, judged (no MoE fit anywhere): today's worst as the bound, as
// the B200 MoE rows are (step_moe_validation_test.cpp); target 15% per row.
TEST_CASE("NeMo GB200 / GB300 MoE rows: within 30% per row (known gap, target 15%)", "[validation]") {
  for (const char* system : {"DGX-GB200", "DGX-GB300"}) {
    const auto moe = reproduce::nemo_moe_cases(system);
    const Errors judged = check_rows(std::string("NeMo ") + system + " MoE", moe, false);
    REQUIRE(judged.n == 4);
    CHECK(judged.worst <= 0.30);
  }
}
