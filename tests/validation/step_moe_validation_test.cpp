// Mixture-of-experts runs against their published figures (sim/step/validation_moe.hpp):
// DeepSeek-V3's H800 GPU-hours (arXiv:2412.19437 Table 1 / §1; data/validation/other_scale_runs.csv)
// and NVIDIA's MoE throughput rows (data/validation/nemo_perf_summary.csv).
//
// Split, written down before any evaluation: nothing is fitted on MoE data. The H800 preset is
// the H100 calibration (fitted on NeMo dense rows <= 16 GPUs), the B200 preset likewise; every
// MoE row and both DeepSeek-V3 figures are judged. The DeepSeek-V3 scenario's unpublished
// choices (layer split, FP8 recipe) are stated in scenarios/deepseek-v3-2048-h800.yaml.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/config/load.hpp"
#include "sim/step/validation_moe.hpp"

using namespace fleetsim;

// Known gap: the step model is 14.1% fast on both figures (154.6K vs 180K GPU-hours per trillion
// tokens), the same sign and size as Llama 3 405B's 15.6T-token run on H100 (-15.2%, README):
// the Hopper calibration (dense rows <= 16 GPUs) misses what slows 2K-16K-GPU runs. The published
// figures are wall-clock GPU-hours (failures, restarts and evaluation included), the prediction
// the iteration model alone. Guard at today's error; target 10%.
TEST_CASE("DeepSeek-V3 on 2,048 H800: GPU-hours per trillion tokens and for 14.8T tokens within 15% (today -14.1%; target 10%, not met)", "[validation]") {
  const Scenario s = config::load_scenario("deepseek-v3-2048-h800");
  const StepResult r = evaluate_step(s.cluster, s.workload);
  std::printf("\n  DeepSeek-V3, 2,048 H800, DualPipe: iteration %.3f s, %.0f tokens/s per GPU, MFU %.3f\n",
              r.iteration_time.si(), r.tokens_per_iteration.si() / r.iteration_time.si() / s.cluster.gpus, r.mfu);
  const auto cases = step::deepseek_v3_gpu_hour_cases();
  REQUIRE(cases.size() == 2);
  for (const auto& c : cases) {
    const double predicted = step::predicted_gpu_hours(s, r, c.tokens);
    const double error = (predicted - c.published_gpu_hours) / c.published_gpu_hours;
    std::printf("  %-62s published %10.0f  predicted %10.0f  error %+6.1f%%\n", c.name.c_str(),
                c.published_gpu_hours, predicted, 100 * error);
    CHECK(std::fabs(error) <= 0.15);
    if (std::fabs(error) > 0.10) std::printf("    (outside the 10%% target: known gap, see the test's comment)\n");
  }
}

namespace {
double run_rows(const std::vector<step::StepCase>& cases, const char* title) {
  std::printf("\n  %s\n", title);
  double worst = 0;
  for (const auto& c : cases) {
    const ValidationCase v = step::compare(c);
    std::printf("  %-78s published %8.0f  predicted %8.0f  error %+6.1f%%\n", v.case_name.c_str(), v.published,
                v.predicted, 100 * v.error);
    worst = std::max(worst, std::fabs(v.error));
  }
  return worst;
}
}  // namespace

// DGX-H100 (DeepSeek-V3, 1,024 GPUs, TP2 PP8 VP4 EP64): within the 15% target (-2.3%).
// DGX-B200 (DeepSeek-V3 on 256 GPUs in four releases, Mixtral 8x7B on 64): errors of both signs,
// -21.4% to +30.5% (Mixtral -19.7%): known gap, guarded at 31% per row, target 15%. What the
// B200 tables do not say and the model does not have: the a2a/compute overlap of Megatron-core's
// EP overlap and HybridEP dispatch, CUDA graphs, per-release kernel changes (26.04 at +12.7%, the
// same layout in 25.09 at +22.3%).
TEST_CASE("NeMo MoE rows: DGX-H100 within 15%; DGX-B200 within 31% per row (known gap, target 15%)", "[validation]") {
  std::vector<std::string> skipped;
  const auto h100 = step::nemo_moe_cases("DGX-H100", &skipped);
  const auto b200 = step::nemo_moe_cases("DGX-B200", &skipped);
  std::printf("\n  NeMo MoE rows: %zu on DGX-H100, %zu on DGX-B200 (all judged), %zu skipped\n", h100.size(),
              b200.size(), skipped.size());
  for (const auto& s : skipped) std::printf("    skipped: %s\n", s.c_str());
  REQUIRE(h100.size() >= 1);
  REQUIRE(b200.size() >= 3);
  const double worst_h100 = run_rows(h100, "DGX-H100 (judged)");
  const double worst_b200 = run_rows(b200, "DGX-B200 (judged)");
  CHECK(worst_h100 <= 0.15);
  CHECK(worst_b200 <= 0.31);
}
