// The memory check against layouts that ran: every layout NVIDIA published a throughput for on
// 80 GB H100 or 180 GB B200 must fit (sim/step/memory.hpp), each with the memory configuration its
// recipe states; and layouts that cannot fit are still rejected.
//
// Sources and the configuration each one ran (sim/step/README.md, "Memory of published layouts"):
// - DGX Cloud Llama 3.1 (data/validation/dgxc_h100_llama31.csv; NVIDIA/dgxc-benchmarking):
//   v25.02 ran NeMo 24.12 YAMLs (llama3.1/configure.sh): Apex distributed Adam with fp32 gradient
//   buffers, `+model.fp8_params=$FP8_ENABLED` (FP8 weights in the FP8 rows). v25.04 / v25.05.01
//   ran NeMo 2 (llama3.1/pretrain_llama31.py): the recipes' `pretrain_performance_optimizations`
//   (NeMo v2.2.0 llama3_8b / llama3_70b / llama31_405b) set `grad_reduce_in_fp32 = False` (BF16
//   gradient buffers), and the FP8 rows use `bf16_with_fp8_mixed()` (fp8_param_gather = True)
//   with `grad_reduce_in_fp32 = False`.
// - NeMo performance summaries (data/validation/nemo_perf_summary.csv), dense and MoE rows as
//   `fleetsim validate` models them (sim/reproduce/nemo*.cpp): 24.07 ran the NeMo 1 launcher
//   YAMLs (nemo_fits says which settings and from where); 25.02 and later the NeMo 2 /
//   Megatron-Bridge performance scripts: BF16 gradient buffers (`grad_reduce_in_fp32 = False`)
//   and FP8 weights for the per-tensor recipes (`bf16_with_fp8_mixed`,
//   `bf16_with_fp8_current_scaling_mixed`: fp8_param_gather = True; MXFP8 keeps BF16 weights,
//   `bf16_with_mxfp8_mixed`: fp8_param_gather = False; NeMo recipes/precision/mixed_precision.py).
// Not modelled, each would only lower the figures: Apex distributed Adam's bf16 parameter
// remainders instead of fp32 master weights (NeMo 1 with BF16 weights: 10 instead of 12 B/d), the
// 24.07 Nemotron-340B YAML's bf16 optimizer states (dtype: bf16).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/config/load.hpp"
#include "sim/core/csv.hpp"
#include "sim/core/paths.hpp"
#include "sim/reproduce/nemo.hpp"
#include "sim/step/step_model.hpp"
#include "sim/units/quantity.hpp"

using namespace fleetsim;

namespace {

const std::string kPar = "workload.parallel.";
const std::string kTrain = "workload.training.";

struct Fit {
  std::string name;
  double need_gib = 0, usable_gib = 0;
  bool fits = false;
};

Fit check(const std::string& name, const Scenario& s) {
  const StepResult r = evaluate_step(s.cluster, s.workload);
  Fit f;
  f.name = name;
  f.need_gib = units::to_gib(r.memory_per_gpu);
  f.usable_gib = units::to_gib(s.cluster.gpu.memory - s.cluster.gpu.usable_memory_reserve);
  f.fits = r.fits_in_memory;
  return f;
}

void print(const char* title, const std::vector<Fit>& fits) {
  std::printf("\n  %s\n", title);
  double tightest = 1e30;
  for (const auto& f : fits) {
    std::printf("  %-88s %6.1f GiB of %5.1f  margin %+6.1f GiB%s\n", f.name.c_str(), f.need_gib, f.usable_gib,
                f.usable_gib - f.need_gib, f.fits ? "" : "  DOES NOT FIT");
    tightest = std::min(tightest, f.usable_gib - f.need_gib);
  }
  std::printf("  %zu layouts, smallest margin %+.1f GiB\n", fits.size(), tightest);
}

std::string catalog_model(const std::string& label) {
  if (label == "Llama 3.1 8B") return "llama3-8b";
  if (label == "Llama 3.1 70B") return "llama3-70b";
  if (label == "Llama 3.1 405B") return "llama3-405b";
  return "";
}

// The DGX Cloud rows with the recipes' configuration (the timing settings as in nemo_cases, the
// memory settings per container as in the header comment).
std::vector<Fit> dgxc_fits() {
  const CsvTable t = read_csv(validation_dir() + "/dgxc_h100_llama31.csv");
  std::vector<Fit> out;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t.at(i, "proxy_model") == "yes") continue;
    const std::string model = catalog_model(t.at(i, "model"));
    REQUIRE_FALSE(model.empty());
    const std::string prec = t.at(i, "precision");
    const bool nemo1 = t.at(i, "container") == "NeMo 24.12";
    const int tp = t.integer(i, "tp"), pp = t.integer(i, "pp"), cp = t.integer(i, "cp");
    const int vp = t.at(i, "vp").empty() ? 1 : t.integer(i, "vp"), layers = t.integer(i, "num_layers");
    std::vector<std::string> sets = {
        "cluster.gpus=" + t.at(i, "num_gpus"),
        "workload.model=" + model,
        kPar + "tensor_model_parallel_size=" + std::to_string(tp),
        kPar + "pipeline_model_parallel_size=" + std::to_string(pp),
        kPar + "virtual_pipeline_model_parallel_size=" + std::to_string(vp),
        kPar + "context_parallel_size=" + std::to_string(cp),
        kPar + "sequence_parallel=" + std::string(tp > 1 ? "true" : "false"),
        kPar + "tp_comm_overlap=" + std::string(tp > 1 ? "true" : "false"),
        kPar + "overlap_p2p_comm=" + std::string(vp > 1 ? "true" : "false"),
        kPar + "recompute_granularity=none",
        kPar + "use_distributed_optimizer=true",
        kTrain + "micro_batch_size=" + t.at(i, "mbs"),
        kTrain + "global_batch_size=" + t.at(i, "gbs"),
        kTrain + "precision=" + prec,
        kTrain + "gradient_accumulation_fusion=true",
        kTrain + "grad_reduce_in_fp32=" + std::string(nemo1 ? "true" : "false"),
        kTrain + "fp8_param_gather=" + std::string(prec == "fp8" ? "true" : "false"),
    };
    // The embedding and the loss counted as a layer each where that makes the chunks divide
    // (Megatron-core account_for_embedding/loss_in_pipeline_split; NeMo's 405B recipes).
    const int chunks = pp * vp;
    if (chunks > 1 && layers % chunks != 0 && (layers + 2) % chunks == 0) {
      const int per = (layers + 2) / chunks;
      std::string split = "[" + std::to_string(per - 1);
      for (int j = 1; j < chunks - 1; ++j) split += "," + std::to_string(per);
      sets.push_back(kPar + "pipeline_layer_split=" + split + "," + std::to_string(per - 1) + "]");
    }
    const std::string name = t.at(i, "benchmark_release") + " " + t.at(i, "model") + " " + t.at(i, "num_gpus") +
                             " GPUs TP" + std::to_string(tp) + " PP" + std::to_string(pp) +
                             (vp > 1 ? " VP" + std::to_string(vp) : "") + " CP" + std::to_string(cp) + " mbs " +
                             t.at(i, "mbs") + " " + prec + (nemo1 ? " (fp32 grads)" : " (bf16 grads)");
    out.push_back(check(name, config::load_scenario("dgx-h100-nemo", sets)));
  }
  return out;
}

// The NeMo summary rows as `fleetsim validate` models them (sim/reproduce), with the memory settings of their
// release's recipes.
std::vector<Fit> nemo_fits(const std::vector<reproduce::StepCase>& cases) {
  std::vector<Fit> out;
  for (const auto& c : cases) {
    std::vector<std::string> sets = c.sets;
    const bool nemo1 = c.release.rfind("24.", 0) == 0;
    const bool mxfp8 = c.scenario.workload.training.fp8_recipe == Fp8Recipe::Mxfp8;
    // NeMo 1 launcher YAMLs of 24.07 (NVIDIA/NeMo-Framework-Launcher tag 24.07,
    // launcher_scripts/conf/training/): Apex distributed Adam, whose gradient buffer is fp32
    // unless the YAML sets grad_sync_dtype (nemotron_340b.yaml: bf16, and selective
    // recomputation); the FP8 runs with FP8 weights as NVIDIA's own NeMo 1 FP8 benchmarks pass
    // them (dgxc-benchmarking llama3.1/configure.sh: +model.fp8_params=$FP8_ENABLED).
    const bool nemotron340 = c.name.find("Nemotron-340B") != std::string::npos;
    const bool bf16_grads = !nemo1 || nemotron340;
    sets.push_back(kTrain + "grad_reduce_in_fp32=" + std::string(bf16_grads ? "false" : "true"));
    sets.push_back(kTrain + "fp8_param_gather=" + std::string(!mxfp8 ? "true" : "false"));
    if (nemo1 && nemotron340) sets.push_back(kPar + "recompute_granularity=selective");
    Scenario s = config::load_scenario(c.base, sets);
    s.workload.training.use_flash_attn = c.scenario.workload.training.use_flash_attn;
    s.workload.parallel.rank_order = c.scenario.workload.parallel.rank_order;
    s.workload.parallel.virtual_pipeline_model_parallel_size = c.scenario.workload.parallel.virtual_pipeline_model_parallel_size;
    out.push_back(check(c.name + (bf16_grads ? " (bf16 grads)" : " (fp32 grads)"), s));
  }
  return out;
}

}  // namespace

TEST_CASE("every non-proxy DGX Cloud Llama 3.1 layout NVIDIA ran on 80 GB H100 fits in memory", "[validation][memory]") {
  const auto fits = dgxc_fits();
  print("DGX Cloud Llama 3.1 on DGX H100 (dgxc_h100_llama31.csv), full models", fits);
  REQUIRE(fits.size() >= 40);
  for (const auto& f : fits) {
    INFO(f.name << ": " << f.need_gib << " GiB of " << f.usable_gib);
    CHECK(f.fits);
  }
}

TEST_CASE("every NeMo H100 and B200 layout of the performance summaries fits in memory", "[validation][memory]") {
  for (const char* system : {"DGX-H100", "DGX-B200"}) {
    auto cases = reproduce::nemo_cases(system);
    const auto moe = reproduce::nemo_moe_cases(system);
    cases.insert(cases.end(), moe.begin(), moe.end());
    const auto fits = nemo_fits(cases);
    print((std::string("NeMo ") + system + " (nemo_perf_summary.csv), dense and MoE rows as modelled").c_str(), fits);
    REQUIRE_FALSE(fits.empty());
    for (const auto& f : fits) {
      INFO(f.name << ": " << f.need_gib << " GiB of " << f.usable_gib);
      CHECK(f.fits);
    }
  }
}

TEST_CASE("layouts that cannot fit in 80 GB are still rejected", "[validation][memory]") {
  // The 405B DGX Cloud layout (TP 8, PP 8, VP 8, CP 2, DP 4) without the distributed optimizer:
  // 18 B per parameter on 6.4B parameters per GPU is 107 GiB before any activation.
  std::string split = "[1";
  for (int j = 0; j < 62; ++j) split += ",2";
  split += ",1]";
  const std::vector<std::string> base = {
      "cluster.gpus=512", "workload.model=llama3-405b", kPar + "tensor_model_parallel_size=8",
      kPar + "pipeline_model_parallel_size=8", kPar + "virtual_pipeline_model_parallel_size=8",
      kPar + "context_parallel_size=2", kPar + "sequence_parallel=true", kPar + "tp_comm_overlap=true",
      kPar + "overlap_p2p_comm=true", kPar + "recompute_granularity=none", kPar + "pipeline_layer_split=" + split,
      kTrain + "micro_batch_size=1", kTrain + "global_batch_size=256", kTrain + "precision=bf16",
      kTrain + "grad_reduce_in_fp32=false"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> sets = base;
    sets.insert(sets.end(), extra.begin(), extra.end());
    return check("", config::load_scenario("dgx-h100-nemo", sets));
  };
  const Fit ran = with({kPar + "use_distributed_optimizer=true"});
  const Fit no_sharding = with({kPar + "use_distributed_optimizer=false"});
  // Twice the micro-batch: twice the activations in flight (about 34 GiB more).
  const Fit mbs2 = with({kPar + "use_distributed_optimizer=true", kTrain + "micro_batch_size=2"});
  // The same layout without context parallelism: each GPU holds the whole 8K sequence.
  const Fit no_cp = with({kPar + "use_distributed_optimizer=true", kPar + "context_parallel_size=1", "cluster.gpus=256"});
  std::printf("\n  405B TP8 PP8 VP8 CP2 DP4 BF16: as run %.1f GiB; without the distributed optimizer %.1f; "
              "micro-batch 2 %.1f; CP 1 %.1f (of %.1f usable)\n",
              ran.need_gib, no_sharding.need_gib, mbs2.need_gib, no_cp.need_gib, ran.usable_gib);
  CHECK(ran.fits);
  CHECK_FALSE(no_sharding.fits);
  CHECK(no_sharding.need_gib > 100.0);
  CHECK_FALSE(mbs2.fits);
  CHECK_FALSE(no_cp.fits);
}
