// The step model against NVIDIA's Megatron-Bridge performance summary, NeMo 25.11-26.08
// (data/validation/megatron_bridge_perf_2025_2026.csv; sim/reproduce/megatron_bridge.hpp): Llama 3
// 8B / 70B and Llama 3.1 405B pre-training on GB300, GB200, B200 and H100 in FP8 (current scaling),
// MXFP8 and NVFP4, and the DeepSeek-V3 MoE rows, tokens/s per GPU (issue 36).
//
// Split, written down before any fit (megatron_bridge.hpp): CALIBRATION = Llama 3 8B and 70B
// configurations not also published in 25.11 on > 16 GPUs; JUDGED = every 405B configuration and
// 25.11's 70B configurations; MoE: all modelled rows judged (the small MoE models that would
// calibrate have no preset).
//
// Targets (issue 36): judged dense rows mean <= 5% and worst <= 10% per GPU x precision; MoE mean
// <= 10%, worst <= 20%; every layout fits in memory. Where a group misses its target, the test
// gates at today's error (the bound below) and names the target.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "sim/reproduce/megatron_bridge.hpp"
#include "sim/step/step_model.hpp"

using namespace fleetsim;

namespace {

struct Summary {
  double mean = 0, worst = 0;
  int n = 0;
};

void add(Summary& s, double e) {
  s.mean += std::fabs(e);
  s.worst = std::max(s.worst, std::fabs(e));
  ++s.n;
}

// Judged dense rows per "GPU precision" group ("DGX-GB300 NVFP4"), printed row by row.
std::map<std::string, Summary> judged_dense_groups() {
  std::map<std::string, Summary> g;
  std::printf("\n  Megatron-Bridge dense, judged rows (405B; 25.11's 70B configurations)\n");
  for (const auto& c : reproduce::megatron_bridge_dense_cases()) {
    if (c.calibration) continue;
    const ValidationCase v = reproduce::compare(c);
    const std::string group = c.system + " " + reproduce::megatron_bridge_precision_group(c.precision_label);
    std::printf("  %-16s %-84s published %6.0f predicted %6.0f  %+6.1f%%\n", group.c_str(), v.case_name.c_str(),
                v.published, v.predicted, 100 * v.error);
    add(g[group], v.error);
  }
  for (auto& [name, s] : g) {
    s.mean /= s.n;
    std::printf("  %-16s %d rows: mean |error| %.1f%%, worst %.1f%%\n", name.c_str(), s.n, 100 * s.mean, 100 * s.worst);
  }
  return g;
}

// Today's bound per group where the target is missed; groups not listed are gated at the target.
struct Bound {
  double mean, worst;
};
const std::map<std::string, Bound>& known_gaps() {
  static const std::map<std::string, Bound> gaps = {
      // Issue 35 (TP overlap per op, FP8 ceiling 0.562 -> 0.696): 405B (25.11) +16.3%, (26.06) +5.9%,
      // 70B TP4 PP8 (25.11) -2.0%; before: -2.7 / +6.9 / -11.3%.
      {"DGX-H100 FP8", {0.085, 0.165}},
      {"DGX-B200 MXFP8", {0.075, 0.10}},  // one row, +7.2% (405B TP4 PP8 CP2 VP8)
      {"DGX-GB300 FP8", {0.09, 0.12}},   // 405B TP4 PP8 CP1 -11.8%, TP2 PP8 CP2 -7.5%; 70B FSDP -6.0%
  };
  return gaps;
}

}  // namespace

TEST_CASE("Megatron-Bridge: the split puts every 405B configuration and 25.11's 70B ones in the judged part", "[validation]") {
  std::vector<std::string> skipped;
  const auto cases = reproduce::megatron_bridge_dense_cases(&skipped);
  int calib = 0, judged = 0;
  for (const auto& c : cases) {
    if (c.scenario.workload.model.num_layers == 126) CHECK_FALSE(c.calibration);  // 405B: always judged
    (c.calibration ? calib : judged) += 1;
  }
  std::printf("\n  Megatron-Bridge dense: %zu configurations (%d calibration, %d judged); not modelled:\n", cases.size(),
              calib, judged);
  for (const auto& s : skipped) std::printf("    %s\n", s.c_str());
  CHECK(calib >= 10);
  CHECK(judged >= 10);
  std::vector<std::string> moe_skipped;
  const auto moe = reproduce::megatron_bridge_moe_cases(&moe_skipped);
  for (const auto& c : moe) CHECK_FALSE(c.calibration);
  std::printf("  Megatron-Bridge MoE: %zu modelled rows (all judged); not modelled:\n", moe.size());
  for (const auto& s : moe_skipped) std::printf("    %s\n", s.c_str());
  CHECK(moe.size() >= 8);
}

TEST_CASE("Megatron-Bridge judged dense rows: mean 5% / worst 10% per GPU x precision, or today's bound where not met", "[validation]") {
  const auto groups = judged_dense_groups();
  REQUIRE(groups.size() >= 6);
  for (const auto& [name, s] : groups) {
    const auto gap = known_gaps().find(name);
    const double mean = gap == known_gaps().end() ? reproduce::kBridgeDenseMeanTarget : gap->second.mean;
    const double worst = gap == known_gaps().end() ? reproduce::kBridgeDenseWorstTarget : gap->second.worst;
    INFO(name << ": mean " << 100 * s.mean << "%, worst " << 100 * s.worst << "% (bound " << 100 * mean << " / "
              << 100 * worst << "%, target 5 / 10%)");
    CHECK(s.mean <= mean);
    CHECK(s.worst <= worst);
  }
}

// Known gap: DeepSeek-V3 on Blackwell is off both ways (B200 25.11 w/ MTP +30.5%, GB200 25.11 BF16
// +31.1%, GB300 26.xx -19 to -20%); bound today's mean 19% / worst 31.5%, target 10% / 20%.
TEST_CASE("Megatron-Bridge MoE rows: within 19% mean and 31.5% worst (known gap, targets 10% / 20%)", "[validation]") {
  Summary s;
  std::printf("\n  Megatron-Bridge MoE (judged)\n");
  for (const auto& c : reproduce::megatron_bridge_moe_cases()) {
    const ValidationCase v = reproduce::compare(c);
    std::printf("  %-90s published %6.0f predicted %6.0f  %+6.1f%%\n", v.case_name.c_str(), v.published, v.predicted,
                100 * v.error);
    add(s, v.error);
  }
  REQUIRE(s.n >= 8);
  s.mean /= s.n;
  std::printf("  %d rows: mean |error| %.1f%%, worst %.1f%%\n", s.n, 100 * s.mean, 100 * s.worst);
  CHECK(s.mean <= 0.19);
  CHECK(s.worst <= 0.315);
}

// Known gap: Llama 3 70B on 64 GB200 (TP1 PP1, Megatron FSDP, 40 layers' activations offloaded,
// mbs 2) needs 171.8 GiB of 169.2 usable: the 12.2 GiB logits buffer keeps the fp32 softmax of
// Megatron's unfused cross-entropy, which the recipe's fused TE cross-entropy
// (cross_entropy_fusion_impl "te") does not hold. Bound: that layout within 3 GiB; target: fits.
TEST_CASE("Megatron-Bridge: every published layout fits in memory (one within 3 GiB: known gap)", "[validation][memory]") {
  auto cases = reproduce::megatron_bridge_dense_cases();
  for (auto& c : reproduce::megatron_bridge_moe_cases()) cases.push_back(std::move(c));
  double tightest = 1e9;
  for (const auto& c : cases) {
    const StepResult r = evaluate_step(c.scenario.cluster, c.scenario.workload);
    const double need = units::to_gib(r.memory_per_gpu), usable = units::to_gib(r.usable_memory);
    tightest = std::min(tightest, usable - need);
    INFO(c.name << ": " << need << " GiB of " << usable);
    const bool known_gap = c.name.find("LLAMA3_70B GB200 64 GPUs TP1 PP1 CP1 FSDP mbs 2") != std::string::npos;
    if (known_gap) CHECK(usable - need >= -3.0);
    else CHECK(r.fits_in_memory);
  }
  std::printf("\n  Megatron-Bridge: %zu layouts, smallest margin %+.1f GiB\n", cases.size(), tightest);
}
