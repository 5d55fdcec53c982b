// FP8 training (Transformer Engine recipes, sim/step/fp8.hpp): what changes against bf16.
#include <catch2/catch.hpp>

#include <cstdio>

#include "sim/step/fp8.hpp"
#include "sim/step/step_model.hpp"
#include "tests/unit/test_fixtures.hpp"

using namespace fleetsim;

namespace {
ClusterSpec hopper_like(int gpus) {
  ClusterSpec c = testing::a100_like_cluster(gpus);
  c.gpu.peak_bf16 = units::tflop_per_s(989);
  c.gpu.peak_fp8 = units::tflop_per_s(1979);
  c.gpu.gemm_efficiency_fp8 = 0.7;
  c.gpu.hbm_bandwidth = BytesPerSecond(3.35e12);
  c.gpu.sm_count = 132;
  return c;
}
WorkloadSpec model() {
  WorkloadSpec w = testing::gpt(8, 8192, 64);
  w.training.global_batch_size = 8;
  return w;
}
}  // namespace

TEST_CASE("fp8 runs the linear layers faster and keeps gradients, DP traffic and the optimizer as bf16", "[unit]") {
  // One GPU: compute only (with data parallelism the shorter backward hides less of the same
  // gradient traffic, a separate effect).
  WorkloadSpec w = model();
  const StepResult bf16 = evaluate_step(hopper_like(1), w);
  w.training.precision = Precision::Fp8;
  const StepResult fp8 = evaluate_step(hopper_like(1), w);
  // GEMM-bound layers: the FP8 peak is 2x, at 0.7 vs 0.8 efficiency, less the casts: faster,
  // but by less than the 2x of the peaks (attention, norms and the loss stay 16-bit).
  CHECK(fp8.iteration_time.si() < 0.8 * bf16.iteration_time.si());
  CHECK(fp8.iteration_time.si() > 0.5 * bf16.iteration_time.si());
  CHECK(fp8.peak_memory.gradients.si() == Approx(bf16.peak_memory.gradients.si()));  // fp32 main gradients
  CHECK(fp8.breakdown.optimizer.si() > bf16.breakdown.optimizer.si());  // + the weight casts
  // Model FLOPs are the same; MFU stays defined against the 16-bit peak (PaLM App. B).
  CHECK(fp8.model_flops_per_iteration.si() == Approx(bf16.model_flops_per_iteration.si()));
  CHECK(fp8.mfu > bf16.mfu);
}

TEST_CASE("fp8 keeps FP8 weight copies and saves the linear inputs in one byte", "[unit]") {
  WorkloadSpec w = model();
  const StepResult bf16 = evaluate_step(hopper_like(8), w);
  w.training.precision = Precision::Fp8;
  const StepResult fp8 = evaluate_step(hopper_like(8), w);
  CHECK(fp8.peak_memory.weights.si() > bf16.peak_memory.weights.si());
  CHECK(fp8.peak_memory.activations.si() < bf16.peak_memory.activations.si());
  CHECK(fp8.peak_memory.optimizer.si() == Approx(bf16.peak_memory.optimizer.si()));
}

TEST_CASE("current scaling pays an extra amax pass over delayed scaling", "[unit]") {
  WorkloadSpec w = model();
  w.training.precision = Precision::Fp8;
  w.training.fp8_recipe = Fp8Recipe::Delayed;
  const StepResult delayed = evaluate_step(hopper_like(8), w);
  w.training.fp8_recipe = Fp8Recipe::Current;
  const StepResult current = evaluate_step(hopper_like(8), w);
  CHECK(current.iteration_time.si() > delayed.iteration_time.si());
  CHECK(current.iteration_time.si() < 1.1 * delayed.iteration_time.si());
}

TEST_CASE("blockwise scaling casts without an amax pass and runs its GEMMs at the GPU's blockwise ratio", "[unit]") {
  // DeepSeek-V3's fine-grained FP8 (fp8.hpp): the cast computes each 1 x 128 tile's amax itself
  // and writes FP32 tile scales; the GEMM applies them per 128-wide K slice.
  CHECK(step::fp8_cast_bytes_per_element(Fp8Recipe::Blockwise) == Approx(4.0 + 8.0 / 128.0));
  CHECK(step::fp8_cast_bytes_per_element(Fp8Recipe::Blockwise) < step::fp8_cast_bytes_per_element(Fp8Recipe::Current));
  CHECK(step::fp8_cast_kernels(Fp8Recipe::Blockwise) == 1.0);
  WorkloadSpec w = model();
  w.training.precision = Precision::Fp8;
  ClusterSpec c = hopper_like(1);  // compute only, as in the first test
  w.training.fp8_recipe = Fp8Recipe::Delayed;
  const double delayed = evaluate_step(c, w).iteration_time.si();
  w.training.fp8_recipe = Fp8Recipe::Blockwise;
  c.gpu.fp8_blockwise_gemm_ratio = 1.0;  // GEMMs as per-tensor: only the casts differ (a few bytes)
  const double same_gemm = evaluate_step(c, w).iteration_time.si();
  CHECK(same_gemm > delayed);
  CHECK(same_gemm < 1.01 * delayed);
  c.gpu.fp8_blockwise_gemm_ratio = 0.8;  // 25% longer FP8 GEMMs
  const double slower = evaluate_step(c, w).iteration_time.si();
  std::printf("  blockwise: delayed %.4f s, ratio 1 %.4f s, ratio 0.8 %.4f s\n", delayed, same_gemm, slower);
  CHECK(slower > 1.05 * same_gemm);
  CHECK(slower < 1.25 * same_gemm);  // the 16-bit kernels and the casts do not slow down
}
