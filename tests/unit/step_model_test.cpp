// Unit tests of the analytical step model: FLOP accounting, activation memory, layouts and the
// composition of an iteration (sim/step/).
#include <catch2/catch.hpp>

#include "tests/unit/test_fixtures.hpp"

#include <string>

#include "sim/core/error.hpp"
#include "sim/step/flops.hpp"
#include "sim/step/layout.hpp"
#include "sim/step/memory.hpp"
#include "sim/step/step_model.hpp"

using namespace fleetsim;

namespace {
// Plain test data: an A100-like GPU in DGX-like nodes on a non-blocking rail-optimized fabric.
ClusterSpec cluster(int gpus) { return testing::a100_like_cluster(gpus); }
using testing::gpt;
}  // namespace

TEST_CASE("a GPT layer's forward is 24 s h^2 plus the causal 2 s^2 h per sequence", "[unit]") {
  const WorkloadSpec w = gpt(1, 4096, 32);
  const double s = 2048, h = 4096;
  CHECK(step::layer_forward_flops(w.model, false).forward().si() == Approx(24 * s * h * h + 2 * s * s * h));
}

TEST_CASE("Megatron's eq. 3 is four passes of the per-op count with the full attention square", "[unit]") {
  // F = 96 B s l h^2 (1 + s/6h + V/16lh) = 4 x (24 B s l h^2 + 4 B s^2 l h) + 3 x 2 B s h V:
  // the layers run forward, recompute and backward (2x); the logits are not recomputed.
  const WorkloadSpec w = gpt(24, 2048, 16);
  const double B = 64, s = 2048, l = 24, h = 2048, V = 51200;
  const double per_op = 4 * B * l * (24 * s * h * h + 4 * s * s * h) + 3 * 2 * B * s * h * V;
  CHECK(step::megatron_iteration_flops(w.model, 64).si() == Approx(per_op));
}

TEST_CASE("full recomputation adds one forward pass to the hardware FLOPs", "[unit]") {
  WorkloadSpec w = gpt(24, 2048, 16);
  const double model = step::model_flops_per_iteration(w).si();
  w.parallel.recompute_granularity = Recompute::Full;
  const double hw = step::hardware_flops_per_iteration(w).si();
  const double logits = 3 * 64 * step::logits_forward_flops(w.model).si();
  CHECK(hw - model == Approx((model - logits) / 3.0));
}

TEST_CASE("activation memory matches Korthikanti et al.'s 34 s b h / t with sequence parallelism", "[unit]") {
  WorkloadSpec w = gpt(8, 4096, 32);
  w.training.use_flash_attn = false;
  w.parallel.tensor_model_parallel_size = 8;
  w.parallel.sequence_parallel = true;
  w.parallel.recompute_granularity = Recompute::Selective;
  const auto l = step::make_layout(cluster(8), w);
  const double sbh = 2048.0 * 1 * 4096;
  CHECK(step::layer_activation_bytes(w, l, false).si() == Approx(34 * sbh / 8));
  // Table 2, TP only: s b h (10 + 24/t + 5 a s / (h t)).
  w.parallel.sequence_parallel = false;
  w.parallel.recompute_granularity = Recompute::None;
  CHECK(step::layer_activation_bytes(w, l, false).si() ==
        Approx(sbh * (10 + 24.0 / 8 + 5.0 * 32 * 2048 / (4096 * 8))));
  // Full recomputation keeps the layer input only.
  w.parallel.recompute_granularity = Recompute::Full;
  CHECK(step::layer_activation_bytes(w, l, false).si() == Approx(2 * sbh));
}

TEST_CASE("a layout that does not divide the cluster is rejected naming the key", "[unit]") {
  WorkloadSpec w = gpt(24, 2048, 16);
  w.parallel.tensor_model_parallel_size = 3;
  try {
    (void)evaluate_step(cluster(64), w);
    FAIL("expected InfeasibleError");
  } catch (const InfeasibleError& e) {
    CHECK(std::string(e.what()).find("cluster.gpus") != std::string::npos);
  }
}

TEST_CASE("an uneven pipeline_layer_split puts the given layers on each stage", "[unit]") {
  WorkloadSpec w = gpt(30, 2048, 16);
  w.parallel.pipeline_model_parallel_size = 4;
  w.parallel.virtual_pipeline_model_parallel_size = 2;
  w.parallel.pipeline_layer_split = {7, 8, 8, 7};
  const auto l = step::make_layout(cluster(64), w);
  CHECK(l.stage_layers == std::vector<int>{7, 8, 8, 7});
  // The first rank's first chunk (with the embedding) and the last rank's last chunk (with the
  // logits) are the lighter ones.
  CHECK(l.chunk_layers == std::vector<int>{3, 4, 4, 4, 4, 4, 4, 3});
}

TEST_CASE("the breakdown of an iteration adds up to its time", "[unit]") {
  WorkloadSpec w = gpt(32, 4096, 32);
  w.parallel.tensor_model_parallel_size = 8;
  w.parallel.pipeline_model_parallel_size = 4;
  w.parallel.virtual_pipeline_model_parallel_size = 2;
  w.training.global_batch_size = 512;
  const StepResult r = evaluate_step(cluster(256), w);
  const auto& b = r.breakdown;
  const Seconds sum = b.compute + b.tp_comm + b.pp_comm + b.dp_comm + b.cp_comm + b.ep_comm + b.bubble + b.optimizer;
  CHECK(sum.si() == Approx(r.iteration_time.si()).epsilon(1e-9));
  CHECK(r.mfu > 0.2);
  CHECK(r.mfu < r.hfu + 1e-12);
  CHECK(r.mfu < 1.0);
  CHECK(r.tier == "analytical");
}

TEST_CASE("a straggler's slowdown stretches compute and a degraded fabric stretches DP communication", "[unit]") {
  WorkloadSpec w = gpt(24, 4096, 32);
  w.parallel.tensor_model_parallel_size = 8;
  w.parallel.overlap_grad_reduce = false;
  w.training.global_batch_size = 256;
  const StepResult base = evaluate_step(cluster(256), w);
  const StepResult slow = evaluate_step(cluster(256), w, StepOptions{1.25, 1.0});
  const StepResult degraded = evaluate_step(cluster(256), w, StepOptions{1.0, 0.5});
  CHECK(slow.breakdown.compute.si() > 1.2 * base.breakdown.compute.si());
  CHECK(degraded.breakdown.dp_comm.si() > 1.9 * base.breakdown.dp_comm.si());
  CHECK(degraded.breakdown.tp_comm.si() == Approx(base.breakdown.tp_comm.si()));
}

TEST_CASE("bf16 reduces fp32 gradients and fp16 pays the loss-scaling passes of the optimizer", "[unit]") {
  // Megatron: bf16 forces accumulate_allreduce_grads_in_fp32 (Llama 3 §3.3.2 likewise); fp16
  // reduces 16-bit gradients, then copies them to fp32 and unscales them (52 vs 38 B/param).
  WorkloadSpec w = gpt(24, 4096, 32);
  w.parallel.tensor_model_parallel_size = 8;
  w.parallel.overlap_grad_reduce = false;
  w.training.global_batch_size = 256;
  w.training.precision = Precision::Bf16;
  const StepResult bf16 = evaluate_step(cluster(256), w);
  w.training.precision = Precision::Fp16;
  const StepResult fp16 = evaluate_step(cluster(256), w);
  CHECK(bf16.breakdown.dp_comm.si() > 1.8 * fp16.breakdown.dp_comm.si());
  CHECK(bf16.breakdown.dp_comm.si() < 2.0 * fp16.breakdown.dp_comm.si() + 1e-9);
  CHECK(fp16.breakdown.optimizer.si() > bf16.breakdown.optimizer.si());
  CHECK(bf16.breakdown.compute.si() > fp16.breakdown.compute.si());  // fp32 accumulation traffic
  CHECK(bf16.memory_per_gpu.si() == Approx(fp16.memory_per_gpu.si()));
}

TEST_CASE("under ZeRO-3 a slower GPU never finishes the iteration sooner", "[unit]") {
  // The per-microbatch weight gathers stream during the whole pipeline (compose.cpp); when they
  // dominate, a slower GPU hides more of them but cannot end earlier than the healthy one.
  WorkloadSpec w = gpt(24, 4096, 32);
  w.parallel.pipeline_model_parallel_size = 4;
  w.parallel.zero_stage = 3;
  w.training.global_batch_size = 256;
  for (const double slowdown : {1.0, 1.1, 1.3, 2.0}) {
    const StepResult base = evaluate_step(cluster(256), w);
    const StepResult slow = evaluate_step(cluster(256), w, StepOptions{slowdown, 1.0});
    CHECK(slow.iteration_time.si() >= base.iteration_time.si() - 1e-12);
  }
}

TEST_CASE("a layout that does not fit says how much memory it needs and has", "[unit]") {
  WorkloadSpec w = gpt(96, 12288, 96);
  w.training.global_batch_size = 64;
  const StepResult r = evaluate_step(cluster(64), w);
  CHECK_FALSE(r.fits_in_memory);
  CHECK(r.memory_message.find("GiB per GPU") != std::string::npos);
  CHECK(r.memory_message.find("test-gpu") != std::string::npos);
  CHECK_THROWS_AS(require_fits_in_memory(r), InfeasibleError);
}

TEST_CASE("the distributed optimizer shards optimizer states over the data-parallel group", "[unit]") {
  WorkloadSpec w = gpt(24, 2048, 16);
  w.training.global_batch_size = 256;
  const StepResult plain = evaluate_step(cluster(64), w);
  w.parallel.use_distributed_optimizer = true;
  const StepResult sharded = evaluate_step(cluster(64), w);
  CHECK(sharded.peak_memory.optimizer.si() == Approx(plain.peak_memory.optimizer.si() / 64));
  CHECK(sharded.memory_per_gpu < plain.memory_per_gpu);
}

TEST_CASE("ZeRO-3 / FSDP keeps one layer unsharded plus the prefetched one, not the whole pipeline chunk", "[unit]") {
  // FSDP gathers and frees one wrapped unit (a transformer block) at a time (PyTorch FSDP /
  // FSDP2, Megatron-FSDP), so with PP 1 (one chunk of all 24 layers) the unsharded weights are
  // two layers' worth, the same as with one layer per chunk.
  WorkloadSpec w = gpt(24, 2048, 16);
  w.training.global_batch_size = 256;
  w.parallel.tensor_model_parallel_size = 1;
  w.parallel.use_distributed_optimizer = true;
  w.parallel.zero_stage = 3;
  w.parallel.fsdp_reshard_after_forward = true;
  const StepResult r = evaluate_step(cluster(64), w);
  const double layer = 12.0 * 2048.0 * 2048.0;           // ~ the 12 h^2 weights of one layer
  const double total = 24 * layer + 51200.0 * 2048.0;   // + the embedding (testing::gpt vocab)
  const double bytes = r.peak_memory.weights.si();
  CHECK(bytes > 2.0 * total / 64);                         // the shard plus something gathered
  CHECK(bytes < 2.0 * total / 64 + 2.0 * 2.0 * 51200.0 * 2048.0 * 1.05);  // at most two of the largest unit (the embedding)
  CHECK(bytes < 0.25 * 2.0 * total);                       // far below the whole model unsharded
}

TEST_CASE("a mixture-of-experts layer pays two all-to-alls per pass across expert-parallel ranks", "[unit]") {
  WorkloadSpec w = gpt(8, 4096, 32);
  w.model.num_experts = 8;
  w.model.moe_router_topk = 2;
  w.model.ffn_hidden_size = 4 * 4096;
  w.parallel.tensor_model_parallel_size = 1;
  w.parallel.expert_model_parallel_size = 8;
  w.training.global_batch_size = 64;
  const StepResult r = evaluate_step(cluster(64), w);
  CHECK(r.breakdown.ep_comm.si() > 0);
  // Model FLOPs count top-2 experts per token.
  const auto f = step::layer_forward_flops(w.model, true);
  CHECK(f.mlp.si() == Approx(2 * 2 * 2048.0 * 4096 * 4 * 4096 * 2));
}
