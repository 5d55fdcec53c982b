// Stragglers in a ByteDance-like cluster (issue 27; scenarios/stragglers-bytedance.yaml and its
// header for the calibration / judged split; data/validation/stragglers_failslow.csv).
// Calibration (fitted, one parameter each): F08 39.3% of jobs with the last pipeline stage as the
// majority cause, F10 21.4% of straggling jobs with sequence-length imbalance, F05 1.7% of
// straggling jobs dominated by a bad host. Judged: F01 42.5% of jobs >= 10% slower (within 8
// points: met), F03 10.4% of allocated GPU-hours wasted (target 3 points: NOT met, see below).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include "sim/config/load.hpp"
#include "sim/pool/pool_model.hpp"
#include "sim/pool/stragglers.hpp"
#include "sim/results/report.hpp"
#include "tests/test_paths.hpp"

namespace {

struct Shares {
  double straggling = 0, waste = 0, last_stage = 0, sequence = 0, host = 0;
};

Shares mean_shares(const fleetsim::pool::PoolResult& r) {
  Shares s;
  double n = 0;
  for (const auto& p : r.replications) {
    s.straggling += static_cast<double>(p.straggling_jobs) / static_cast<double>(p.straggler_jobs);
    s.waste += p.straggler_wasted_gpu_hours / p.straggler_counted_gpu_hours;
    s.last_stage += static_cast<double>(p.last_stage_majority_jobs) / static_cast<double>(p.straggler_jobs);
    s.sequence += static_cast<double>(p.sequence_straggling_jobs) / static_cast<double>(p.straggling_jobs);
    s.host += static_cast<double>(p.host_majority_straggling_jobs) / static_cast<double>(p.straggling_jobs);
    n += 1;
  }
  s.straggling /= n, s.waste /= n, s.last_stage /= n, s.sequence /= n, s.host /= n;
  return s;
}

}  // namespace

TEST_CASE("a ByteDance-like cluster: 42.5% of jobs straggle (within 8 points); the GPU-hour waste is a known gap",
          "[validation][pool][stragglers]") {
  const std::string file = fleetsim::testing::source_dir() + "/scenarios/stragglers-bytedance.yaml";
  const auto r = fleetsim::pool::simulate_pool(fleetsim::config::load_scenario(file));
  REQUIRE(r.replications.size() == 8);
  for (const auto& p : r.replications) REQUIRE(p.straggler_jobs > 100);
  const Shares s = mean_shares(r);
  std::printf("stragglers-bytedance (8 replications):\n"
              "  calibration  last-stage majority %.1f%% (F08 39.3%%), sequence imbalance %.1f%% of straggling (F10 21.4%%), "
              "bad-host majority %.2f%% of straggling (F05 1.7%%)\n"
              "  judged       straggling jobs %.1f%% vs 42.5%% (F01, %+.1f points); GPU-hours wasted %.1f%% vs 10.4%% (F03, %+.1f points)\n",
              100 * s.last_stage, 100 * s.sequence, 100 * s.host, 100 * s.straggling, 100 * (s.straggling - 0.425),
              100 * s.waste, 100 * (s.waste - 0.104));
  // The calibration holds (each fitted statistic within 3 points / 1 point for the rare bad hosts).
  CHECK(std::abs(s.last_stage - 0.393) < 0.03);
  CHECK(std::abs(s.sequence - 0.214) < 0.03);
  CHECK(std::abs(s.host - 0.017) < 0.01);
  // Judged: F01 within 8 points (the target).
  CHECK(std::abs(s.straggling - 0.425) < 0.08);
  // Judged: F03. Known gap: today 19.0% vs 10.4% (+8.6 points); target 3 points. Most of it is
  // the 8,192-GPU jobs (3.6% of jobs, about half the GPU-hours with equal run times) that hold a
  // ~3x bad host in 12% of draws (F05/F06 fix that rate; without bad hosts the share is ~11%):
  // run times by job size are not published. The bound is today's error.
  CHECK(std::abs(s.waste - 0.104) < 0.095);
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
