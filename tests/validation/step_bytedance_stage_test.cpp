// ByteDance's stragglers (Lin et al., OSDI'25; data/validation/stragglers_failslow.csv): the
// last-stage imbalance (F09) from the step model's stage costs and the schedule's account of it,
// and the artifact's three traces (F15) replayed through fleetsim's schedule (issue 27).
//
// Split: F09 and F15 are judged; nothing in the step model or the replay is fitted on them (the
// pool's scenarios/stragglers-bytedance.yaml takes F09 as an input of its loss-layer cost, a
// different model). The F09 job's shape is read from the authors' ST trace
// (sim/reproduce/stragglers_bytedance.cpp); the traces' durations are the replay's input.
//
// Targets and gates (set from the first measurement, 2026-12-02):
// - F15 (AR, SE, ST): S within 5% (kBytedanceTraceTolerance; the authors' own simulator is within
//   5.5% of real step times at p90, F13).
// - F09: known gap. Target 10% (kBytedanceStageTolerance). The step model prices the logits GEMM
//   and Megatron's unfused fp32 cross-entropy; the trace's parameter split pins the vocabulary
//   head at about one layer's parameters, so its GEMM is about one layer's FLOPs, while the traced
//   loss layer costs 9.6 layers forward and 3.7 backward. Gated at today's error (kF09*Bound);
//   the same gap makes the job's stage-imbalance slowdown S low against its trace's (kStBound);
//   sim/step/README.md "Last-stage imbalance" has the analysis.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include "sim/core/error.hpp"
#include "sim/import/bytedance_trace.hpp"
#include "sim/reproduce/step_sources.hpp"
#include "sim/step/slowdown.hpp"
#include "sim/step/step_model.hpp"
#include "tests/test_paths.hpp"

using namespace fleetsim;

namespace {

// Today's F09 errors, rounded up (forward, backward): the known gap's gate.
constexpr double kF09ForwardBound = 0.45;   // today -42.5%
constexpr double kF09BackwardBound = 0.25;  // today -22.1%
constexpr double kStBound = 0.15;           // today -11.9%: S of the ST job from the step model

void print_stages(const char* what, const reproduce::StageRatios& r) {
  std::printf("  %-12s forward ms/microbatch", what);
  for (double x : r.forward_ms) std::printf(" %7.2f", x);
  std::printf("  backward");
  for (double x : r.backward_ms) std::printf(" %7.2f", x);
  std::printf("  ratios %.3f / %.3f\n", r.forward, r.backward);
}

void print_case(const ValidationCase& v) {
  std::printf("  %-52s published %.3f  predicted %.3f  error %+6.1f%%  (target %.0f%%)\n",
              (v.case_name + ", " + v.metric).c_str(), v.published, v.predicted, 100 * v.error,
              100 * v.tolerance);
}

}  // namespace

TEST_CASE("ByteDance F09: last stage forward / backward compute over the other stages (known gap, bounded)",
          "[validation][stragglers]") {
  std::printf("\n  ByteDance OSDI'25 §5.2: 4 stages x 9 layers, the last also runs logits and loss\n");
  std::printf("  traced (ST): forward 67.2 67.6 68.0 140.2  backward 143.9 144.4 145.6 204.9 ms\n");
  for (auto [b, s] : {std::pair{2, 4096}, std::pair{4, 2048}, std::pair{1, 8192}}) {
    const auto c = reproduce::bytedance_last_stage_case(b, s);
    char what[32];
    std::snprintf(what, sizeof what, "%d x %d", b, s);
    print_stages(what, reproduce::last_stage_ratios(c.scenario.cluster, c.scenario.workload));
  }
  const auto cases = reproduce::bytedance_last_stage_cases(reproduce::kBytedanceStageTolerance);
  REQUIRE(cases.size() == 3);
  for (const auto& v : cases) print_case(v);
  // The last stage is the heavier one in both passes, and the error is no worse than today's.
  CHECK(cases[0].predicted > 1.0);
  CHECK(cases[1].predicted > 1.0);
  CHECK(std::fabs(cases[0].error) <= kF09ForwardBound);
  CHECK(std::fabs(cases[1].error) <= kF09BackwardBound);
  CHECK(cases[2].predicted > 1.0);
  CHECK(std::fabs(cases[2].error) <= kStBound);
  // The cases carry the target, not the gate: they fail in `fleetsim validate` until the gap closes.
  CHECK(cases[0].tolerance == reproduce::kBytedanceStageTolerance);
}

TEST_CASE("Stage imbalance: the schedule lets the slowest stage bound the 1F1B steady state", "[validation][stragglers]") {
  const auto c = reproduce::bytedance_last_stage_case(2, 4096);
  const StepResult r = evaluate_step(c.scenario.cluster, c.scenario.workload);
  const auto ratios = reproduce::last_stage_ratios(c.scenario.cluster, c.scenario.workload);
  // Hand calculation: 1F1B over p stages of per-microbatch work w_r takes sum w_r + (m - 1) max w_r
  // (warm-up and drain visit every stage once, the steady state runs at the slowest stage's pace);
  // the same work spread evenly takes (m + p - 1) mean w. The difference is (m - 1)(max - mean).
  double max_w = 0, mean_w = 0;
  for (size_t k = 0; k < ratios.forward_ms.size(); ++k) {
    const double w = (ratios.forward_ms[k] + ratios.backward_ms[k]) * 1e-3;
    max_w = std::max(max_w, w);
    mean_w += w / static_cast<double>(ratios.forward_ms.size());
  }
  const double hand = (r.microbatches - 1) * (max_w - mean_w);
  std::printf("\n  stage imbalance: schedule %.2f ms, hand (m - 1)(max - mean) %.2f ms, iteration %.1f ms\n",
              1e3 * step::stage_imbalance_seconds(r), 1e3 * hand, 1e3 * r.iteration_time.si());
  REQUIRE(hand > 0);
  CHECK(step::stage_imbalance_seconds(r) == Approx(hand).epsilon(0.03));  // p2p sends make the only difference (-1.8%)
  CHECK(r.critical_stage >= 0);

  // The straggler breakdown names it: seconds and ByteDance's S for this cause.
  const step::SlowdownResult s = step::evaluate_slowdown(StragglerSpec{}, c.scenario.cluster, c.scenario.workload, r);
  CHECK(s.stage_imbalance_s == Approx(step::stage_imbalance_seconds(r)));
  CHECK(s.stage_imbalance_slowdown ==
        Approx(r.iteration_time.si() / (r.iteration_time.si() - s.stage_imbalance_s)));
  CHECK(s.expected_factor == Approx(1.0));  // inside the healthy iteration: not a slowdown on top of it

  // No pipeline, no stage imbalance.
  auto w1 = c.scenario.workload;
  auto c1 = c.scenario.cluster;
  w1.parallel.pipeline_model_parallel_size = 1;
  w1.model.num_layers = 8;
  w1.training.global_batch_size = 8 * w1.training.micro_batch_size;
  CHECK(step::stage_imbalance_seconds(evaluate_step(c1, w1)) == 0.0);
}

TEST_CASE("ByteDance F15: the artifact's traces replayed through fleetsim's schedule", "[validation][stragglers]") {
  const auto cases = reproduce::bytedance_trace_cases(reproduce::kBytedanceTraceTolerance);
  REQUIRE(cases.size() == 3);
  std::printf("\n  ByteDance artifact traces, S = T / T_ideal through fleetsim's 1F1B schedule\n");
  for (const auto& v : cases) {
    const auto trace = reproduce::bytedance_trace(v.case_name.substr(0, 2));
    const auto rep = importer::replay(trace);
    std::printf("  %-44s T %8.1f ms (traced %8.1f)  T_ideal %8.1f ms  S %.3f vs %.3f  error %+5.1f%%  (tol %.0f%%)\n",
                v.case_name.c_str(), 1e3 * rep.iteration, 1e3 * trace.measured_step, 1e3 * rep.ideal_iteration,
                v.predicted, v.published, 100 * v.error, 100 * v.tolerance);
    CHECK(v.pass);
    // Before any idealization the replayed step is the traced one within 5% (F13: the authors'
    // simulator is within 5.5% of real step times at p90).
    CHECK(rep.iteration == Approx(trace.measured_step).epsilon(0.05));
  }
}

TEST_CASE("ByteDance traces: bad input is a ConfigError naming the file", "[stragglers]") {
  const std::string dir = testing::source_dir() + "/data/supplement/";
  const std::string summary = dir + "bytedance_straggler_traces.csv", mb = dir + "bytedance_straggler_microbatches.csv";
  CHECK_THROWS_AS(importer::read_bytedance_trace(summary, mb, "XX"), ConfigError);
  CHECK_THROWS_AS(importer::read_bytedance_trace(dir + "no-such.csv", mb, "ST"), ConfigError);
  CHECK_THROWS_AS(importer::read_bytedance_trace(summary, dir + "korthikanti2022_table4.csv", "ST"), ConfigError);
}
