// Stragglers in a ByteDance-like cluster (issue 27; scenarios/stragglers-bytedance.yaml and its
// header for the calibration / judged split; data/validation/stragglers_failslow.csv). The cases
// are sim/reproduce/pool_stragglers.cpp (`fleetsim validate --only pool`).
// Calibration (fitted, one parameter each): F08 39.3% of jobs with the last pipeline stage as the
// majority cause, F10 21.4% of straggling jobs with sequence-length imbalance, F05 1.7% of
// straggling jobs dominated by a bad host, F02's p90 (just over 10% of jobs waste >= 21.3%). Input
// from another study (not fitted): how long a job
// keeps a slow host (Greyhound, ATC'25: sub-minutes to nearly ten hours). Judged: F01 42.5% of
// jobs >= 10% slower (within 8 points), F03 10.4% of allocated GPU-hours wasted (within 3
// points). Checks that come out of the model: F02's far tail (~1% waste >= 45%), F06's 3.04x of
// host-dominated jobs, and ByteDance's Sec 4.4 (no obvious positive correlation of slowdown and
// job size; printed only: the model has one, see sim/pool/README.md).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include "sim/pool/stragglers.hpp"
#include "sim/reproduce/pool_sources.hpp"

TEST_CASE("a ByteDance-like cluster: 42.5% of jobs straggle (within 8 points) and 10.4% of GPU-hours are wasted (within 3 points)",
          "[validation][pool][stragglers]") {
  const auto r = fleetsim::reproduce::stragglers_reproduction();
  REQUIRE(r.replications == 8);
  REQUIRE(r.runs > 1000);
  std::printf("stragglers-bytedance (%d replications):\n"
              "  calibration  last-stage majority %.1f%% (F08 39.3%%), sequence imbalance %.1f%% of straggling (F10 21.4%%), "
              "bad-host majority %.2f%% of straggling (F05 1.7%%)\n"
              "  judged       straggling jobs %.1f%% [p05 %.1f, p95 %.1f] vs 42.5%% (F01, %+.1f points)\n"
              "               GPU-hours wasted %.1f%% [p05 %.1f, p95 %.1f] vs 10.4%% (F03, %+.1f points)\n"
              "  calibration  runs wasting >= 21.3%%: %.1f%% (F02: just over 10%%)\n"
              "  checks       runs wasting >= 45%%: %.2f%% (F02: ~1%%)\n"
              "               host-dominated runs S = %.2f (F06 3.04); %lld of %lld runs end with a slow host swapped out\n"
              "               mean waste of jobs <= 256 GPUs %.1f%%, >= 4096 GPUs %.1f%% (Sec 4.4: no obvious positive correlation)\n",
              r.replications, 100 * r.last_stage, 100 * r.sequence, 100 * r.host, 100 * r.straggling, 100 * r.straggling_p05,
              100 * r.straggling_p95, 100 * (r.straggling - 0.425), 100 * r.waste, 100 * r.waste_p05, 100 * r.waste_p95,
              100 * (r.waste - 0.104), 100 * r.waste_ge_21, 100 * r.waste_ge_45, r.host_majority_slowdown,
              static_cast<long long>(r.slow_host_restarts), static_cast<long long>(r.runs), 100 * r.small_job_waste,
              100 * r.large_job_waste);
  // The calibration holds (each fitted statistic within 3 points / 1 point for the rare bad hosts).
  CHECK(std::abs(r.last_stage - 0.393) < 0.03);
  CHECK(std::abs(r.sequence - 0.214) < 0.03);
  CHECK(std::abs(r.host - 0.017) < 0.01);
  CHECK(std::abs(r.waste_ge_21 - 0.10) < 0.03);
  // Judged: F01 within 8 points and F03 within 3 points (the targets).
  CHECK(std::abs(r.straggling - 0.425) < 0.08);
  CHECK(std::abs(r.waste - 0.104) < 0.03);
  // Checks: F02's ~1% at 45% waste within 1 point; F06 within 15%.
  CHECK(std::abs(r.waste_ge_45 - 0.01) < 0.01);
  CHECK(std::abs(r.host_majority_slowdown / 3.04 - 1.0) < 0.15);
  REQUIRE(r.cases.size() == 8);
  for (const auto& c : r.cases) {
    INFO(c.case_name << ": " << c.predicted << " vs " << c.published);
    CHECK(c.scenario == "stragglers-bytedance");
    CHECK(c.pass);
  }
}

TEST_CASE("the last-stage imbalance of ByteDance's 4-stage, 9-layer example follows from the loss layer", "[unit][pool][stragglers]") {
  // F09: forward 2.07x and backward 1.41x of a stage's 9 layers are the loss layer's 9.63 and
  // 7.38 layer forwards; with many microbatches the pipeline runs at the last stage's pace:
  // (27 + 17.01) / ((4 x 27 + 17.01) / 4) = 1.408.
  const double s = fleetsim::pool::last_stage_slowdown(4, 9, 1000, 9.63, 7.38);
  CHECK(s == Approx(44.01 / (125.01 / 4)).epsilon(0.01));
  // A pipeline of one stage, or no loss layer, has no imbalance.
  CHECK(fleetsim::pool::last_stage_slowdown(1, 9, 16, 9.63, 7.38) == Approx(1.0));
  CHECK(fleetsim::pool::last_stage_slowdown(4, 9, 16, 0, 0) == Approx(1.0));
}

TEST_CASE("per-job straggler draws are deterministic and at least 1", "[unit][pool][stragglers]") {
  fleetsim::PoolStragglerSpec s;
  s.enabled = true;
  s.pipeline_share = 0.8;
  s.loss_layer_forward = 9.63;
  s.loss_layer_backward = 7.38;
  s.sequence_imbalance_share = 0.5;
  s.gc_unsynchronized_share = 0.5;
  s.slow_host_node_probability = 1e-3;
  for (std::uint64_t job = 0; job < 200; ++job) {
    const auto a = fleetsim::pool::draw_job_slowdown(s, 1024, 7, 0, job);
    const auto b = fleetsim::pool::draw_job_slowdown(s, 1024, 7, 0, job);
    CHECK(a.slowdown == b.slowdown);
    CHECK(a.slowdown >= 1.0);
    CHECK(a.slowdown == Approx(a.stage * a.sequence * a.gc * a.host * a.variation));
  }
}

TEST_CASE("a slow host swapped out after its episode: the work is kept and the rest runs without it", "[unit][pool][stragglers]") {
  fleetsim::PoolStragglerSpec s;
  s.enabled = true;
  s.slow_host_node_probability = 1.0;  // every job holds a slow host
  s.slow_host_slowdown_median = 3.0;
  s.slow_host_slowdown_sigma = 0.0;
  s.gc_unsynchronized_share = 1.0;     // and a second cause that stays after the swap
  s.gc_pause_s = 0.3;
  s.step_time_sigma = 0.0;
  s.step_time_median_s = 3.0;
  s.slow_host_episode_min_s = s.slow_host_episode_max_s = 3600.0;
  std::vector<fleetsim::pool::JobSpec> jobs(2);
  jobs[0].gpus = jobs[1].gpus = 1024;
  jobs[0].submit = jobs[1].submit = 100.0;
  jobs[0].duration = 10 * 3600.0;  // ideal 10 h: slow for 1 h, then the rest
  jobs[1].duration = 600.0;        // ideal 10 min: over before the host is found
  const auto d = fleetsim::pool::draw_job_slowdown(s, 1024, 7, 0, 0);
  REQUIRE(d.host == Approx(3.0));
  REQUIRE(d.host_episode_s == Approx(3600.0));
  const double S = d.slowdown, rest = d.without_host();
  REQUIRE(rest > 1.0);
  const auto c = fleetsim::pool::apply_stragglers(s, jobs, 7, 0, 0.0);
  // 1 h at S does 1/S h of the work; the other 10 - 1/S h run at the slowdown without the host.
  const double rest_wall = (10 * 3600.0 - 3600.0 / S) * rest;
  CHECK(jobs[0].duration == Approx(3600.0 + rest_wall));
  CHECK(jobs[0].straggler_waste == Approx((3600.0 * (1 - 1 / S) + rest_wall * (1 - 1 / rest)) / jobs[0].duration).epsilon(1e-5));
  // The short job keeps its slow host to the end.
  const double S1 = fleetsim::pool::draw_job_slowdown(s, 1024, 7, 0, 1).slowdown;
  CHECK(jobs[1].duration == Approx(600.0 * S1));
  CHECK(jobs[1].straggler_waste == Approx(1 - 1 / S1).epsilon(1e-5));
  // Three traced runs: the slow stretch, the rest, and the short job.
  CHECK(c.slow_host_restarts == 1);
  CHECK(c.counted == 3);
  CHECK(c.host_majority_straggling == 2);
}

TEST_CASE("without an episode length a slow host stays to the end (the earlier model)", "[unit][pool][stragglers]") {
  fleetsim::PoolStragglerSpec s;
  s.enabled = true;
  s.slow_host_node_probability = 1.0;
  s.slow_host_slowdown_median = 3.0;
  s.slow_host_slowdown_sigma = 0.0;
  std::vector<fleetsim::pool::JobSpec> jobs(1);
  jobs[0].gpus = 1024;
  jobs[0].duration = 10 * 3600.0;
  const auto c = fleetsim::pool::apply_stragglers(s, jobs, 7, 0, 0.0);
  CHECK(jobs[0].duration == Approx(3 * 10 * 3600.0));
  CHECK(c.slow_host_restarts == 0);
  CHECK(c.counted == 1);
}
