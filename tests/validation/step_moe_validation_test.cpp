// Mixture-of-experts runs against their published figures (sim/reproduce/nemo.hpp, deepseek_v3.hpp):
// DeepSeek-V3's H800 GPU-hours (arXiv:2412.19437 Table 1 / §1; data/validation/other_scale_runs.csv),
// step model composed with the run model (ETTR),
// and NVIDIA's MoE throughput rows (data/validation/nemo_perf_summary.csv).
//
// Split, written down before any evaluation: the H800 preset is the H100 calibration (fitted on
// NeMo dense rows <= 16 GPUs), the B200 preset likewise. One parameter is fitted on MoE data:
// fp8_blockwise_gemm_ratio, on the RATIO of one NeMo pair (25.09 DeepSeek-V3 on 1,024 H100,
// per-tensor vs blockwise FP8 on the same layout; sim/reproduce/nemo.hpp), which leaves the pair's
// per-tensor level unfitted, so that row stays judged. Every other MoE row and both DeepSeek-V3
// figures are judged. The DeepSeek-V3 scenario's unpublished choice (layer split) is stated in
// scenarios/deepseek-v3-2048-h800.yaml; its FP8 recipe is the report's blockwise scheme.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/config/load.hpp"
#include "sim/reproduce/deepseek_v3.hpp"
#include "sim/reproduce/nemo.hpp"

using namespace fleetsim;

// What the published figures measure: wall-clock GPU-hours of the cluster. The report (§1 and
// the abstract) states the cost per trillion tokens as "180K H800 GPU hours, i.e., 3.7 days on
// our cluster with 2048 H800 GPUs" and the 14.8T-token pre-training as 2,664K GPU-hours
// "completed in less than two months": days of the cluster, failures, restarts and checkpoints
// included, not the sum of healthy iterations. So the headline prediction composes the step
// model with the project's run model (run_pipeline on the scenario: the scenario's failure
// profile, checkpointing and 20 replications), step-only GPU-hours / ETTR, as the Llama 3 405B
// GPU-hour check does (step_llama3_test.cpp). The ETTR inputs (Llama 3's H100 failure rates,
// checkpoint and restart model) come from other runs than DeepSeek's; nothing in them is fitted
// on this figure. The step-only figure is printed beside it.
// Per-batch expert load imbalance (the other avenue checked): no published per-batch figure to
// set. Wang et al. 2024 (arXiv:2408.15664) tabulate only MaxVio_global (Table 2: 0.04 for their
// 1B and 3B models, 64 experts top-6), MaxVio_batch only as curves (Figures 3 and 5); the V3
// report publishes no MaxVio and says (§4.5.3) its large-scale EP and DP keep each micro-batch
// large enough; so the scenario stays `balanced` (sim/step/README.md).
// Today: run-level -7.3% on both figures (step-only -10.4%) with DeepSeek's own blockwise FP8
// (until the recipe was modelled, per-tensor current scaling stood in for it: -11.2%, step-only
// -14.1%). The remaining gap has the sign of Llama 3 405B's on H100 (-15.2%).
// Issue 35: the H800 shares the H100's die, so it takes the FP8 ceiling refitted with TP overlap
// costed (0.562 -> 0.696); DeepSeek-V3 (TP 1: no TP overlap) then runs -15.1% run-level (step-only
// -17.9%). What MoE needs beyond the modelled all-to-all and DualPipe's 20 SMs is not modelled
// yet (sim/step/README.md, issue 35: the clock under overlapped compute and communication, DeepGEMM
// issue #120's 1,980 -> 1,575 MHz, is the candidate). Gated at today's error, target 10%.
TEST_CASE("DeepSeek-V3 on 2,048 H800: run-level GPU-hours per trillion tokens and for 14.8T tokens within 16% (target 10%; today -15.1%, step-only -17.9%)", "[validation][run]") {
  const reproduce::DeepSeekV3Run run = reproduce::deepseek_v3_run();
  const Scenario& s = run.scenario;
  const StepResult& r = run.step;
  std::printf("\n  DeepSeek-V3, 2,048 H800, DualPipe: iteration %.3f s, %.0f tokens/s per GPU, MFU %.3f\n",
              r.iteration_time.si(), r.tokens_per_iteration.si() / r.iteration_time.si() / s.cluster.gpus, r.mfu);
  std::printf("  run model (%d replications): ETTR %.3f, %.1f days for %.1fT tokens\n", s.run.replications, run.ettr,
              run.wall_clock_days, s.workload.training.train_tokens.si() / 1e12);
  const auto cases = reproduce::deepseek_v3_gpu_hour_cases();
  REQUIRE(cases.size() == 2);
  for (const auto& c : cases) {
    const double step_only = reproduce::predicted_gpu_hours(s, r, c.tokens);
    const double predicted = reproduce::predicted_run_gpu_hours(run, c.tokens);
    const double step_error = (step_only - c.published_gpu_hours) / c.published_gpu_hours;
    const double error = (predicted - c.published_gpu_hours) / c.published_gpu_hours;
    std::printf("  %-62s published %10.0f\n    run-level (step / ETTR) %10.0f  error %+6.1f%%   step only %10.0f  error %+6.1f%%\n",
                c.name.c_str(), c.published_gpu_hours, predicted, 100 * error, step_only, 100 * step_error);
    CHECK(std::fabs(error) <= 0.16);
  }
}

namespace {
double run_rows(const std::vector<reproduce::StepCase>& cases, const char* title) {
  std::printf("\n  %s\n", title);
  double worst = 0;
  for (const auto& c : cases) {
    const ValidationCase v = reproduce::compare(c);
    std::printf("  %-78s published %8.0f  predicted %8.0f  error %+6.1f%%\n", v.case_name.c_str(), v.published,
                v.predicted, 100 * v.error);
    worst = std::max(worst, std::fabs(v.error));
  }
  return worst;
}
}  // namespace

// DGX-H100 (DeepSeek-V3, 1,024 GPUs, TP2 PP8 VP4 EP64): within the 15% target (+3.9% since issue 35; -2.3% before).
// DGX-B200 (DeepSeek-V3 on 256 GPUs in four releases, Mixtral 8x7B on 64): errors of both signs,
// -21.4% to +30.5% (Mixtral -19.7%): known gap, guarded at 31% per row, target 15%. What the
// B200 tables do not say and the model does not have: the a2a/compute overlap of Megatron-core's
// EP overlap and HybridEP dispatch, CUDA graphs, per-release kernel changes (26.04 at +12.7%, the
// same layout in 25.09 at +22.3%).
TEST_CASE("NeMo MoE rows: DGX-H100 within 15%, DGX-B200 within 31% per row (known gap, target 15%)", "[validation]") {
  std::vector<std::string> skipped;
  const auto h100 = reproduce::nemo_moe_cases("DGX-H100", &skipped);
  const auto b200 = reproduce::nemo_moe_cases("DGX-B200", &skipped);
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

// The calibration of fp8_blockwise_gemm_ratio (scripts/calibrate --gpu h100 --fp8-blockwise)
// still holds: with the preset's value the step model reproduces the pair it was fitted on. A
// change to the FP8 cost model that moves this needs a refit (and the new value in the presets).
TEST_CASE("H100 blockwise FP8: the preset's fp8_blockwise_gemm_ratio reproduces its calibration pair within 0.5%", "[validation]") {
  const reproduce::Fp8BlockwisePair p = reproduce::nemo_h100_fp8_blockwise_pair();
  const double predicted = reproduce::predicted_blockwise_ratio(p, p.blockwise.cluster.gpu.fp8_blockwise_gemm_ratio);
  std::printf("\n  %s: blockwise / per-tensor throughput published %.4f, predicted %.4f (ratio %.3f)\n",
              p.per_tensor.name.c_str(), p.published_ratio, predicted, p.blockwise.cluster.gpu.fp8_blockwise_gemm_ratio);
  CHECK(std::fabs(predicted / p.published_ratio - 1.0) <= 0.005);
}
