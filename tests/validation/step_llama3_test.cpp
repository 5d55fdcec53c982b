// Llama 3 405B as Meta ran it (arXiv:2407.21783 §3.3.2): its own pipeline schedule and no dropout
// let the published 8K-GPU layout fit, and the 15.6T-token pre-training against the model card's
// 30.84M H100 GPU-hours (Llama 3.1 model card; data/validation/llama3_facts.csv).
#include <catch2/catch.hpp>

#include <cstdio>

#include "sim/config/load.hpp"
#include "sim/pipeline/run_pipeline.hpp"
#include "sim/step/validation.hpp"

using namespace fleetsim;

TEST_CASE("Llama 3's schedule fits the published 8K-GPU layout (TP 8, PP 16, DP 64, 32 microbatches) in 80 GB",
          "[validation]") {
  for (const auto& c : step::llama3_table4_cases()) {
    const StepResult r = evaluate_step(c.scenario.cluster, c.scenario.workload);
    std::printf("  %-72s memory %.1f of %.1f GiB usable, MFU %.1f%% (published %.0f%%)\n", c.name.c_str(),
                units::to_gib(r.memory_per_gpu), units::to_gib(r.usable_memory), 100 * r.mfu, c.published);
    INFO(c.name << ": " << r.memory_message);
    CHECK(r.fits_in_memory);
  }
}

// KNOWN GAP: today -15.2% (26.16M GPU-hours: the iteration model's MFU is 45.8% against the
// published 41%, Table 4 row 2, test in step_published_test.cpp). The bound below is today's error;
// the target is 10% (issue 12). What is missing is at scale (the 8-16 GPU NeMo rows are met):
// DP communication that FP8/fast compute no longer hides, overlap costs (issue 12, part B).
TEST_CASE("Llama 3 405B's 15.6T tokens on 16,384 H100 come within 17% of the model card's 30.84M GPU-hours (target 10%)",
          "[validation][run]") {
  // The default scenario (Table 4's 16K row, Table 5's failure rates, warm spares, async
  // checkpoints) run until 15.6T tokens are trained: GPU-hours = wall clock x GPUs, so the
  // iteration model and the ETTR of the run model both enter. The model card's figure covers all
  // of pre-training (8K and 16K GPUs, the long-context stage); the 16K row stands for the whole.
  const Scenario s = config::load_scenario(
      "llama3-405b-16k", {"workload.training.train_tokens=15.6T", "run.duration=400 d", "run.replications=20"});
  PipelineOptions o;
  o.threads = 2;
  const PipelineResult r = run_pipeline(s, o);
  double days = 0, ettr = 0;
  for (const auto& rep : r.run.replications) { days += rep.wall_clock_days; ettr += rep.ettr; }
  days /= static_cast<double>(r.run.replications.size());
  ettr /= static_cast<double>(r.run.replications.size());
  const double gpu_hours = days * 24.0 * s.cluster.gpus;
  const double published = 30.84e6;
  std::printf("  15.6T tokens: MFU %.1f%%, ETTR %.3f, %.1f days, %.2fM GPU-hours (model card 30.84M, error %+.1f%%)\n",
              100 * r.step.mfu, ettr, days, gpu_hours / 1e6, 100 * (gpu_hours - published) / published);
  CHECK(std::abs(gpu_hours - published) / published <= 0.17);
}
