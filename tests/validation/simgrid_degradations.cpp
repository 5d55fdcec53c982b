// What only the SimGrid tier can answer, on Llama 3 405B over 16,384 H100 (TP 8, PP 16, DP 128;
// arXiv:2407.21783 Table 4 row 2): oversubscription, placement, a degraded or failed cable, one
// straggler GPU and a second job on the same fabric. Each test checks the direction and the size
// of the effect against the physics of the layout (comments give the arithmetic).
#include <catch2/catch.hpp>

#include <cstdio>

#include "sim/simgrid/simgrid_tier.hpp"
#include "sim/step/collectives.hpp"
#include "sim/step/gemm_efficiency.hpp"
#include "sim/step/pipeline_schedule.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/step/step_model.hpp"
#include "tests/unit/simgrid_fixtures.hpp"

using namespace fleetsim;
using sgtest::h100_cluster;

namespace {

constexpr int kGpus = 16384;

// Gradients all-reduced after the backward, not overlapped: the data-parallel time is all exposed.
WorkloadSpec exposed_dp(const char* order = "tp-cp-dp-pp") {
  WorkloadSpec w = sgtest::llama3_405b(kGpus);
  w.parallel.zero_stage = 0;
  w.parallel.overlap_grad_reduce = false;
  w.parallel.rank_order = order;
  return w;
}

// Llama 3's Clos: 16 GPUs per ToR, 3,072-GPU pods, `pod` oversubscription between pods.
ClusterSpec clos(double leaf = 1.0, double pod = 7.0) {
  return h100_cluster(kGpus, FabricTopology::FatTree, 16, leaf, 3, 3072, pod);
}

StepResult run(const ClusterSpec& c, const WorkloadSpec& w, const char* label, const SimgridOptions& o = {}) {
  const StepResult r = simgrid_evaluate_step(c, w, o);
  const auto& b = r.breakdown;
  std::printf("  %-52s iter %8.4f s  dp %7.4f  pp %7.4f  bubble %7.4f  mfu %.4f\n", label, r.iteration_time.si(),
              b.dp_comm.si(), b.pp_comm.si(), b.bubble.si(), r.mfu);
  return r;
}

}  // namespace

TEST_CASE("a 2:1 and a 4:1 leaf make a data-parallel ring that crosses leaves 2x and 4x slower in its fabric part",
          "[validation][simgrid]") {
  // One node per leaf (8 GPUs per ToR): every ring edge leaves its leaf and the 8 rings of a node
  // (one per TP rank) share 8 / oversubscription uplink ports.
  auto fabric = [](double o) { return h100_cluster(kGpus, FabricTopology::FatTree, 8, o, 2); };
  const auto w = exposed_dp();
  const double d1 = run(fabric(1), w, "1 node per leaf, 1:1").breakdown.dp_comm.si();
  const double d2 = run(fabric(2), w, "1 node per leaf, 2:1").breakdown.dp_comm.si();
  const double d4 = run(fabric(4), w, "1 node per leaf, 4:1").breakdown.dp_comm.si();
  // 254 ring steps of 5 us latency each (2 us software + 3 switch hops) do not depend on bandwidth.
  const double lat = 254 * 5e-6;
  CHECK((d2 - lat) / (d1 - lat) == Approx(2.0).epsilon(0.02));
  CHECK((d4 - lat) / (d1 - lat) == Approx(4.0).epsilon(0.02));
}

TEST_CASE("Llama 3's 1:7 between pods costs its own rank order nothing and Megatron's order only at pod-crossing "
          "pipeline hops",
          "[validation][simgrid]") {
  // tp-cp-pp-dp: a pipeline is 16 consecutive nodes inside one pod; a DP ring leaves a pod on one
  // edge per ring: 128 rings x 1 flow on a pod uplink of 3,072 / 7 = 439 ports.
  const auto llama = exposed_dp("tp-cp-pp-dp");
  const double flat = run(clos(1, 1), llama, "tp-cp-pp-dp, pods 1:1").iteration_time.si();
  const double seven = run(clos(1, 7), llama, "tp-cp-pp-dp, pods 1:7").iteration_time.si();
  CHECK(seven == Approx(flat).epsilon(1e-4));
  // tp-cp-dp-pp: a stage is 1,024 GPUs, so 5 of 15 stage boundaries cross a pod boundary and up to
  // 1,024 activations share a pod uplink: those sends run up to 1024 / 439 = 2.3x slower.
  const auto megatron = exposed_dp("tp-cp-dp-pp");
  const auto m_flat = run(clos(1, 1), megatron, "tp-cp-dp-pp, pods 1:1");
  const auto m_seven = run(clos(1, 7), megatron, "tp-cp-dp-pp, pods 1:7");
  CHECK(m_seven.breakdown.pp_comm.si() > 1.2 * m_flat.breakdown.pp_comm.si());
  CHECK(m_seven.breakdown.pp_comm.si() < 2.4 * m_flat.breakdown.pp_comm.si());
  CHECK(m_seven.breakdown.dp_comm.si() == Approx(m_flat.breakdown.dp_comm.si()).epsilon(1e-3));
}

TEST_CASE("scattered nodes cost nothing on a non-blocking fabric and several times the DP time across 1:7 pods",
          "[validation][simgrid]") {
  const auto w = exposed_dp("tp-cp-pp-dp");
  SimgridOptions scattered;
  scattered.placement = SimgridPlacement::Scattered;
  scattered.placement_seed = 11;
  const auto c1 = run(clos(1, 1), w, "contiguous, pods 1:1");
  const auto s1 = run(clos(1, 1), w, "scattered, pods 1:1", scattered);
  CHECK(s1.breakdown.dp_comm.si() == Approx(c1.breakdown.dp_comm.si()).epsilon(0.01));
  const auto c7 = run(clos(1, 7), w, "contiguous, pods 1:7");
  const auto s7 = run(clos(1, 7), w, "scattered, pods 1:7", scattered);
  // Scattered, 7 of 8 ring edges leave their pod: ~2,700 flows on 439 ports, about 6x.
  CHECK(s7.breakdown.dp_comm.si() > 4.0 * c7.breakdown.dp_comm.si());
  CHECK(s7.breakdown.dp_comm.si() < 7.5 * c7.breakdown.dp_comm.si());
}

TEST_CASE("one NIC cable at half rate doubles the fabric time of the rings through it, a failed one reroutes at "
          "the same cost",
          "[validation][simgrid]") {
  const auto c = clos(1, 1);
  const auto w = exposed_dp();
  const StepResult healthy = run(c, w, "healthy");
  SimgridOptions half;
  half.cable_fault = SimgridCableFault{SimgridCableFault::Where::GpuNic, 0, 0.5};
  const StepResult degraded = run(c, w, "rank 0's NIC cable at half rate", half);
  SimgridOptions down;
  down.cable_fault = SimgridCableFault{SimgridCableFault::Where::GpuNic, 0, 0.0};
  const StepResult failed = run(c, w, "rank 0's NIC cable down (PXN reroute)", down);
  StepOptions everything_half;
  everything_half.fabric_bandwidth_scale = 0.5;
  const StepResult all_half = evaluate_step(c, w, everything_half);
  std::printf("  %-52s iter %8.4f s  dp %7.4f\n", "analytical, every link at half rate", all_half.iteration_time.si(),
              all_half.breakdown.dp_comm.si());
  // The all-reduce is gated by the slowest ring: one slow cable costs the whole job the same DP
  // time as halving every link, while the pipeline of rank 0 alone pays in its sends.
  const double lat = 254 * 5e-6;
  CHECK((degraded.breakdown.dp_comm.si() - lat) / (healthy.breakdown.dp_comm.si() - lat) ==
        Approx(2.0).epsilon(0.03));
  CHECK((failed.breakdown.dp_comm.si() - lat) / (healthy.breakdown.dp_comm.si() - lat) == Approx(2.0).epsilon(0.03));
  CHECK(degraded.iteration_time > healthy.iteration_time);
  CHECK(degraded.iteration_time <= all_half.iteration_time * 1.01);
  // A failed uplink of a leaf only removes 1 of its 16 ports: ECMP spreads the rest.
  SimgridOptions uplink;
  uplink.cable_fault = SimgridCableFault{SimgridCableFault::Where::LeafUplink, 0, 0.0};
  const StepResult leaf = run(c, w, "one uplink of rank 0's leaf down", uplink);
  CHECK(leaf.iteration_time.si() == Approx(healthy.iteration_time.si()).epsilon(0.005));
}

TEST_CASE("one straggler GPU slows its whole pipeline stage and so every replica, less than a uniformly slow cluster",
          "[validation][simgrid]") {
  const auto c = clos(1, 1);
  const auto w = sgtest::llama3_405b(kGpus);
  const StepResult healthy = run(c, w, "healthy");
  SimgridOptions one;
  one.straggler = SimgridStraggler{3 * 1024 + 5, 1.5};  // stage 3 (tp-cp-dp-pp), 1.5x slower kernels
  const StepResult slow = run(c, w, "one GPU 1.5x slower", one);
  StepOptions all;
  all.compute_slowdown = 1.5;
  const StepResult all_slow = evaluate_step(c, w, all);
  std::printf("  %-52s iter %8.4f s\n", "analytical, every GPU 1.5x slower", all_slow.iteration_time.si());
  CHECK(slow.iteration_time > healthy.iteration_time * 1.03);
  CHECK(slow.iteration_time < all_slow.iteration_time);
  // 1F1B with 16 microbatches on 16 stages is mostly bubble, which absorbs much of the slow stage's
  // extra time: the added time is what the list-scheduled schedule gives with stage 3 slowed.
  const step::GpuCompute gpu(c.gpu);
  const step::CollectiveModel net(c);
  const step::StageCosts sc = step::stage_costs(c, w, gpu, net);
  const auto& l = sc.layout;
  std::vector<double> f, b, fs, bs;
  for (int j = 0; j < l.chunks(); ++j) {
    const auto& ch = sc.chunks[static_cast<size_t>(j)];
    f.push_back(ch.forward_time().si());
    b.push_back(ch.backward_time().si());
    const bool hit = l.rank_of_chunk(j) == 3;
    fs.push_back(f.back() + (hit ? 0.5 * ch.forward.compute().si() : 0.0));
    bs.push_back(b.back() + (hit ? 0.5 * (ch.backward.compute() + ch.recompute.compute()).si() : 0.0));
  }
  const step::PipelineSchedule sched(l.pp, l.vpp, l.microbatches);
  step::ScheduleTimes t0, t1;
  step::time_schedule(sched, f, b, sc.p2p_time.si(), t0);
  step::time_schedule(sched, fs, bs, sc.p2p_time.si(), t1);
  // Less what the slowed stage now hides: its longer forwards and backwards cover more of its
  // ZeRO-3 gathers (sim/step/compose.cpp), so exposed DP time and contention shrink.
  const double added = slow.iteration_time.si() - healthy.iteration_time.si();
  const double hides_more = (healthy.breakdown.dp_comm - slow.breakdown.dp_comm).si() +
                            (healthy.breakdown.overlap_contention - slow.breakdown.overlap_contention).si();
  std::printf("  straggler adds %.4f s (+%.4f s it hides more); the list-scheduled schedule with stage 3 slowed "
              "adds %.4f s\n", added, hides_more, t1.makespan - t0.makespan);
  CHECK(hides_more >= 0);
  CHECK(added + hides_more == Approx(t1.makespan - t0.makespan).epsilon(0.05));
}

TEST_CASE("a second job on an oversubscribed fabric slows our data-parallel time, on a non-blocking one it does not",
          "[validation][simgrid]") {
  const auto w = exposed_dp();
  SimgridOptions shared;
  shared.sharing_job_gpus = kGpus;
  // One node per leaf for each job (16 GPUs per ToR, nodes interleaved): our 8 rings and theirs
  // share a leaf's uplinks.
  auto fabric = [](double o) { return h100_cluster(kGpus, FabricTopology::FatTree, 16, o, 2); };
  const auto alone1 = run(fabric(1), w, "alone, 1:1");
  const auto both1 = run(fabric(1), w, "with a second 16k job, 1:1", shared);
  CHECK(both1.breakdown.dp_comm.si() == Approx(alone1.breakdown.dp_comm.si()).epsilon(0.01));
  const auto alone2 = run(fabric(2), w, "alone, 2:1");
  const auto both2 = run(fabric(2), w, "with a second 16k job, 2:1", shared);
  // Alone, our ring edges (1 per node and TP rank) use 8 of a leaf's 8 ports; shared, 16 flows.
  CHECK(both2.breakdown.dp_comm.si() > 1.8 * alone2.breakdown.dp_comm.si());
}

TEST_CASE("degraded-state iteration times are memoized per state for the run model", "[validation][simgrid]") {
  SimgridIterationTimes times(clos(1, 1), sgtest::llama3_405b(kGpus));
  SimgridOptions slow;
  slow.straggler = SimgridStraggler{0, 1.3};
  const Seconds healthy = times(SimgridOptions{});
  const Seconds degraded = times(slow);
  CHECK(degraded.si() > healthy.si());
  CHECK(times(SimgridOptions{}) == healthy);
  CHECK(times(slow) == degraded);
  CHECK(times.evaluations() == 2);
  StepOptions fail_slow;
  fail_slow.compute_slowdown = 1.3;
  CHECK(times(fail_slow) == degraded);  // the same state, said the run model's way
  CHECK(times.evaluations() == 2);
}
