// Stream jobs' traffic from the step model (issue 28, sim/pool/traffic.hpp): one representative
// model and layout per size class, timed once; which collectives cross the fabric; the iteration
// time against the communication slowdown; the comm_share override wins when set.
#include <catch2/catch.hpp>

#include <cstdio>

#include "sim/config/load.hpp"
#include "sim/pool/pool_model.hpp"
#include "sim/pool/traffic.hpp"
#include "sim/step/step_model.hpp"
#include "tests/test_paths.hpp"

namespace {

fleetsim::Scenario interference_scenario(std::vector<std::string> sets = {}) {
  return fleetsim::config::load_scenario(fleetsim::testing::source_dir() + "/scenarios/pool-interference.yaml", sets);
}

}  // namespace

TEST_CASE("pool traffic: one step-model class per size and model, TP inside the node, DP across it",
          "[unit][pool][interference]") {
  const auto s = interference_scenario();
  REQUIRE(s.pool.interference.traffic_from_step);
  const auto in = fleetsim::pool::pool_inputs(s);
  // Sizes 16 .. 256 (the stream's largest class), dense and MoE: 5 + 5 classes, evaluated once.
  REQUIRE(in.traffic.size() == 10);
  for (const auto& t : in.traffic) {
    std::printf("  %4d GPUs %-5s %-13s %-22s crossing %-8s iteration %7.3f s, fabric %6.3f s (%5.2f GB/NIC), "
                "on the fabric %4.1f%%, exposed at 2x %4.1f%%, %s\n",
                t.gpus, t.moe ? "moe" : "dense", t.model.c_str(), t.layout.c_str(), t.crossing.c_str(), t.iteration_s,
                t.fabric_s, t.fabric_bytes / 1e9, 100 * t.profile.comm_share, 100 * t.exposed_share,
                t.profile.pattern == fleetsim::TrafficPattern::AllToAll ? "all-to-all" : "ring");
    CHECK(t.iteration_s > 0);
    CHECK(t.crossing.find("tp") == std::string::npos);  // TP stays in NVLink (TP <= GPUs per node)
    CHECK_FALSE(t.crossing.empty());  // 16+ GPUs: some group (DP, or PP when DP fits in a node) spans nodes
    if (t.gpus >= 64) CHECK(t.crossing.find("dp") != std::string::npos);  // DP > 8 / TP: across nodes
    CHECK(t.profile.comm_share > 0);
    CHECK(t.profile.comm_share < 1);
    CHECK(t.fabric_bytes > 0);
    CHECK(t.model == (t.moe ? "mixtral-8x7b" : t.gpus < 128 ? "llama3-8b" : "llama3-70b"));
    CHECK((t.profile.pattern == fleetsim::TrafficPattern::AllToAll) == (t.crossing.find("ep") != std::string::npos));
    // T(s) / T(1) starts at 1 and never falls as communication slows; overlap hides the start.
    REQUIRE(t.profile.s_grid.size() == t.profile.t_rel.size());
    CHECK(t.profile.t_rel.front() == 1.0);
    for (size_t k = 1; k < t.profile.t_rel.size(); ++k) CHECK(t.profile.t_rel[k] >= t.profile.t_rel[k - 1] - 1e-12);
    // Slowing communication 3x costs at most twice its time at line rate (1% for per-message latency).
    CHECK(t.profile.relative_time(3.0) - 1.0 <= 2.02 * t.profile.comm_share + 1e-9);
  }
  // A job picks the class at or below its size; between classes the smaller one's traffic.
  CHECK(fleetsim::pool::traffic_for(in.traffic, 48, false).gpus == 32);
  CHECK(fleetsim::pool::traffic_for(in.traffic, 256, true).gpus == 256);
}

TEST_CASE("pool traffic: the step model's points are the step model's iteration times", "[unit][pool][interference]") {
  const auto s = interference_scenario();
  const auto table = fleetsim::pool::stream_traffic(s, 64);
  const auto& t = fleetsim::pool::traffic_for(table, 64, false);
  // Re-time the same layout by hand at a slowdown of 4: the fabric at a quarter of the line rate.
  fleetsim::ClusterSpec c = s.cluster;
  c.gpus = 64;
  c.fabric.oversubscription = 1;
  c.fabric.pod_oversubscription = 1;
  fleetsim::WorkloadSpec w;
  w.model = s.pool.interference.stream_models.front().model;
  int tp = 0, pp = 0, dp = 0;
  REQUIRE(std::sscanf(t.layout.c_str(), "TP%d PP%d DP%d", &tp, &pp, &dp) == 3);
  w.parallel.tensor_model_parallel_size = tp;
  w.parallel.pipeline_model_parallel_size = pp;
  w.parallel.sequence_parallel = tp > 1;
  w.parallel.use_distributed_optimizer = true;
  w.training.micro_batch_size = 1;
  w.training.global_batch_size = ((1 << 20) / w.model.seq_length + dp - 1) / dp * dp;
  const double t1 = fleetsim::evaluate_step(c, w).iteration_time.si();
  const double t4 = fleetsim::evaluate_step(c, w, fleetsim::StepOptions{1.0, 0.25, nullptr}).iteration_time.si();
  CHECK(t.iteration_s == Approx(t1).epsilon(1e-12));
  CHECK(t.profile.relative_time(4.0) == Approx(t4 / t1).epsilon(1e-12));
}

TEST_CASE("pool traffic: an explicit comm_share wins over the step model (earlier scenarios reproduce)",
          "[unit][pool][interference]") {
  const auto step = interference_scenario({"pool.duration=2 d"});
  const auto over = interference_scenario({"pool.duration=2 d", "pool.interference.comm_share=0.25"});
  CHECK(step.pool.interference.traffic_from_step);
  CHECK_FALSE(over.pool.interference.traffic_from_step);
  CHECK(fleetsim::pool::pool_inputs(over).traffic.empty());  // nothing timed when the override is set
  // The closed form of the override: T(s) / T(1) = 1 - c + c s.
  fleetsim::pool::TrafficProfile p;
  p.comm_share = 0.25;
  CHECK(p.relative_time(3.0) == Approx(1.5));
  // Both run and lose GPU-hours to interference at 3:1 with first-fit; the numbers differ.
  auto lost = [](const fleetsim::Scenario& sc) {
    fleetsim::Scenario x = sc;
    x.cluster.fabric.oversubscription = 3;
    x.pool.placement = fleetsim::PlacementPolicy::FirstFit;
    x.pool.replications = 1;
    return fleetsim::pool::simulate_pool(x, 1).replications.front().interference.gpu_hours_lost;
  };
  const double a = lost(step), b = lost(over);
  std::printf("  3:1 first-fit, 2 days: interference GPU-h lost, step model %.0f, comm_share 0.25 %.0f\n", a, b);
  CHECK(a > 0);
  CHECK(b > 0);
  CHECK(a != b);
}
