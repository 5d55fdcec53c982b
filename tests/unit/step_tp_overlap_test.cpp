// Unit tests of TE userbuffers TP-overlap costs (sim/step/tp_overlap.hpp): the Hopper GEMM-vs-M
// curve, each method's pair time by hand, and the two measured shares the presets carry
// re-derived from their microbenchmarks (data/supplement/hopper_overlap_microbench.csv).
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "sim/config/load.hpp"
#include "sim/import/imported.hpp"
#include "sim/import/nemo_recipe.hpp"
#include "sim/core/error.hpp"
#include "sim/step/gemm_efficiency.hpp"
#include "sim/step/step_model.hpp"
#include "sim/step/tp_overlap.hpp"
#include "tests/test_paths.hpp"

using namespace fleetsim;
using step::TpPair;

namespace {

Scenario h100(const std::vector<std::string>& sets = {}) { return config::load_scenario("dgx-h100-nemo", sets); }

}  // namespace

TEST_CASE("The Hopper GEMM-vs-M curve is XLA's sm_90 table relative to M 4096", "[unit][tp_overlap]") {
  const auto& curve = h100().cluster.gpu.gemm_m_curve;
  REQUIRE(curve.size() == 13);
  // The measured points (hopper_microbench.md §"What these numbers say", table 1).
  CHECK(step::gemm_m_curve_relative(curve, 4096, 4096, 4096) == Approx(1.0));
  CHECK(step::gemm_m_curve_relative(curve, 1024, 4096, 4096) == Approx(742.3 / 786.0).epsilon(1e-3));
  CHECK(step::gemm_m_curve_relative(curve, 1024, 4096, 1024) == Approx(490.3 / 681.1).epsilon(1e-3));
  CHECK(step::gemm_m_curve_relative(curve, 512, 4096, 2048) == Approx(524.8 / 739.9).epsilon(1e-3));
  // Above the largest M, and a wider N at fewer rows (same output tiles): no loss.
  CHECK(step::gemm_m_curve_relative(curve, 16384, 4096, 4096) == Approx(1.0));
  CHECK(step::gemm_m_curve_relative(curve, 1024, 16384, 4096) == Approx(1.0));
  // Between measured K, between the rows; beyond them, the nearest row.
  const double k3 = step::gemm_m_curve_relative(curve, 1024, 4096, 3000);
  CHECK(k3 > 490.3 / 681.1);
  CHECK(k3 < 742.3 / 786.0);
  CHECK(step::gemm_m_curve_relative(curve, 1024, 4096, 16384) == Approx(742.3 / 786.0).epsilon(1e-3));
  // Below the smallest M: that M's time (throughput proportional to M).
  CHECK(step::gemm_m_curve_relative(curve, 128, 4096, 4096) == Approx(435.8 / 786.0 / 2).epsilon(1e-3));
  // Monotone in M.
  double last = 0;
  for (double m = 64; m <= 8192; m *= 1.25) {
    const double r = step::gemm_m_curve_relative(curve, m, 4096, 2048);
    CHECK(r >= last - 1e-12);
    last = r;
  }
  // Chunking 4096 rows at K 1024 into 4: each chunk runs at 0.72 of the whole's rate.
  CHECK(step::chunk_slowdown(curve, 4096, 4096, 1024, 4) == Approx(681.1 / 490.3).epsilon(1e-3));
  CHECK(step::gemm_m_curve_relative({}, 512, 512, 512) == 1.0);
}

TEST_CASE("Each overlap method's pair time, by hand", "[unit][tp_overlap]") {
  const std::vector<GemmMPoint> none;
  const TpPair p{Seconds(8e-3), Seconds(4e-3), 4096, 4096, 4096};
  // Ring exchange, TP 8, no curve, all SMs: chunk 1 ms, step 4/7 ms < 1 ms: 8 x 1 ms = the GEMM.
  CHECK(step::ring_exchange_extra(p, none, 8, false, 132, 0, 0.0).si() == Approx(0.0).margin(1e-12));
  // ... plus the exposed share of the communication.
  CHECK(step::ring_exchange_extra(p, none, 8, false, 132, 0, 0.5).si() == Approx(2e-3));
  // Comm-bound ring: comm 14 ms, GEMM 8 ms: 1 + 7 x 2 = 15 ms, 7 ms beyond the GEMM.
  const TpPair slow{Seconds(8e-3), Seconds(14e-3), 4096, 4096, 4096};
  CHECK(step::ring_exchange_extra(slow, none, 8, false, 132, 0, 0.0).si() == Approx(7e-3));
  // Aggregate: 4 chunks of 2 ms, steps of 14/3 ms: 2 + 3 x 14/3 = 16 ms.
  CHECK(step::ring_exchange_extra(slow, none, 8, true, 132, 0, 0.0).si() == Approx(8e-3));
  // Pipelined reduce-scatter on 24 of 132 SMs, 4 splits: chunk 2 x 132/108 ms, the last
  // chunk's 1 ms reduce-scatter after it.
  const double g = 2e-3 * 132.0 / 108.0;
  CHECK(step::pipeline_extra(p, none, 4, 132, 24, 0.0).si() == Approx(4 * g + 1e-3 - 8e-3));
  // Bulk beside an 8 ms GEMM: the GEMM loses 24 of 132 SMs for the 4 ms of the collective.
  CHECK(step::bulk_extra(p, 132, 24).si() == Approx(4e-3 * 24.0 / 132.0));
  CHECK(step::bulk_extra(slow, 132, 24).si() == Approx(6e-3 + 8e-3 * 24.0 / 132.0));
  // TP 1 has nothing to overlap.
  CHECK(step::ring_exchange_extra(p, none, 1, false, 132, 0, 0.5).si() == 0.0);
}

TEST_CASE("H800's exposed share reproduces Flux's TE userbuffers measurement", "[unit][tp_overlap]") {
  // Flux (arXiv:2406.06858 §5.1, §6; bytedance/flux docs/performance_report.md): 8 H800, TP 8,
  // GPT-3 175B FFN, m = 1,024-8,192; at m = 4,096 the GEMMs alone 0.846 ms (AG, n 49152 / 8,
  // k 12288) and 0.818 ms (RS, n 12288, k 49152 / 8), NCCL 0.583 / 0.590 ms (O08, O09). TE's
  // average overlap efficiency E = 1 - (pair - GEMM) / comm is 20% (O02): all-gathers by ring
  // exchange, reduce-scatters pipelined (TE defaults: 4 splits, 16 SMs). Other m scale the comm
  // with m and the GEMM with m over its curve rate.
  const Scenario s = config::load_scenario("deepseek-v3-2048-h800");
  const GpuSpec& gpu = s.cluster.gpu;
  const auto& curve = gpu.gemm_m_curve;
  REQUIRE(!curve.empty());
  double sum = 0;
  int n = 0;
  for (double m : {1024.0, 2048.0, 4096.0, 8192.0}) {
    const double f = m / 4096.0;
    const TpPair ag{Seconds(0.846e-3 * f * step::gemm_m_curve_relative(curve, 4096, 6144, 12288) /
                            step::gemm_m_curve_relative(curve, m, 6144, 12288)),
                    Seconds(0.583e-3 * f), m, 6144, 12288};
    const TpPair rs{Seconds(0.818e-3 * f * step::gemm_m_curve_relative(curve, 4096, 12288, 6144) /
                            step::gemm_m_curve_relative(curve, m, 12288, 6144)),
                    Seconds(0.590e-3 * f), m, 12288, 6144};
    sum += 1.0 - step::ring_exchange_extra(ag, curve, 8, false, 132, 0, gpu.tp_overlap_exposed_share).si() / ag.comm.si();
    sum += 1.0 - step::pipeline_extra(rs, curve, 4, 132, 16, gpu.tp_overlap_exposed_share).si() / rs.comm.si();
    n += 2;
  }
  CHECK(sum / n == Approx(0.20).margin(0.02));
}

TEST_CASE("H100's exposed share is the fused GEMM + reduce-scatter measurement", "[unit][tp_overlap]") {
  // Triton-distributed PR #166 (O20-O22): 8 H100, M 8192, N 8192, K 29568 / TP; overlapped vs
  // sequential (matmul then reduce_scatter_tensor). With the preset's own GEMM time G the
  // reduce-scatter alone is seq - G and its exposed part fused - G.
  const Scenario s = h100();
  const step::GpuCompute gpu(s.cluster.gpu);
  const double fused[] = {0.851e-3, 1.575e-3, 2.902e-3}, seq[] = {1.045e-3, 1.707e-3, 3.077e-3};
  const int tps[] = {8, 4, 2};
  double sum = 0;
  for (int i = 0; i < 3; ++i) {
    const double g = gpu.gemm(8192, 8192, 29568.0 / tps[i]).si();
    const double share = (fused[i] - g) / (seq[i] - g);
    CHECK(share > 0.3);
    CHECK(share < 0.8);
    sum += share;
  }
  CHECK(s.cluster.gpu.tp_overlap_exposed_share == Approx(sum / 3).margin(0.01));
}

TEST_CASE("TP overlap settings are checked against the GPU", "[unit][tp_overlap]") {
  CHECK_THROWS_AS(h100({"workload.parallel.tp_comm_overlap_rs_sms=[24]"}), ConfigError);
  CHECK_THROWS_AS(h100({"workload.parallel.tp_comm_overlap_rs_sms=[24, 132]"}), ConfigError);
  CHECK_THROWS_AS(h100({"workload.parallel.tp_comm_overlap_bulk_sms=[4, 24, 2]"}), ConfigError);
  CHECK_THROWS_AS(h100({"workload.parallel.tp_comm_overlap_rs_method=ring"}), ConfigError);
  CHECK_THROWS_AS(h100({"cluster.gpu.gemm_m_curve=../validation/x.csv"}), ConfigError);
  CHECK_THROWS_AS(h100({"cluster.gpu.gemm_m_curve=missing.csv"}), ConfigError);
  const Scenario ok = h100({"workload.parallel.tp_comm_overlap_rs_sms=[24, 8]",
                            "workload.parallel.tp_comm_overlap_rs_method=ring_exchange"});
  CHECK(ok.workload.parallel.tp_comm_overlap_rs_sms == std::vector<int>{24, 8});
  CHECK(ok.workload.parallel.tp_comm_overlap_rs_method == TpOverlapMethod::RingExchange);
}

TEST_CASE("More SMs for the reduce-scatter or a larger exposed share never make a TP 8 layer faster",
          "[unit][tp_overlap]") {
  const std::vector<std::string> base = {
      "cluster.gpus=64", "workload.model=llama3-405b", "workload.model.num_layers=8",
      "workload.parallel.tensor_model_parallel_size=8", "workload.parallel.pipeline_model_parallel_size=1",
      "workload.parallel.context_parallel_size=2", "workload.parallel.sequence_parallel=true",
      "workload.parallel.tp_comm_overlap=true", "workload.training.global_batch_size=64",
      "workload.training.precision=bf16", "workload.parallel.use_distributed_optimizer=true"};
  auto t = [&](std::vector<std::string> extra) {
    std::vector<std::string> sets = base;
    sets.insert(sets.end(), extra.begin(), extra.end());
    const Scenario s = h100(sets);
    return evaluate_step(s.cluster, s.workload).iteration_time.si();
  };
  const double nemo = t({});
  CHECK(t({"workload.parallel.tp_comm_overlap_rs_sms=[32, 32]"}) > nemo);
  CHECK(t({"cluster.gpu.tp_overlap_exposed_share=0.9"}) > nemo);
  CHECK(t({"cluster.gpu.tp_overlap_exposed_share=0"}) < nemo);
  // Without overlap the whole communication is exposed: slower than NeMo's overlap.
  CHECK(t({"workload.parallel.tp_comm_overlap=false"}) > nemo);
}

TEST_CASE("import nemo maps tp_comm_overlap_cfg to the TP-overlap keys", "[unit][tp_overlap][import]") {
  // The launcher's Hydra default names the 405B TP 8 config (NeMo-Framework-Launcher spelling).
  const importer::Imported l =
      importer::read_nemo_recipe(testing::source_dir() + "/tests/data/import/nemo_launcher_llama3_1_405b.yaml");
  CHECK(l.tp_overlap_cfg);
  CHECK(l.tp_overlap_rs_method == "pipeline");
  CHECK(l.tp_overlap_rs_sms == std::vector<int>{24, 8});
  CHECK(l.tp_overlap_bulk_sms == std::vector<int>{2, 24, 2, 2});
  CHECK(l.tp_overlap_aggregate);
  CHECK_FALSE(l.tp_overlap_rs_fp8_buf);
  const std::string y = importer::scenario_yaml(l);
  CHECK(y.find("tp_comm_overlap_rs_sms: [24, 8]") != std::string::npos);
  CHECK(y.find("tp_comm_overlap_aggregate: true") != std::string::npos);
  // NeMo 2's name of the FP8 70B config: the newest reading (PR #13131, ring exchange).
  const importer::Imported f = importer::read_nemo_recipe_text(
      "model:\n  tensor_model_parallel_size: 4\n  ub_tp_comm_overlap: true\n"
      "  ub_tp_comm_overlap_cfg: userbuffers_fp8_h100_h8192_tp4_mbs1_seqlen8192\n",
      "r.yaml");
  CHECK(f.tp_overlap_rs_method == "ring_exchange");
  // Ops spelled out.
  const importer::Imported o = importer::read_nemo_recipe_text(
      "model:\n  ub_tp_comm_overlap_cfg:\n    proj_fprop: {method: pipeline, num_sm: 20, cga_size: 2}\n"
      "    fc2_fprop: {method: pipeline, num_sm: 12}\n    qkv_fprop: {method: ring_exchange, aggregate: 1}\n",
      "r.yaml");
  CHECK(o.tp_overlap_rs_sms == std::vector<int>{20, 12});
  CHECK(o.tp_overlap_aggregate);
  CHECK(o.unknown.empty());
  // An unknown config name is an error naming the key and the valid names.
  try {
    (void)importer::read_nemo_recipe_text("model:\n  ub_tp_comm_overlap_cfg: userbuffers_bf16_h100_nope\n", "r.yaml");
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("userbuffers_bf16_h100_h16384_tp8_cp2_mbs1_seqlen8192") != std::string::npos);
    CHECK(std::string(e.what()).find("ub_tp_comm_overlap_cfg") != std::string::npos);
  }
  CHECK_THROWS_AS(importer::read_nemo_recipe_text(
                      "model:\n  ub_tp_comm_overlap_cfg:\n    proj_fprop: {method: magic, num_sm: 4}\n", "r.yaml"),
                  ConfigError);
}
