// Data-parallel overlap at scale (issue 12, part B): Megatron's overlap_grad_reduce /
// overlap_param_gather with the distributed optimizer, on H100, at a fixed layout and a fixed
// global batch, so the microbatches per replica shrink as GPUs are added.
//
// 1. The published trend: Megatron-LM's README (commit f2e5db40, Megatron-Core r0.8.0) strong-
//    scales its 177B GPT at 1,152 sequences from 96 to 4,608 H100, MFU 47% -> 42%
//    (data/validation/other_scale_runs.csv). The README gives no layout per point;
//    scenarios/megatron-gpt177b-h100.yaml assumes TP 8, PP 6, 4 chunks per rank throughout.
//    Checked: the MFU ratio 4,608 / 96 GPUs. Published 42/47 = 0.894; both values are rounded to
//    whole percent, so the published ratio lies in [41.5/47.5, 42.5/46.5] = [0.874, 0.914]; the
//    tolerance adds 0.02 for the unknown layout: [0.854, 0.934].
// 2. A fixed layout from 512 to 12,288 H100 (same model, TP 8, PP 8, 3 chunks per rank, 1,536
//    sequences: 192 down to 8 microbatches per replica), printing what is exposed and what the
//    overlap costs at each scale.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "sim/config/load.hpp"
#include "sim/step/step_model.hpp"

using namespace fleetsim;

namespace {

Scenario at(int gpus, std::vector<std::string> extra = {}) {
  extra.push_back("cluster.gpus=" + std::to_string(gpus));
  return config::load_scenario("megatron-gpt177b-h100", extra);
}

Scenario fixed_layout(int gpus, std::vector<std::string> extra = {}) {
  extra.insert(extra.begin(), {"workload.parallel.pipeline_model_parallel_size=8",
                               "workload.parallel.virtual_pipeline_model_parallel_size=3",
                               "workload.training.global_batch_size=1536"});
  return at(gpus, extra);
}

void print(int gpus, const StepResult& r) {
  const auto& b = r.breakdown;
  std::printf("  %6d GPUs  DP %4d  m %4d  MFU %.3f  iter %7.3f s  bubble %.3f  DP exposed %.3f (gather stall %.3f)"
              "  hidden %.3f  contention %.3f s\n",
              gpus, r.data_parallel_size, r.microbatches, r.mfu, r.iteration_time.si(), b.bubble.si(), b.dp_comm.si(),
              b.gather_stall.si(), b.overlapped_comm.si(), b.overlap_contention.si());
}

}  // namespace

TEST_CASE("Megatron-LM 177B strong scaling on H100: the MFU ratio 4,608 / 96 GPUs within [0.854, 0.934]",
          "[validation]") {
  std::printf("\n  Megatron-LM 177B, 1,152 sequences, TP 8 PP 6 VPP 4 (assumed), published MFU 47%% -> 42%%\n");
  std::vector<double> mfu;
  for (int g : {96, 192, 384, 768, 1152, 2304, 4608}) {
    const Scenario s = at(g);
    const StepResult r = evaluate_step(s.cluster, s.workload);
    REQUIRE(r.fits_in_memory);
    print(g, r);
    mfu.push_back(r.mfu);
  }
  const double ratio = mfu.back() / mfu.front();
  std::printf("  MFU ratio 4,608 / 96 GPUs: predicted %.3f, published 0.894 (rounding range 0.874-0.914), "
              "tolerance 0.854-0.934\n", ratio);
  CHECK(ratio >= 0.854);
  CHECK(ratio <= 0.934);
  for (size_t i = 1; i < mfu.size(); ++i) CHECK(mfu[i] <= mfu[i - 1] + 1e-9);
}

TEST_CASE("at a fixed layout from 512 to 12,288 H100, fewer microbatches expose more of the DP traffic",
          "[validation]") {
  std::printf("\n  Megatron-LM 177B, 1,536 sequences, TP 8 PP 8 VPP 3, distributed optimizer, overlap on\n");
  double prev_mfu = 1.0, prev_share = -1.0;
  for (int g : {512, 1024, 2048, 4096, 6144, 12288}) {
    const Scenario s = fixed_layout(g);
    const StepResult r = evaluate_step(s.cluster, s.workload);
    REQUIRE(r.fits_in_memory);
    print(g, r);
    const double share = (r.breakdown.dp_comm + r.breakdown.overlap_contention).si() / r.iteration_time.si();
    CHECK(r.mfu <= prev_mfu + 1e-9);
    CHECK(share >= prev_share - 1e-9);
    prev_mfu = r.mfu;
    prev_share = share;
  }
  // Each overlap switched off, at the largest scale: the iteration gets longer.
  const double base = evaluate_step(fixed_layout(12288).cluster, fixed_layout(12288).workload).iteration_time.si();
  for (const char* key : {"workload.parallel.overlap_grad_reduce=false", "workload.parallel.overlap_param_gather=false"}) {
    const Scenario s = fixed_layout(12288, {key});
    const StepResult r = evaluate_step(s.cluster, s.workload);
    std::printf("  12,288 GPUs with %s: iteration %.3f s (overlap on: %.3f s)\n", key, r.iteration_time.si(), base);
    CHECK(r.iteration_time.si() > base);
  }
  // Overlap made free (no SM or HBM contention): shorter.
  const Scenario free = fixed_layout(12288, {"workload.parallel.overlap_sm_contention=false",
                                             "workload.parallel.overlap_hbm_contention=false"});
  const double t_free = evaluate_step(free.cluster, free.workload).iteration_time.si();
  std::printf("  12,288 GPUs with free overlap: iteration %.3f s\n", t_free);
  CHECK(t_free < base);
}
