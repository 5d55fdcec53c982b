// Unit tests of the layout search (sim/search/search, explain, report) on plain test data: a
// 1.7B GPT (Megatron SC'21 Table 1's smallest model) on 32 A100-like GPUs, small enough to time
// every feasible layout.
#include <catch2/catch.hpp>

#include "tests/unit/test_fixtures.hpp"

#include <cstdlib>
#include <string>

#include "sim/config/load.hpp"
#include "sim/core/error.hpp"
#include "sim/search/explain.hpp"
#include "sim/search/feasibility.hpp"
#include "sim/search/report.hpp"
#include "sim/search/search.hpp"
#include "sim/search/uneven_split.hpp"
#include "sim/step/layout.hpp"
#include "sim/step/stage_costs.hpp"

#include <sys/wait.h>  // last: it defines si_value, a name quantity.hpp uses
#include "tests/test_paths.hpp"

using namespace fleetsim;
using namespace fleetsim::search;

namespace {

Scenario gpt_on_a100(int gpus, int layers = 24, int hidden = 2304, int heads = 24, int batch = 512) {
  Scenario s;
  s.file = "test";
  s.description = "test GPT";
  s.cluster = testing::a100_like_cluster(gpus);
  s.workload = testing::gpt(layers, hidden, heads);
  s.workload.parallel.data_parallel_size = gpus;
  s.workload.training.global_batch_size = batch;
  return s;
}

SearchOptions quiet(int top = 5) {
  SearchOptions o;
  o.top = top;
  o.progress = false;
  return o;
}

std::string deterministic_json(SearchResult r, const Scenario& s) {
  r.wall_s = 0;
  r.threads = 1;
  return to_json(r, s).dump(2);
}

}  // namespace

TEST_CASE("bound pruning never changes the top layouts", "[unit]") {
  const Scenario s = gpt_on_a100(32);
  SearchOptions all = quiet();
  all.prune = false;
  const SearchResult pruned = run_search(s, quiet());
  const SearchResult full = run_search(s, all);
  REQUIRE(pruned.top.size() == 5);
  REQUIRE(full.top.size() == 5);
  for (size_t i = 0; i < 5; ++i) {
    CHECK(pruned.top[i].layout == full.top[i].layout);
    CHECK(pruned.top[i].step.iteration_time.si() == full.top[i].step.iteration_time.si());
  }
  CHECK(pruned.timed < full.timed);
  CHECK(full.pruned_by_bound == 0);
}

TEST_CASE("the lower bound never exceeds the step model's iteration time", "[unit]") {
  const Scenario s = gpt_on_a100(64);
  const step::GpuCompute gpu(s.cluster.gpu);
  const step::CollectiveModel net(s.cluster);
  int checked = 0;
  for (int tp : {1, 2, 8})
    for (int pp : {1, 2, 4, 8})
      for (int vpp : {1, 3})
        for (int mb : {1, 4}) {
          if (pp == 1 && vpp > 1) continue;
          Candidate c;
          c.tp = tp; c.pp = pp; c.vpp = vpp; c.micro_batch = mb; c.dp = 64 / (tp * pp);
          c.layer_split = default_split(24, pp, vpp);
          const WorkloadSpec w = apply(c, s.workload);
          step::StageCosts sc;
          try {
            sc = step::stage_costs(s.cluster, w, gpu, net);
          } catch (const InfeasibleError&) {
            continue;
          }
          const StepResult r = evaluate_step(s.cluster, w);
          INFO(describe(c));
          CHECK(iteration_time_lower_bound(sc).si() <= r.iteration_time.si() * (1 + 1e-12));
          ++checked;
        }
  CHECK(checked > 20);
}

TEST_CASE("the bound is the whole iteration for 1F1B with equal stages and nothing else", "[unit]") {
  // (m + p - 1)(f + b): the pipeline fill and drain are exactly the bubble.
  Scenario s = gpt_on_a100(8);
  Candidate c;
  c.pp = 8; c.dp = 1;
  const WorkloadSpec w = apply(c, s.workload);
  const step::StageCosts sc = step::stage_costs(s.cluster, w, step::GpuCompute(s.cluster.gpu), step::CollectiveModel(s.cluster));
  const StepResult r = evaluate_step(s.cluster, w);
  CHECK(iteration_time_lower_bound(sc).si() ==
        Approx(r.iteration_time.si() - r.breakdown.optimizer.si() - r.breakdown.dp_comm.si()).epsilon(0.05));
}

// ZeRO-3 pays for its per-microbatch gathers (prefetch depth, SM/HBM contention: sim/step/overlap.hpp),
// so it is never faster than ZeRO-1/2: the lowest stage that fits is the one worth timing.
TEST_CASE("ZeRO stages 1 and 2 take the same time and ZeRO-3 no less, so only the simplest is timed", "[unit]") {
  const Scenario s = gpt_on_a100(32);
  Candidate c;
  c.tp = 2; c.pp = 2; c.dp = 8;
  double t[4];
  for (int z = 0; z <= 3; ++z) {
    c.zero_stage = z;
    t[z] = evaluate_step(s.cluster, apply(c, s.workload)).iteration_time.si();
  }
  CHECK(t[1] == t[2]);
  CHECK(t[3] >= t[2]);
}

TEST_CASE("the divisibility check rejects what the step model rejects", "[unit]") {
  const Scenario s = gpt_on_a100(48, 24, 2304, 24, 480);
  const Space space = default_space(s);
  int ok = 0, rejected = 0;
  for (const Group& g : enumerate_groups(space, s.cluster.gpus)) {
    Candidate c;
    c.tp = g.tp; c.pp = g.pp; c.vpp = g.vpp; c.cp = g.cp; c.ep = g.ep; c.micro_batch = g.micro_batch;
    c.dp = s.cluster.gpus / (g.tp * g.pp * g.cp);
    c.layer_split = default_split(s.workload.model.num_layers, g.pp, g.vpp);
    const auto reason = check_divisibility(s, g);
    bool step_ok = true;
    try {
      (void)step::make_layout(s.cluster, apply(c, s.workload));
    } catch (const std::exception&) {
      step_ok = false;
    }
    INFO(describe(c) << ": " << (reason ? reason_key(*reason) : "divides"));
    if (!reason) CHECK(step_ok);
    else if (*reason != Reason::ChunksExceedLayers) CHECK_FALSE(step_ok);
    (reason ? rejected : ok)++;
  }
  CHECK(ok > 0);
  CHECK(rejected > 0);
}

TEST_CASE("every candidate is accounted for", "[unit]") {
  const Scenario s = gpt_on_a100(32);
  const SearchResult r = run_search(s, quiet());
  long long rejected = 0;
  for (const auto& [k, v] : r.rejected) rejected += v;
  CHECK(r.candidates_evaluated == r.feasible + rejected);
  CHECK(r.feasible == r.timed + r.pruned_by_bound + r.dominated);
  CHECK(r.candidates_evaluated > 1000);
}

TEST_CASE("the output does not depend on the number of threads and is the same on every run", "[unit]") {
  const Scenario s = gpt_on_a100(32);
  SearchOptions one = quiet(), two = quiet();
  one.threads = 1;
  two.threads = 2;
  const std::string a = deterministic_json(run_search(s, one), s);
  CHECK(a == deterministic_json(run_search(s, two), s));
  CHECK(a == deterministic_json(run_search(s, two), s));
}

TEST_CASE("the pick is at least as fast as the scenario's own layout", "[unit]") {
  Scenario s = gpt_on_a100(32);
  s.workload.parallel.tensor_model_parallel_size = 8;
  s.workload.parallel.pipeline_model_parallel_size = 4;
  s.workload.parallel.recompute_granularity = Recompute::Full;
  const SearchResult r = run_search(s, quiet(3));
  REQUIRE(r.baseline);
  REQUIRE(r.baseline->step.fits_in_memory);
  CHECK(r.baseline_in_space);
  CHECK(r.top.front().step.iteration_time <= r.baseline->step.iteration_time);
  CHECK(r.explanation.find("faster than the scenario's layout") != std::string::npos);
  CHECK(r.explanation.find("TP 8 -> ") != std::string::npos);
}

// DualPipe's bubble is (PP/2 - 1)(F&B + B - 3W) (arXiv:2412.19437 Table 2), not 1F1B's
// (p - 1)/(v m) share: the explanation names the schedule's own term.
TEST_CASE("the explanation describes the DualPipe bubble for a DualPipe scenario", "[unit]") {
  const Scenario s = config::load_scenario("deepseek-v3-2048-h800");
  SearchOptions o = quiet(3);
  o.threads = 2;
  const SearchResult r = run_search(s, o);
  CHECK(r.dualpipe);
  INFO(r.explanation);
  CHECK(r.explanation.find("DualPipe bubble (PP/2 - 1)(F&B + B - 3W)") != std::string::npos);
  CHECK(r.explanation.find("(p-1)/(v m)") == std::string::npos);
}

TEST_CASE("when the scenario's own layout is the best, the explanation says so and names the runner-up", "[unit]") {
  Scenario s = gpt_on_a100(32);
  const SearchResult first = run_search(s, quiet(3));
  REQUIRE_FALSE(first.top.empty());
  s.workload = apply(first.top.front().layout, s.workload);
  const SearchResult again = run_search(s, quiet(3));
  REQUIRE(again.baseline);
  CHECK(again.top.front().layout == again.baseline->layout);
  CHECK(again.explanation.find("The scenario's own layout is the best found") == 0);
  CHECK(again.explanation.find("The runner-up changes") != std::string::npos);
}

TEST_CASE("a scenario layout that does not fit is explained with its memory", "[unit]") {
  Scenario s = gpt_on_a100(32, 40, 6144, 48, 512);   // 18.4B without any sharding: > 77 GiB
  const SearchResult r = run_search(s, quiet(1));
  REQUIRE(r.baseline);
  REQUIRE_FALSE(r.baseline->step.fits_in_memory);
  REQUIRE_FALSE(r.top.empty());
  CHECK(r.explanation.find("does not fit: it needs") != std::string::npos);
}

TEST_CASE("a scenario layout outside the space still competes", "[unit]") {
  Scenario s = gpt_on_a100(32);
  s.workload.parallel.pipeline_model_parallel_size = 2;
  s.workload.parallel.pipeline_layer_split = {11, 13};   // not a split the search generates
  const SearchResult r = run_search(s, quiet(1000000));
  REQUIRE(r.baseline);
  CHECK_FALSE(r.baseline_in_space);
  bool found = false;
  for (const auto& e : r.top) found = found || e.layout == r.baseline->layout;
  CHECK(found);
}

TEST_CASE("a model that fits nowhere is explained, not ranked", "[unit]") {
  Scenario s = gpt_on_a100(8);
  s.cluster.gpu.memory = units::gib(4);
  s.cluster.gpu.usable_memory_reserve = units::gib(3);
  const SearchResult r = run_search(s, quiet());
  CHECK(r.top.empty());
  CHECK(r.feasible == 0);
  CHECK(r.rejected.at("out_of_memory") > 0);
  CHECK(r.explanation.find("No layout fits") == 0);
}

TEST_CASE("a memory-balanced split makes layouts fit that the even split does not", "[unit]") {
  // A 40-layer, h 6144 GPT (Megatron's 18.4B) on 16 GPUs with little memory to spare.
  Scenario s = gpt_on_a100(16, 40, 6144, 48, 512);
  s.cluster.gpu.memory = units::gib(40);
  Space space = default_space(s);
  override_dimension(space, "chunked_loss=false");
  SearchOptions o = quiet(1000000);
  o.space = space;
  o.prune = false;
  const SearchResult r = run_search(s, o);
  int balanced = 0, rescued = 0;
  for (const auto& e : r.top) {
    if (!e.layout.balanced_split) continue;
    ++balanced;
    Candidate even = e.layout;
    even.layer_split = default_split(40, even.pp, even.vpp);
    even.balanced_split = false;
    INFO(describe(e.layout));
    CHECK(e.step.fits_in_memory);
    // Balanced splits are only timed when they differ from the default split.
    CHECK(e.layout.layer_split != explicit_split(even.layer_split, 40, even.pp));
    if (!evaluate_candidate(s, even).step.fits_in_memory) ++rescued;
  }
  CHECK(balanced > 0);
  CHECK(rescued > 0);
}

TEST_CASE("time to train ranks like MFU and is reported in days", "[unit]") {
  Scenario s = gpt_on_a100(32);
  SearchOptions o = quiet(3);
  o.objective = Objective::TimeToTrain;
  CHECK_THROWS_AS(run_search(s, o), ConfigError);  // no train_tokens
  s.workload.training.train_tokens = Tokens(3.0e11);
  const SearchResult ttt = run_search(s, o);
  const SearchResult mfu = run_search(s, quiet(3));
  REQUIRE(ttt.top.size() == 3);
  for (size_t i = 0; i < 3; ++i) CHECK(ttt.top[i].layout == mfu.top[i].layout);
  CHECK(ttt.top.front().time_to_train.si() > 0);
  CHECK(to_json(ttt, s).dump().find("\"time_to_train_days\"") != std::string::npos);
}

TEST_CASE("asking for no layouts is a configuration error", "[unit]") {
  CHECK_THROWS_AS(run_search(gpt_on_a100(8), quiet(0)), ConfigError);
}

TEST_CASE("the JSON has the keys scripts rely on and host timings only under host", "[unit]") {
  const Scenario s = gpt_on_a100(32);
  const std::string j = to_json(run_search(s, quiet(2)), s).dump(2);
  for (const char* key : {"\"candidates_evaluated\"", "\"feasible\"", "\"rejected\"", "\"baseline\"", "\"top\"",
                          "\"layout\"", "\"tensor_model_parallel_size\"", "\"mfu\"", "\"iteration_time_s\"",
                          "\"memory_per_gpu_gib\"", "\"breakdown_s\"", "\"explanation\"", "\"host\"", "\"wall_s\"",
                          "\"candidates_per_s\""})
    CHECK(j.find(key) != std::string::npos);
  CHECK(j.find("wall") > j.find("\"host\""));
}

namespace {
int exit_code(const std::string& args) {
  const std::string cmd = fleetsim::testing::fleetsim_binary() + " search " + args + " >/dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
}  // namespace

TEST_CASE("fleetsim search refuses --top 0, an unknown objective and an unknown tier with exit code 2", "[unit]") {
  CHECK(exit_code("--top 0") == 2);
  CHECK(exit_code("--objective fastest") == 2);
  CHECK(exit_code("--verify ns3") == 2);
  CHECK(exit_code("--space warp=2 --top 1") == 2);
}
