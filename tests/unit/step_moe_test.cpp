// Mixture-of-experts step costs (sim/step/moe.hpp), MLA and MTP accounting, DualPipe
// (sim/step/dualpipe.hpp), on the DeepSeek-V3 preset and scenario.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include "sim/config/load.hpp"
#include "sim/core/error.hpp"
#include "sim/search/search.hpp"
#include "sim/search/space.hpp"
#include "sim/step/collectives.hpp"
#include "sim/step/flops.hpp"
#include "sim/step/layout.hpp"
#include "sim/step/moe.hpp"
#include "sim/step/step_model.hpp"
#include "sim/workload/parameters.hpp"

using namespace fleetsim;

namespace {
const char* kScenario = "deepseek-v3-2048-h800";
Scenario deepseek(std::vector<std::string> sets = {}) { return config::load_scenario(kScenario, sets); }
}  // namespace

TEST_CASE("DeepSeek-V3 preset: 671B parameters, 37B active, MTP module of the published size", "[unit]") {
  const ModelSpec m = deepseek().workload.model;
  // arXiv:2412.19437 abstract / §4.2: 671B total, 37B activated per token; README_WEIGHTS of the
  // release: 671B main model, 36.6B active (incl. the 0.9B output head), MTP 11.5B unique.
  std::printf("  parameters %.1fB, active %.2fB, MTP %.2fB\n", parameter_count(m) / 1e9,
              active_parameter_count(m) / 1e9, mtp_parameter_count(m) / 1e9);
  CHECK(parameter_count(m) == Approx(671e9).epsilon(0.01));
  CHECK(active_parameter_count(m) == Approx(37e9).epsilon(0.03));
  CHECK(mtp_parameter_count(m) == Approx(11.5e9).epsilon(0.05));
}

TEST_CASE("DeepSeek-V3 model FLOPs per token: ~250 GFLOP as DeepSeek states", "[unit]") {
  // Insights into DeepSeek-V3 (arXiv:2505.09343) §2.2: ~250 GFLOPs per token of training at
  // sequence 4K. Ours counts MLA, routed top-8 + shared expert, logits and the MTP module.
  const Scenario s = deepseek();
  WorkloadSpec w = s.workload;
  w.training.global_batch_size = 1;
  const double per_token = step::model_flops_per_iteration(w).si() / w.model.seq_length;
  w.model.mtp_depth = 0;
  const double without_mtp = step::model_flops_per_iteration(w).si() / w.model.seq_length;
  std::printf("  model FLOPs per token %.1f GFLOP (%.1f without MTP)\n", per_token / 1e9, without_mtp / 1e9);
  CHECK(without_mtp == Approx(250e9).epsilon(0.10));
  CHECK(per_token > without_mtp);
}

TEST_CASE("routing imbalance: balanced is 1, zipf loads the busiest rank more as the skew grows", "[unit]") {
  ModelSpec m = deepseek().workload.model;
  CHECK(step::moe_rank_load(m, 64) == 1.0);
  m.moe_token_distribution = "zipf";
  double last = 1.0;
  for (double s : {0.1, 0.25, 0.5, 1.0}) {
    m.moe_zipf_exponent = s;
    const double load = step::moe_rank_load(m, 64);
    CHECK(load > last);
    CHECK(load <= 64.0);  // at most all tokens on one rank
    last = load;
  }
  CHECK(step::moe_rank_load(m, 1) == 1.0);  // one rank holds every expert
  // Beyond 4,096 experts the tail of the sum is an integral: it agrees with the exact sum.
  m.num_experts = 65536;
  m.moe_zipf_exponent = 0.7;
  double total = 0, first = 0;
  for (int i = 1; i <= 65536; ++i) {
    const double p = std::pow(static_cast<double>(i), -0.7);
    total += p;
    if (i <= 1024) first += p;
  }
  CHECK(step::moe_rank_load(m, 64) == Approx(first / total * 64).epsilon(1e-6));
}

TEST_CASE("node-limited dispatch crosses IB once per remote node and fans out over NVLink", "[unit]") {
  const Scenario s = deepseek();
  const step::Layout l = step::make_layout(s.cluster, s.workload);
  const step::CollectiveModel net(s.cluster);
  ModelSpec m = s.workload.model;
  const double T = 4096, h = m.hidden_size;
  const auto limited = step::ep_transfer(m, l, net, T, 1.0, 1.0);
  // 8 nodes, at most 4 per token: < 4 remote copies per token on IB; 8 x 7/8 copies on NVLink.
  CHECK(limited.fabric_bytes.si() / (T * h) < 4.0);
  CHECK(limited.fabric_bytes.si() / (T * h) > 3.0);
  CHECK(limited.nvlink_bytes.si() / (T * h) == Approx(7.0));
  m.moe_router_max_nodes = 0;  // flat: every routed copy on its own, 7/8 of them off-node
  const auto flat = step::ep_transfer(m, l, net, T, 1.0, 1.0);
  CHECK(flat.fabric_bytes.si() / (T * h) == Approx(7.0));
  CHECK(flat.time.si() > limited.time.si());
  // A skewed rank waits for its larger share.
  const auto skewed = step::ep_transfer(s.workload.model, l, net, T, 1.0, 2.0);
  CHECK(skewed.time.si() > 1.9 * limited.time.si());
}

TEST_CASE("DualPipe hides the all-to-all that 1F1B exposes, at the cost of the SMs and 2x parameters", "[unit]") {
  const Scenario s = deepseek();
  const StepResult dual = evaluate_step(s.cluster, s.workload);
  const Scenario one = deepseek({"workload.parallel.pipeline_schedule=megatron"});
  const StepResult f1b = evaluate_step(one.cluster, one.workload);
  std::printf("  DualPipe %.2f s (a2a exposed %.2f, hidden %.2f, SM partition %.2f, bubble %.2f); "
              "1F1B %.2f s (a2a exposed %.2f, bubble %.2f)\n",
              dual.iteration_time.si(), dual.breakdown.ep_comm.si(), dual.breakdown.ep_hidden.si(),
              dual.breakdown.ep_sm_partition.si(), dual.breakdown.bubble.si(), f1b.iteration_time.si(),
              f1b.breakdown.ep_comm.si(), f1b.breakdown.bubble.si());
  CHECK(f1b.breakdown.ep_comm.si() > 0);
  CHECK(f1b.breakdown.ep_hidden.si() == 0);
  CHECK(dual.breakdown.ep_hidden.si() > 0.5 * f1b.breakdown.ep_comm.si());
  CHECK(dual.breakdown.ep_comm.si() < 0.5 * f1b.breakdown.ep_comm.si());
  CHECK(dual.breakdown.ep_sm_partition.si() > 0);
  CHECK(dual.breakdown.bubble.si() < f1b.breakdown.bubble.si());
  CHECK(dual.iteration_time.si() < f1b.iteration_time.si());
  // Two stages' weights per rank (Table 2: 2x parameters).
  CHECK(dual.peak_memory.weights.si() > 1.5 * f1b.peak_memory.weights.si());
  // No SMs held: the same schedule without the partitioning cost is faster.
  const Scenario free_sms = deepseek({"workload.parallel.ep_comm_sms=0"});
  CHECK(evaluate_step(free_sms.cluster, free_sms.workload).iteration_time.si() < dual.iteration_time.si());
}

TEST_CASE("DualPipe's bubble follows (PP/2 - 1)(F&B + B - 3W): it grows with PP", "[unit]") {
  const StepResult pp16 = evaluate_step(deepseek().cluster, deepseek().workload);
  const Scenario s8 = deepseek({"workload.parallel.pipeline_model_parallel_size=8",
                                "workload.parallel.pipeline_layer_split=[7,8,8,8,8,8,8,6]"});
  const StepResult pp8 = evaluate_step(s8.cluster, s8.workload);
  // Per-stage chunks double at PP 8, (PP/2 - 1) goes from 7 to 3: 6/7 of the PP 16 bubble.
  CHECK(pp8.breakdown.bubble.si() < pp16.breakdown.bubble.si());
  CHECK(pp8.breakdown.bubble.si() > 0.5 * pp16.breakdown.bubble.si());
}

TEST_CASE("DualPipe needs an even PP, VPP 1 and an even number of microbatches", "[unit]") {
  CHECK_THROWS_AS(deepseek({"workload.parallel.virtual_pipeline_model_parallel_size=2"}), ConfigError);
  const Scenario odd = deepseek({"workload.training.global_batch_size=15232"});  // 119 microbatches
  CHECK_THROWS_AS(evaluate_step(odd.cluster, odd.workload), InfeasibleError);
}

TEST_CASE("the layout search varies EP under DualPipe and finds DeepSeek-V3 layouts that fit in 80 GB", "[unit]") {
  const Scenario s = deepseek();
  search::SearchOptions o;
  o.top = 3;
  o.progress = false;
  search::Space sp = search::default_space(s);
  CHECK(sp.vpp == std::vector<int>{1});                 // DualPipe: one chunk per rank
  for (int p : sp.pp) CHECK(p % 2 == 0);                // and an even pipeline
  CHECK(sp.ep.size() == 9);                             // 1, 2, 4, ..., 256
  // A smaller space keeps the test short: PP 8 / 16, EP 32 / 64 / 128, micro-batch 1.
  sp.pp = {8, 16};
  sp.ep = {32, 64, 128};
  sp.tp = {1};
  sp.cp = {1};
  sp.micro_batch = {1};
  o.space = sp;
  const search::SearchResult r = search::run_search(s, o);
  REQUIRE(!r.top.empty());
  std::printf("  search: %lld feasible of %lld; best PP %d EP %d %.2f s, %.1f GiB\n", r.feasible,
              r.candidates_evaluated, r.top[0].layout.pp, r.top[0].layout.ep, r.top[0].step.iteration_time.si(),
              units::to_gib(r.top[0].step.memory_per_gpu));
  for (const auto& e : r.top) {
    CHECK(e.step.fits_in_memory);
    CHECK(e.step.memory_per_gpu.si() <= 80.0 * 1024 * 1024 * 1024);
  }
  REQUIRE(r.baseline.has_value());
  CHECK(r.baseline->step.fits_in_memory);
  CHECK(r.top[0].step.iteration_time.si() <= r.baseline->step.iteration_time.si());
}
