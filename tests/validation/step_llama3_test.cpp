// Llama 3 405B as Meta ran it (arXiv:2407.21783 §3.3.2): its own pipeline schedule and no dropout
// let the published 8K-GPU layout fit, and the 15.6T-token pre-training against the model card's
// 30.84M H100 GPU-hours (Llama 3.1 model card; data/validation/llama3_facts.csv).
#include <catch2/catch.hpp>

#include <cstdio>

#include "sim/config/load.hpp"
#include "sim/pipeline/run_pipeline.hpp"
#include "sim/reproduce/step_sources.hpp"

using namespace fleetsim;

TEST_CASE("Llama 3's schedule fits the published 8K-GPU layout (TP 8, PP 16, DP 64, 32 microbatches) in 80 GB",
          "[validation]") {
  for (const auto& c : reproduce::llama3_table4_cases()) {
    const StepResult r = evaluate_step(c.scenario.cluster, c.scenario.workload);
    std::printf("  %-72s memory %.1f of %.1f GiB usable, MFU %.1f%% (published %.0f%%)\n", c.name.c_str(),
                units::to_gib(r.memory_per_gpu), units::to_gib(r.usable_memory), 100 * r.mfu, c.published);
    INFO(c.name << ": " << r.memory_message);
    CHECK(r.fits_in_memory);
  }
}

// KNOWN GAP (issue 12; target 10%). What the model card's 30.84M H100-hours covers: "training
// time", the total GPU time of training the 405B (Llama 3.1 model card), i.e. all of pre-training
// (Llama 3 §3.4: initial pre-training, long-context pre-training of ~800B tokens in six stages
// from 8K to 128K, annealing on 40M tokens) with its failures and restarts; whether fine-tuning
// or the ablations are in it, and whether the 15.6T tokens include the 800B long-context ones,
// the card does not say. The composition here: the 14.8T tokens before the long-context stage
// at Table 4's 16K row (the default scenario, run model with Table 5's failures, so ETTR enters),
// plus the 800B long-context tokens at the same ETTR and at either end of what public data
// allows (the per-stage token split is not published): all at 8K (lower end) or all at Table 4's
// 128K row (CP 16; higher FLOPs per token and lower MFU: upper end). Today -15.2% and -10.7%;
// both ends are bounded at 16% (the error of the iteration model at 16K, +4.8 MFU points, is
// most of it: at the published 41% and 38% the same composition gives 29.2M to 30.3M).
TEST_CASE("Llama 3 405B's 15.6T tokens on 16,384 H100 (target: within 10% of the model card's 30.84M GPU-hours): today within 16%",
          "[validation][run]") {
  const double published = 30.84e6;
  const double total_tokens = 15.6e12, long_context_tokens = 0.8e12;
  const Scenario s = config::load_scenario(
      "llama3-405b-16k", {"workload.training.train_tokens=14.8T", "run.duration=400 d", "run.replications=20"});
  PipelineOptions o;
  o.threads = 2;
  const PipelineResult r = run_pipeline(s, o);
  const double days = mean_over_replications(r.run, [](const ReplicationResult& x) { return x.wall_clock_days; });
  const double ettr = mean_over_replications(r.run, [](const ReplicationResult& x) { return x.ettr; });
  const double initial_hours = days * 24.0 * s.cluster.gpus;
  // GPU-hours of `tokens` trained with one iteration of step result `st` on `gpus`, at the run's ETTR.
  auto hours = [&](const StepResult& st, double tokens, int gpus) {
    return tokens / st.tokens_per_iteration.si() * st.iteration_time.si() * gpus / 3600.0 / ettr;
  };
  const auto rows = reproduce::llama3_table4_cases();
  REQUIRE(rows.size() == 3);
  const StepResult at_8k = evaluate_step(rows[1].scenario.cluster, rows[1].scenario.workload);
  const StepResult at_128k = evaluate_step(rows[2].scenario.cluster, rows[2].scenario.workload);
  const double low = initial_hours + hours(at_8k, long_context_tokens, rows[1].scenario.cluster.gpus);
  const double high = initial_hours + hours(at_128k, long_context_tokens, rows[2].scenario.cluster.gpus);
  std::printf("  14.8T tokens at 16K GPUs, seq 8K: MFU %.1f%%, ETTR %.3f, %.1f days, %.2fM GPU-hours\n", 100 * r.step.mfu,
              ettr, days, initial_hours / 1e6);
  std::printf("  + 0.8T long-context tokens: all at seq 8K %.2fM, all at seq 128K (MFU %.1f%%) %.2fM GPU-hours\n",
              (low - initial_hours) / 1e6, 100 * at_128k.mfu, (high - initial_hours) / 1e6);
  std::printf("  %.1fT tokens: %.2fM to %.2fM GPU-hours (model card 30.84M: error %+.1f%% to %+.1f%%)\n",
              total_tokens / 1e12, low / 1e6, high / 1e6, 100 * (low - published) / published,
              100 * (high - published) / published);
  CHECK(std::abs(low - published) / published <= 0.16);
  CHECK(std::abs(high - published) / published <= 0.16);
}
