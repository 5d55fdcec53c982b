// `fleetsim plan` hardening, intervals and scale (issue 40, reproduction 4 and "Plan, as a planner
// needs it" / "Plan at scale"): bad input exits 2 naming the key, a plan with no valid design is
// bad input (unmet constraints are an answer), duplicates are evaluated once, the design product
// is bounded, long plans show progress, the shared stages give the same numbers as designs
// evaluated alone, precision is a candidate dimension, and every design carries 80% intervals
// and a deadline probability (declared uncertain inputs drawn per replication).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/config/catalog.hpp"
#include "sim/config/load.hpp"
#include "sim/core/error.hpp"
#include "sim/core/limits.hpp"
#include "sim/plan/evaluate.hpp"
#include "sim/plan/plan_load.hpp"
#include "sim/plan/summary.hpp"
#include "tests/test_paths.hpp"

using namespace fleetsim;
using fleetsim::testing::run_shell;

namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = (std::filesystem::temp_directory_path() / ("fleetsim_plan_scale_" + name + ".yaml")).string();
  std::ofstream(path) << text;
  return path;
}

plan::Evaluation evaluate(const plan::PlanSpec& p, bool share = true) {
  plan::EvaluateOptions o;
  o.threads = 2;
  o.share_stages = share;
  return plan::evaluate_plan(p, o);
}

// One system and count, every other dimension with two entries (two liquid plants on different
// sites: their runs read the same failure multiplier), 32 designs.
const char* kGrid = R"(
base: llama3-405b-16k
workload: {tokens: 15.6T}
constraints: {deadline: 70 d}
candidates:
  systems: [{gpu: b200, node: dgx-b200}]
  gpus: [8192]
  fabrics: [{fabric: rail-optimized-ndr}, {fabric: fat-tree-ndr-3tier, oversubscription: 2}]
  cooling: [{cooling: air-chiller, site: temperate}, {cooling: liquid-dlc, site: hot-summer}]
  spares: [{share: 0 %}, {share: 2 %}]
  checkpoint:
    - {name: 30min-sync, interval: 30 min, async: false}
    - {name: daly-async, interval: daly}
  failures: [{profile: llama3-h100, rate_scale: 1}, {profile: llama3-h100, rate_scale: 0.5}]
)";

}  // namespace

TEST_CASE("plan: an unknown model exits 2 naming workload.model", "[plan]") {
  const std::string file = write_temp("badmodel", R"(
workload: {model: llama9-999b, tokens: 15.6T}
candidates: {systems: [{gpu: h100-sxm-80gb, node: dgx-h100}], gpus: [8192]}
)");
  const plan::PlanSpec p = plan::load_plan(file);
  try {
    (void)evaluate(p);
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.key() == "workload.model");
    CHECK(e.message().find("llama9-999b") != std::string::npos);
  }
  const auto r = run_shell(fleetsim::testing::fleetsim_binary() + " plan " + file + " 2>&1");
  CHECK(r.code == 2);
  CHECK(r.out.find("workload.model") != std::string::npos);
}

TEST_CASE("plan: no valid design exits 2, valid designs that miss the constraints exit 0", "[plan]") {
  const std::string bin = fleetsim::testing::fleetsim_binary();
  // NVL72 racks on an air plant only: every design is skipped.
  const std::string file = write_temp("allinvalid", R"(
workload: {tokens: 15.6T}
constraints: {deadline: 70 d}
candidates:
  systems: [{gpu: gb200, node: gb200-nvl72}]
  gpus: [8192]
  cooling: [{cooling: air-chiller, site: temperate}]
)");
  auto r = run_shell(bin + " plan " + file + " --threads 2 2>&1");
  CHECK(r.code == 2);
  CHECK(r.out.find("candidates") != std::string::npos);
  CHECK(r.out.find("none of the") != std::string::npos);
  CHECK(r.out.find("liquid-cooled only") != std::string::npos);
  // A count no layout divides (2,048 sequences over DP 320 at 20,480 GPUs), with no other count.
  const plan::PlanSpec p = plan::load_plan_text(R"(
workload: {tokens: 15.6T}
candidates: {systems: [{gpu: h100-sxm-80gb, node: dgx-h100}], gpus: [20480]}
)", "nolayout.yaml");
  const plan::Evaluation ev = evaluate(p);
  CHECK_THROWS_AS(plan::require_some_valid_design(p, ev), ConfigError);
  // gpus_max prunes are valid designs that miss a constraint: an answer, not bad input.
  const plan::PlanSpec q = plan::load_plan_text(R"(
workload: {tokens: 15.6T}
constraints: {gpus_max: 1000}
candidates: {systems: [{gpu: h100-sxm-80gb, node: dgx-h100}], gpus: [8192]}
)", "pruned.yaml");
  const plan::Evaluation eq = evaluate(q);
  CHECK_NOTHROW(plan::require_some_valid_design(q, eq));
  CHECK_FALSE(plan::summarize(q, eq.designs).met);
}

TEST_CASE("plan: duplicate candidates are evaluated and listed once, and said so", "[plan]") {
  const std::string text = R"(
workload: {tokens: 15.6T}
candidates:
  systems: [{gpu: h100-sxm-80gb, node: dgx-h100}, {gpu: h100-sxm-80gb, node: dgx-h100}]
  gpus: [8192, 16384, 8192]
  spares: [{share: 2 %}, {share: 0.02}]
  checkpoint: [{name: a, interval: daly}, {name: b, interval: daly}]
)";
  const plan::PlanSpec p = plan::load_plan_text(text, "dups.yaml");
  CHECK(p.systems.size() == 1);
  CHECK(p.gpus == std::vector<int>{8192, 16384});
  CHECK(p.spares.size() == 1);
  CHECK(p.checkpoints.size() == 1);   // the same policy under two names
  CHECK(plan::enumerate_designs(p).size() == 2);
  REQUIRE(p.duplicates.size() == 4);
  CHECK(p.duplicates[1] == "candidates.gpus: 8192 is listed 2 times; evaluated and listed once");
  // Two different policies under one name are ambiguous: an error naming the key.
  REQUIRE_THROWS_WITH(plan::load_plan_text(R"(
workload: {tokens: 15.6T}
candidates:
  systems: [{gpu: h100-sxm-80gb, node: dgx-h100}]
  gpus: [8192]
  checkpoint: [{name: a, interval: daly}, {name: a, interval: 30 min}]
)", "samename.yaml"), Catch::Contains("candidates.checkpoint.name"));
}

TEST_CASE("plan: the design product is bounded before anything is enumerated", "[plan]") {
  // 480 counts x 100 spare shares x 100 failure scales = 4.8M designs.
  std::ostringstream t;
  t << "workload: {tokens: 15.6T}\ncandidates:\n  systems: [{gpu: h100-sxm-80gb, node: dgx-h100}]\n  gpus: [";
  for (int i = 1; i <= 480; ++i) t << (i > 1 ? ", " : "") << 8 * i;
  t << "]\n  spares: [";
  for (int i = 0; i < 100; ++i) t << (i ? ", " : "") << "{share: " << i * 0.001 << "}";
  t << "]\n  failures: [";
  for (int i = 1; i <= 100; ++i) t << (i > 1 ? ", " : "") << "{profile: llama3-h100, rate_scale: " << i * 0.01 << "}";
  t << "]\n";
  try {
    (void)plan::load_plan_text(t.str(), "huge.yaml");
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.key() == "candidates");
    CHECK(e.message().find("4800000 designs (1 systems x 480 gpus x 100 spares x 100 failures)") != std::string::npos);
    CHECK(e.message().find("100000") != std::string::npos);
  }
  const auto r = run_shell(fleetsim::testing::fleetsim_binary() + " plan " + write_temp("huge", t.str()) + " 2>&1");
  CHECK(r.code == 2);
  CHECK(r.out.find("exceed the bound") != std::string::npos);
}

TEST_CASE("plan: progress covers every group and design, on a terminal it is printed", "[plan]") {
  const plan::PlanSpec p = plan::load_plan_text(kGrid, "grid.yaml", {"candidates.gpus=[8192, 20480]"});
  plan::EvaluateOptions o;
  o.threads = 2;
  std::vector<plan::Progress> seen;
  o.progress = [&](const plan::Progress& x) { seen.push_back(x); };
  const plan::Evaluation ev = plan::evaluate_plan(p, o);
  REQUIRE_FALSE(seen.empty());
  for (size_t k = 1; k < seen.size(); ++k) {
    CHECK(seen[k].designs_done >= seen[k - 1].designs_done);
    CHECK(seen[k].groups_done >= seen[k - 1].groups_done);
  }
  CHECK(seen.back().designs_done == static_cast<int>(ev.designs.size()));
  CHECK(seen.back().groups_done == 2);
  // Under a pseudo-terminal (util-linux script) stderr shows it; piped, it stays silent.
  const std::string file = write_temp("grid", kGrid);
  const std::string bin = fleetsim::testing::fleetsim_binary();
  auto r = run_shell("script -qec \"" + bin + " plan " + file + " --threads 2 >/dev/null\" /dev/null");
  CHECK(r.code == 0);
  CHECK(r.out.find("32 / 32 designs") != std::string::npos);
  r = run_shell(bin + " plan " + file + " --threads 2 2>&1 >/dev/null");
  CHECK(r.out.find("designs") == std::string::npos);
}

TEST_CASE("plan: shared stages give the same numbers as every design evaluated alone", "[plan]") {
  const plan::PlanSpec p = plan::load_plan_text(kGrid, "grid.yaml");
  const plan::Evaluation a = evaluate(p, true), b = evaluate(p, false);
  REQUIRE(a.designs.size() == 32);
  REQUIRE(b.designs.size() == 32);
  int evaluated = 0;
  for (size_t i = 0; i < a.designs.size(); ++i) {
    const plan::Design &x = a.designs[i], &y = b.designs[i];
    INFO("design " << i);
    CHECK(x.status == y.status);
    CHECK(x.sets == y.sets);
    CHECK(x.layout == y.layout);
    evaluated += x.evaluated;
    for (auto [u, v] : {std::pair{x.days, y.days}, {x.ettr, y.ettr}, {x.pue, y.pue}, {x.mfu, y.mfu},
                        {x.iteration_s, y.iteration_s}, {x.peak_facility_mw, y.peak_facility_mw},
                        {x.facility_mwh, y.facility_mwh}, {x.co2_t, y.co2_t}, {x.cost.run_usd, y.cost.run_usd},
                        {x.cost.capex(), y.cost.capex()}, {x.days_lo, y.days_lo}, {x.days_hi, y.days_hi},
                        {x.cost_lo, y.cost_lo}, {x.cost_hi, y.cost_hi}, {x.deadline_probability, y.deadline_probability},
                        {x.effective_utilization, y.effective_utilization}})
      CHECK(u == v);
  }
  CHECK(evaluated == 32);
}

TEST_CASE("plan: precision is a candidate dimension (bf16, fp8)", "[plan]") {
  const plan::PlanSpec p = plan::load_plan_text(R"(
workload: {tokens: 15.6T}
constraints: {deadline: 70 d}
candidates:
  systems: [{gpu: h100-sxm-80gb, node: dgx-h100}]
  gpus: [16384]
  precision: [{precision: bf16}, {precision: fp8}]
)", "prec.yaml");
  const plan::Evaluation ev = evaluate(p);
  REQUIRE(ev.designs.size() == 2);
  CHECK(ev.layout_searches == 2);
  const plan::Design &bf16 = ev.designs[0], &fp8 = ev.designs[1];
  CHECK(bf16.precision == "bf16");
  CHECK(fp8.precision == "fp8");
  REQUIRE(fp8.evaluated);
  CHECK(std::find(fp8.sets.begin(), fp8.sets.end(), "workload.training.precision=fp8") != fp8.sets.end());
  CHECK(fp8.iteration_s < bf16.iteration_s);   // FP8 GEMMs on Hopper
  // The design's --set list re-builds a scenario in its precision.
  CHECK(config::load_scenario(p.base, fp8.sets).workload.training.precision == Precision::Fp8);
  // The plan without the list keeps the base's precision and says which.
  const plan::PlanSpec q = plan::load_plan_text("workload: {tokens: 1T}\ncandidates: {systems: [{gpu: h100-sxm-80gb, node: dgx-h100}], gpus: [8192]}\n", "q.yaml");
  CHECK(plan::enumerate_designs(q).front().precision.empty());
  REQUIRE_THROWS_WITH(plan::evaluate_plan(plan::load_plan_text(R"(
workload: {tokens: 15.6T}
candidates: {systems: [{gpu: h100-sxm-80gb, node: dgx-h100}], gpus: [8192], precision: [{precision: fp4}]}
)", "badprec.yaml")), Catch::Contains("candidates.precision"));
}

TEST_CASE("plan: every design has 80% intervals of days and cost and a deadline probability", "[plan]") {
  const plan::PlanSpec p = plan::load_plan_text(kGrid, "grid.yaml", {"evaluation.replications=4"});
  const plan::Evaluation ev = evaluate(p);
  for (const auto& d : ev.designs) {
    REQUIRE(d.evaluated);
    CHECK(d.interval_level == 0.8);
    CHECK(d.days_lo < d.days);
    CHECK(d.days < d.days_hi);
    CHECK(d.cost_lo < d.cost.run_usd);
    CHECK(d.cost.run_usd < d.cost_hi);
    CHECK(d.deadline_probability >= 0.0);
    CHECK(d.deadline_probability <= 1.0);
    CHECK_FALSE(d.grade.empty());
  }
  // A later deadline is likelier to be met; one at the 80% interval's high end about 90%
  // (the interval is central: 10% above it) when the replications' spread is small.
  const plan::PlanSpec late = plan::load_plan_text(kGrid, "grid.yaml", {"evaluation.replications=4", "constraints.deadline=200 d"});
  const plan::Evaluation el = evaluate(late);
  for (size_t i = 0; i < ev.designs.size(); ++i) CHECK(el.designs[i].deadline_probability >= ev.designs[i].deadline_probability);
  const plan::Design& d0 = ev.designs[0];
  const plan::PlanSpec at_hi = plan::load_plan_text(kGrid, "grid.yaml", {"evaluation.replications=4",
                                                                         "constraints.deadline=" + std::to_string(d0.days_hi) + " d"});
  CHECK(evaluate(at_hi).designs[0].deadline_probability == Approx(0.9).margin(0.05));
  // JSON keys beside the headline numbers.
  const std::string file = write_temp("grid", kGrid);
  const auto r = run_shell(fleetsim::testing::fleetsim_binary() + " plan " + file + " --threads 2 --json 2>/dev/null");
  REQUIRE(r.code == 0);
  for (const char* key : {"\"days_interval\"", "\"cost_usd_interval\"", "\"deadline_probability\"", "\"lo\"", "\"hi\"",
                          "\"level\"", "\"precision\""})
    CHECK(r.out.find(key) != std::string::npos);
}

TEST_CASE("plan: declared uncertain inputs of the base scenario are drawn per replication", "[plan]") {
  std::ifstream in(config::scenarios_dir() + "/llama3-405b-16k.yaml");
  std::stringstream base;
  base << in.rdbuf();
  std::string text = base.str();
  const std::string from = "failures:\n  profile: llama3-h100\n";
  REQUIRE(text.find(from) != std::string::npos);
  text.replace(text.find(from), from.size(), from + "  rate_scale: {value: 1, range: [0.25, 4]}\n");
  const std::string scenario = write_temp("declared_base", text);
  const std::string plan_text = "base: " + scenario + R"(
workload: {tokens: 15.6T}
constraints: {deadline: 70 d}
candidates: {systems: [{gpu: b200, node: dgx-b200}], gpus: [8192]}
evaluation: {replications: 8}
)";
  const plan::Evaluation drawn = evaluate(plan::load_plan_text(plan_text, "declared.yaml"));
  const plan::Evaluation fixed = evaluate(plan::load_plan_text(plan_text, "declared.yaml", {"base=llama3-405b-16k"}));
  REQUIRE(drawn.designs.front().evaluated);
  REQUIRE(fixed.designs.front().evaluated);
  // The failure rate drawn over a 16x range moves the ETTR of each replication: wider interval.
  const auto width = [](const plan::Design& d) { return d.days_hi / d.days_lo; };
  INFO("drawn " << drawn.designs.front().days_lo << "-" << drawn.designs.front().days_hi << ", fixed "
                << fixed.designs.front().days_lo << "-" << fixed.designs.front().days_hi);
  CHECK(width(drawn.designs.front()) > width(fixed.designs.front()));
}
