// Cross-tier consistency (DESIGN.md §2): on contention-free fabrics the SimGrid tier reproduces the
// analytical tier's iteration time within 3%, for the default scenario (Llama 3 405B on 16,384 H100,
// arXiv:2407.21783 Table 4 row 2), Selene (scenarios/selene-a100.yaml) and every row of Megatron-LM
// SC'21 Table 1 (Narayanan et al., arXiv:2104.04473). Each case forks SimGrid processes.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include "sim/config/load.hpp"
#include "sim/pipeline/tier.hpp"
#include "sim/simgrid/simgrid_tier.hpp"
#include "sim/step/step_model.hpp"
#include "sim/reproduce/step_sources.hpp"

using namespace fleetsim;

namespace {

double relative_gap(const ClusterSpec& c, const WorkloadSpec& w, const char* name) {
  const StepResult a = evaluate_step(c, w);
  const StepResult s = simgrid_evaluate_step(c, w);
  const double gap = s.iteration_time.si() / a.iteration_time.si() - 1.0;
  std::printf("  %-44s analytical %9.4f s  simgrid %9.4f s  gap %+6.2f%%\n", name, a.iteration_time.si(),
              s.iteration_time.si(), 100 * gap);
  CHECK(s.tier == "simgrid");
  return gap;
}

}  // namespace

TEST_CASE("on a non-blocking fabric the SimGrid tier agrees with the analytical tier within 3% for Llama 3 405B "
          "on 16,384 H100",
          "[validation][simgrid]") {
  // llama3-clos with 1:1 between pods: the default scenario's fabric made non-blocking.
  const Scenario s = config::load_scenario("", {"cluster.fabric.pod_oversubscription=1"});
  CHECK(std::fabs(relative_gap(s.cluster, s.workload, "Llama 3 405B, 16,384 H100, TP8 PP16 DP128")) < 0.03);
}

TEST_CASE("the SimGrid tier agrees with the analytical tier within 3% on Selene", "[validation][simgrid]") {
  const Scenario s = config::load_scenario("selene-a100");
  CHECK(std::fabs(relative_gap(s.cluster, s.workload, "selene-a100 (145.6B, 1,536 A100)")) < 0.03);
}

TEST_CASE("the SimGrid tier agrees with the analytical tier within 3% on every Megatron-LM SC'21 Table 1 row",
          "[validation][simgrid][slow]") {
  for (const auto& c : reproduce::megatron_sc21_table1_cases()) {
    INFO(c.name);
    CHECK(std::fabs(relative_gap(c.scenario.cluster, c.scenario.workload, c.name.c_str())) < 0.03);
  }
}

TEST_CASE("the SimGrid tier installs itself behind step.tier: simgrid, and the run model's degraded states map onto it",
          "[validation][simgrid]") {
  install_simgrid_tier();
  REQUIRE(simgrid_tier_available());
  Scenario s = config::load_scenario("", {"cluster.fabric.pod_oversubscription=1"});
  s.tier = StepTier::SimGrid;
  const StepResult healthy = evaluate_step_on_tier(s, StepOptions{});
  CHECK(healthy.tier == "simgrid");
  StepOptions fail_slow;
  fail_slow.compute_slowdown = 1.5;  // one fail-slow GPU on this tier (every GPU on the analytical one)
  const StepResult slow = evaluate_step_on_tier(s, fail_slow);
  CHECK(slow.iteration_time > healthy.iteration_time);
  CHECK(slow.iteration_time < evaluate_step(s.cluster, s.workload, fail_slow).iteration_time);
  StepOptions cable;
  cable.fabric_bandwidth_scale = 0.5;  // one NIC cable at half rate
  CHECK(evaluate_step_on_tier(s, cable).iteration_time >= healthy.iteration_time);
}
