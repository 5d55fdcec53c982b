// NVFP4 training (workload.training.precision: nvfp4; sim/step/fp8.hpp "NVFP4", issue 36): the op
// list runs the linear GEMMs in NVFP4 with the recipe's casts and keeps attention, router and
// logits in 16 bits; the FP4 peak sets the GEMM rate; the memory holds NVFP4 weight copies and
// saved inputs; the importers read NeMo / Megatron-Bridge and Megatron-LM settings.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/config/load.hpp"
#include "sim/core/error.hpp"
#include "sim/import/imported.hpp"
#include "sim/import/megatron_args.hpp"
#include "sim/import/nemo_recipe.hpp"
#include "sim/step/collectives.hpp"
#include "sim/step/fp8.hpp"
#include "sim/step/gemm_efficiency.hpp"
#include "sim/step/layer_ops.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/step/step_model.hpp"

using namespace fleetsim;
using step::Op;
using step::OpKind;
using step::Phase;

namespace {

// Llama 3 70B on 64 GB300 as Megatron-Bridge runs it in NVFP4 (TP1 PP4 VP5, mbs 1).
Scenario gb300_70b(const std::string& precision) {
  std::vector<std::string> sets = {"cluster.gpu=gb300", "cluster.node=gb300-nvl72", "cluster.gpus=64",
                                   "workload.model=llama3-70b", "workload.model.seq_length=8192",
                                   "workload.parallel.tensor_model_parallel_size=1",
                                   "workload.parallel.pipeline_model_parallel_size=4",
                                   "workload.parallel.virtual_pipeline_model_parallel_size=5",
                                   "workload.parallel.context_parallel_size=1", "workload.parallel.overlap_p2p_comm=true",
                                   "workload.parallel.use_distributed_optimizer=true",
                                   "workload.training.micro_batch_size=1", "workload.training.global_batch_size=256",
                                   "workload.training.precision=" + precision};
  if (precision == "fp8") sets.push_back("workload.training.fp8_recipe=mxfp8");
  return config::load_scenario("dgx-h100-nemo", sets);
}

std::vector<const Op*> find(const step::LayerOps& l, std::string_view name, Phase phase) {
  std::vector<const Op*> out;
  for (const Op& op : l.ops)
    if (op.name == name && op.phase == phase) out.push_back(&op);
  return out;
}

step::StageCosts costs(const Scenario& s) {
  const step::GpuCompute gpu(s.cluster.gpu);
  const step::CollectiveModel net(s.cluster);
  return step::stage_costs(s.cluster, s.workload, gpu, net);
}

}  // namespace

TEST_CASE("nvfp4: the linear GEMMs run in NVFP4 with amax + RHT casts, attention and logits stay 16-bit", "[step][nvfp4][unit]") {
  const step::StageCosts sc = costs(gb300_70b("nvfp4"));
  const auto& l = sc.dense_layer;
  for (const char* name : {"qkv", "out_proj", "fc1", "fc2"})
    for (Phase ph : {Phase::Forward, Phase::Dgrad, Phase::Wgrad}) {
      INFO(name);
      REQUIRE(find(l, name, ph).size() == 1);
      CHECK(find(l, name, ph).at(0)->kind == OpKind::GemmFp4);
    }
  // One cast of the input per linear layer forward, one of the output gradient per backward.
  CHECK(find(l, "nvfp4_cast_rht", Phase::Forward).size() == 4);
  CHECK(find(l, "nvfp4_cast_rht_sr", Phase::Dgrad).size() == 4);
  CHECK(find(l, "fp8_cast", Phase::Forward).empty());
  const Op& cast = *find(l, "nvfp4_cast_rht", Phase::Forward).at(0);
  const Op& qkv = *find(l, "qkv", Phase::Forward).at(0);
  CHECK(cast.bytes == Approx(5.125 * qkv.m * qkv.k));  // amax 2 + cast 2 + two NVFP4 copies 2 x 0.5625
  CHECK(cast.kernels == 2);
  CHECK(find(l, "core_attention", Phase::Forward).at(0)->kind == OpKind::Attention);  // BF16 (TE: fp8_dpa off)
}

TEST_CASE("nvfp4: a large GEMM runs at the FP4 peak times gemm_efficiency_fp4 with 4-bit operands", "[step][nvfp4][unit]") {
  const Scenario s = gb300_70b("nvfp4");
  const GpuSpec& g = s.cluster.gpu;
  REQUIRE(g.peak_fp4.si() == Approx(3.0 * g.peak_fp8.si()));  // Blackwell Ultra: 15 vs 5 PF dense
  const step::GpuCompute gpu(g);
  const double n = 16384;
  const double fp4 = gpu.gemm_fp4(n, n, n).si(), fp8 = gpu.gemm_fp8(n, n, n).si();
  const double rate4 = 2 * n * n * n / fp4, rate8 = 2 * n * n * n / fp8;
  // The sustained-rate ratio, less the ramp (W_half scales with the peak, so at 16K^3 the FP4
  // GEMM is a few percent further from its ceiling than the FP8 one).
  const double ceiling = g.peak_fp4.si() * g.gemm_efficiency_fp4 / (g.peak_fp8.si() * g.gemm_efficiency_fp8);
  CHECK(rate4 / rate8 < ceiling);
  CHECK(rate4 / rate8 > 0.95 * ceiling);
}

TEST_CASE("nvfp4: faster than MXFP8 on the same layout and holds less memory", "[step][nvfp4][unit]") {
  const Scenario f4 = gb300_70b("nvfp4"), f8 = gb300_70b("fp8");
  const StepResult r4 = evaluate_step(f4.cluster, f4.workload), r8 = evaluate_step(f8.cluster, f8.workload);
  CHECK(r4.iteration_time.si() < r8.iteration_time.si());
  CHECK(r4.iteration_time.si() > 0.5 * r8.iteration_time.si());  // attention, norms, comm stay
  CHECK(r4.memory_per_gpu.si() < r8.memory_per_gpu.si());          // 1.0 B weight copies, 0.56 B saved inputs
  CHECK(step::quantized_weight_copy_bytes(f4.workload.training) == Approx(1.0 + 2.0 / 256));
  CHECK(step::saved_linear_input_bytes(f4.workload.training) == Approx(0.5625));
}

TEST_CASE("nvfp4 is imported from Megatron-Bridge recipes and Megatron-LM arguments", "[import][nvfp4][unit]") {
  const auto name = importer::read_nemo_recipe_text(
      "model: {num_layers: 2, hidden_size: 256, num_attention_heads: 4}\nmixed_precision: bf16_with_nvfp4_mixed\n", "r.yaml");
  CHECK(name.precision == "nvfp4");
  const auto mapping = importer::read_nemo_recipe_text(
      "model: {num_layers: 2, hidden_size: 256, num_attention_heads: 4, seq_length: 1024, vocab_size: 32000, ffn_hidden_size: 1024}\n"
      "mixed_precision: {bf16: true, fp4: e2m1, fp4_recipe: nvfp4}\n",
      "r.yaml");
  CHECK(mapping.precision == "nvfp4");
  const auto args = importer::read_megatron_args({"--num-layers", "2", "--hidden-size", "256", "--num-attention-heads",
                                                  "4", "--bf16", "--fp4-format", "e2m1", "--fp4-recipe", "nvfp4"});
  CHECK(args.precision == "nvfp4");
  CHECK_THROWS_AS(importer::read_megatron_args({"--num-layers", "2", "--bf16", "--fp4-format", "e2m1", "--fp4-recipe", "custom"}),
                  ConfigError);
  const auto mx = importer::read_megatron_args({"--num-layers", "2", "--bf16", "--fp8-format", "e4m3", "--fp8-recipe", "mxfp8"});
  CHECK(mx.precision == "fp8");
  CHECK(mx.fp8_recipe == "mxfp8");
}
