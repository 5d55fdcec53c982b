// Unit tests of the data-parallel overlap model (sim/step/compose.cpp, sim/step/overlap.hpp):
// what overlaps with what, what it costs, and the keys that switch each mechanism off.
#include <catch2/catch.hpp>

#include "tests/unit/test_fixtures.hpp"

#include "sim/step/overlap.hpp"
#include "sim/step/step_model.hpp"

using namespace fleetsim;

namespace {

ClusterSpec cluster(int gpus) { return testing::a100_like_cluster(gpus); }

// A 24-layer h 4096 GPT on 256 GPUs: TP 8, PP 2, DP 16, distributed optimizer, 4 microbatches
// per replica: little compute per replica, so the data-parallel traffic matters.
WorkloadSpec short_compute() {
  WorkloadSpec w = testing::gpt(24, 4096, 32);
  w.parallel.tensor_model_parallel_size = 8;
  w.parallel.pipeline_model_parallel_size = 2;
  w.parallel.use_distributed_optimizer = true;
  w.parallel.zero_stage = 1;
  w.training.global_batch_size = 64;
  return w;
}

// ZeRO-3 on TP 2, PP 2, VPP 4, DP 64 with one microbatch of 4 per replica: every chunk's
// weights are gathered again for each forward and backward.
WorkloadSpec zero3() {
  WorkloadSpec w = testing::gpt(32, 4096, 32);
  w.parallel.tensor_model_parallel_size = 2;
  w.parallel.pipeline_model_parallel_size = 2;
  w.parallel.virtual_pipeline_model_parallel_size = 4;
  w.parallel.sequence_parallel = true;
  w.parallel.zero_stage = 3;
  w.training.micro_batch_size = 1;
  w.training.global_batch_size = 256;
  return w;
}

double t(const WorkloadSpec& w, int gpus) { return evaluate_step(cluster(gpus), w).iteration_time.si(); }

}  // namespace

TEST_CASE("NCCL's SM share and HBM traffic slow the compute they overlap", "[unit]") {
  ClusterSpec c = cluster(8);
  ParallelSpec par;
  const step::OverlapContention on = step::overlap_contention(c.gpu, par);
  CHECK(on.sm_share == Approx(20.0 / 108.0));
  // GEMM-only compute loses the SM share; memory-bound compute the HBM share of the traffic:
  // 25 GB/s over the network is 125 GB/s through HBM, of 2 TB/s x 0.8.
  CHECK(on.delay_per_second(1.0, 25e9) == Approx(20.0 / 108.0));
  CHECK(on.delay_per_second(0.0, 25e9) == Approx(5.0 * 25e9 / 1.6e12));
  par.overlap_sm_contention = false;
  par.overlap_hbm_contention = false;
  const step::OverlapContention off = step::overlap_contention(c.gpu, par);
  CHECK(off.delay_per_second(0.7, 25e9) == 0.0);
}

TEST_CASE("overlapped data-parallel communication costs compute time, and each key switches it off", "[unit]") {
  WorkloadSpec w = short_compute();
  const StepResult r = evaluate_step(cluster(256), w);
  CHECK(r.breakdown.overlap_contention.si() > 0);
  // The contention is part of the compute term; the breakdown still adds up.
  const auto& b = r.breakdown;
  const Seconds sum = b.compute + b.tp_comm + b.pp_comm + b.dp_comm + b.cp_comm + b.ep_comm + b.bubble + b.optimizer;
  CHECK(sum.si() == Approx(r.iteration_time.si()).epsilon(1e-9));
  w.parallel.overlap_sm_contention = false;
  const StepResult no_sm = evaluate_step(cluster(256), w);
  w.parallel.overlap_hbm_contention = false;
  const StepResult free = evaluate_step(cluster(256), w);
  CHECK(free.breakdown.overlap_contention.si() == 0.0);
  CHECK(free.iteration_time.si() < no_sm.iteration_time.si());
  CHECK(no_sm.iteration_time.si() < r.iteration_time.si());
  // Fewer SMs for NCCL, less slowdown.
  w = short_compute();
  w.parallel.dp_comm_sms = 8;
  CHECK(t(w, 256) < r.iteration_time.si());
}

TEST_CASE("without overlap the parameter all-gather stalls the next iteration for its whole length", "[unit]") {
  // Interleaved: Megatron dispatches a chunk's buckets together, the next chunk's while the rank
  // computes this one, so only the first chunk's gather can stall the first forward.
  WorkloadSpec w = short_compute();
  w.parallel.virtual_pipeline_model_parallel_size = 2;
  const StepResult overlapped = evaluate_step(cluster(256), w);
  w.parallel.overlap_param_gather = false;
  const StepResult serial = evaluate_step(cluster(256), w);
  CHECK(serial.breakdown.gather_stall.si() > overlapped.breakdown.gather_stall.si());
  CHECK(serial.iteration_time.si() > overlapped.iteration_time.si());
  // With overlap only the first chunk's gathers (those the forward outruns) stall.
  CHECK(overlapped.breakdown.gather_stall.si() > 0);
  CHECK(overlapped.breakdown.gather_stall.si() < 0.5 * serial.breakdown.gather_stall.si());
}

TEST_CASE("a slower network never finishes sooner, with or without overlap", "[unit]") {
  for (bool overlap : {true, false}) {
    WorkloadSpec w = short_compute();
    w.parallel.overlap_grad_reduce = overlap;
    w.parallel.overlap_param_gather = overlap;
    const ClusterSpec c = cluster(256);
    const double fast = evaluate_step(c, w).iteration_time.si();
    const double slow = evaluate_step(c, w, StepOptions{1.0, 0.25}).iteration_time.si();
    CHECK(slow >= fast);
  }
}

TEST_CASE("ZeRO-3 gathers hide only behind the ops the prefetch depth allows", "[unit]") {
  WorkloadSpec w = zero3();
  const StepResult limited = evaluate_step(cluster(256), w);
  w.parallel.fsdp_prefetch_ops = 0;  // unlimited: gathers stream behind the whole pipeline
  const StepResult unlimited = evaluate_step(cluster(256), w);
  w.parallel.fsdp_prefetch_ops = 4;
  const StepResult deep = evaluate_step(cluster(256), w);
  CHECK(unlimited.breakdown.prefetch_exposed.si() == 0.0);
  CHECK(limited.breakdown.prefetch_exposed.si() > 0);
  CHECK(limited.iteration_time.si() > unlimited.iteration_time.si());
  CHECK(deep.iteration_time.si() <= limited.iteration_time.si());
  CHECK(deep.iteration_time.si() >= unlimited.iteration_time.si());
  // Each chunk gathered ahead is held unsharded: a deeper prefetch costs memory.
  CHECK(deep.memory_per_gpu.si() > limited.memory_per_gpu.si());
}
