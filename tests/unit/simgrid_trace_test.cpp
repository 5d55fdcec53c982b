// The SimGrid tier's iteration trace (sim/simgrid/trace.cpp) read back from the file: ordered and
// nested on every track, the fabric's link tracks present and accounting for every pipeline send
// SimGrid simulated, each pipeline rank's busy time equal to the step model's, the makespan equal
// to the tier's iteration time, and the same bytes on every run.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>

#include "sim/simgrid/simgrid_tier.hpp"
#include "sim/step/collectives.hpp"
#include "sim/step/gemm_efficiency.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/step/trace.hpp"
#include "tests/unit/simgrid_fixtures.hpp"
#include "tests/unit/test_fixtures.hpp"
#include "tests/unit/iteration_trace_io.hpp"

using namespace fleetsim;

namespace {

std::string trace_text(const ClusterSpec& c, const WorkloadSpec& w, const SimgridOptions& o,
                       step::IterationTimeline& tl) {
  tl = simgrid_iteration_timeline(c, w, o);
  return testing::iteration_trace_json(tl, c, w);
}

testing::ReadTrace write_and_read(const ClusterSpec& c, const WorkloadSpec& w, const SimgridOptions& o,
                                  step::IterationTimeline& tl) {
  tl = simgrid_iteration_timeline(c, w, o);
  return testing::write_and_read_iteration_trace(tl, c, w, "fleetsim_simgrid_trace_test");
}

// 1F1B (or interleaved) over 4 nodes' worth of stages, TP 8 inside a node, DP across nodes, a
// distributed optimizer: pipeline sends and DP collectives both cross the fabric.
WorkloadSpec small_gpt(int vpp) {
  WorkloadSpec w = testing::gpt(16, 4096, 32);
  w.parallel.tensor_model_parallel_size = 8;
  w.parallel.pipeline_model_parallel_size = 4;
  w.parallel.virtual_pipeline_model_parallel_size = vpp;
  w.parallel.use_distributed_optimizer = true;
  w.training.global_batch_size = 64;  // DP 8: 8 microbatches per replica
  return w;
}

void check_simgrid_trace(const ClusterSpec& c, const WorkloadSpec& w, const SimgridOptions& o) {
  step::IterationTimeline tl;
  const testing::ReadTrace t = write_and_read(c, w, o, tl);
  testing::check_order_and_nesting(t);
  CHECK(t.root["otherData"]["tier"].as<std::string>() == "simgrid");
  CHECK(t.root["otherData"]["link_tracks"].as<std::string>().find("representative") != std::string::npos);

  // The makespan is the tier's iteration time (a separate evaluation: deterministic).
  const StepResult r = simgrid_evaluate_step(c, w, o);
  const double T = r.iteration_time.si();
  CHECK(tl.result.iteration_time.si() == T);
  bool found = false;
  for (const auto& e : t.events)
    if (e.pid == 1 && e.tid == 0 && e.name == "iteration") {
      found = true;
      CHECK(e.dur == Approx(T).epsilon(1e-12));
    }
  CHECK(found);

  // Busy time per pipeline rank: the step model's, with a straggler's compute stretched by its
  // slowdown on its stage (the SimGrid tier's only change to the stage costs without CP or EP).
  const step::GpuCompute gpu(c.gpu);
  const step::CollectiveModel net(c);
  const step::StageCosts sc = step::stage_costs(c, w, gpu, net);
  const int pp = sc.layout.pp;
  const int dp = sc.layout.dp;
  const int slow_stage = o.straggler ? o.straggler->rank / (c.gpus / pp) : -1;  // tp-cp-dp-pp
  REQUIRE(tl.ranks == pp);
  for (int rank = 0; rank < pp; ++rank) {
    INFO("pipeline rank " << rank << (rank == r.critical_stage ? " (critical)" : "")
                          << (rank == slow_stage ? " (straggler)" : ""));
    std::map<std::string, double> sum;
    double top = 0, end = 0;
    for (const auto& e : t.events) {
      if (e.pid != 1 || e.tid != 1 + 3 * rank) continue;
      sum[e.cat] += e.dur;
      end = std::max(end, e.ts + e.dur);
      const bool is_top = e.cat == "forward" || e.cat == "backward" || e.cat == "bubble" || e.cat == "dp_exposed" ||
                          e.cat == "overlap_contention" || e.cat == "optimizer" || e.cat == "idle";
      if (is_top) top += e.dur;
    }
    CHECK(top == Approx(T).epsilon(1e-9));
    CHECK(end == Approx(T).epsilon(1e-9));
    const step::PhaseTime busy = step::rank_busy_time(sc, rank);
    const double slow = rank == slow_stage ? o.straggler->slowdown : 1.0;
    CHECK(sum["compute"] == Approx(busy.compute().si() * slow).epsilon(1e-9));
    CHECK(sum["tp_comm"] == Approx(busy.tp_comm.si()).epsilon(1e-9).margin(1e-15));
    CHECK(sum["forward"] + sum["backward"] ==
          Approx(busy.total().si() + (slow - 1) * busy.compute().si()).epsilon(1e-9));
    CHECK(sum["pp_comm"] == 0);  // this tier's sends are asynchronous: on the link tracks
    if (rank == r.critical_stage) {
      const StepBreakdown& b = r.breakdown;
      CHECK(sum["compute"] + sum["overlap_contention"] == Approx(b.compute.si()).epsilon(1e-9));
      CHECK(sum["tp_comm"] == Approx(b.tp_comm.si()).epsilon(1e-9).margin(1e-15));
      // Waiting for a transfer is idle time on the rank: the bubble plus the exposed p2p.
      CHECK(sum["bubble"] == Approx((b.bubble + b.pp_comm).si()).epsilon(1e-9).margin(1e-12));
      CHECK(sum["dp_exposed"] == Approx(b.dp_comm.si()).epsilon(1e-9).margin(1e-12));
      CHECK(sum["optimizer"] == Approx(b.optimizer.si()).epsilon(1e-9));
      CHECK(sum["idle"] == Approx(0).margin(1e-12 * T));
    }
  }

  // Link tracks: the stages sit on different nodes (TP 8 fills a node), so every send crosses the
  // NICs: 2 (M) (P V - 1) of them, each the stage GPU's activation or gradient.
  REQUIRE_FALSE(tl.link_tracks.empty());
  int nic_pp = -1, nic_dp = -1;
  for (size_t k = 0; k < tl.link_tracks.size(); ++k) {
    const std::string name = t.thread(2, static_cast<int>(k));
    CHECK(name == tl.link_tracks[k]);
    if (name == "NIC - leaf switch: pipeline sends") nic_pp = static_cast<int>(k);
    if (name == "NIC - leaf switch: DP gradient reductions") nic_dp = static_cast<int>(k);
  }
  REQUIRE(nic_pp >= 0);
  if (dp > 1) CHECK(nic_dp >= 0);
  double sends = 0, bytes = 0;
  for (const auto& e : t.events) {
    if (e.pid != 2) continue;
    CHECK(e.ts + e.dur <= T * (1 + 1e-12));
    if (e.tid != nic_pp) continue;
    sends += e.args["transfers"].as<double>();
    bytes += e.args["bytes"].as<double>();
  }
  const double expected = 2.0 * sc.layout.microbatches * (sc.layout.pp * sc.layout.vpp - 1);
  CHECK(sends == expected);
  CHECK(bytes == Approx(expected * sc.p2p_bytes.si()).epsilon(1e-12));
  // One throughput counter per level, back to 0 at the end.
  CHECK(t.counters.size() == tl.link_counters.size());
  for (const auto& [name, points] : t.counters) {
    INFO(name);
    REQUIRE_FALSE(points.empty());
    CHECK(points.back().second == 0);
    CHECK(points.back().first <= T * (1 + 1e-12));
  }
}

}  // namespace

TEST_CASE("SimGrid iteration trace: 1F1B with DP across nodes, link tracks, busy sums, makespan",
          "[trace][simgrid][unit]") {
  check_simgrid_trace(sgtest::h100_cluster(256), small_gpt(1), {});
}

TEST_CASE("SimGrid iteration trace: interleaved schedule with a straggler GPU on an oversubscribed fabric",
          "[trace][simgrid][unit]") {
  SimgridOptions o;
  o.straggler = SimgridStraggler{2 * 64 + 3, 1.5};  // stage 2 (64 GPUs per stage)
  check_simgrid_trace(sgtest::h100_cluster(256, FabricTopology::RailOptimized, 32, 2.0), small_gpt(2), o);
}

TEST_CASE("SimGrid iteration trace: the same scenario gives the same bytes", "[trace][simgrid][unit]") {
  const auto c = sgtest::h100_cluster(256, FabricTopology::RailOptimized, 32, 2.0);
  step::IterationTimeline a, b;
  CHECK(trace_text(c, small_gpt(2), {}, a) == trace_text(c, small_gpt(2), {}, b));
}
