// The representative pipeline on SimGrid: the analytical tier's schedule, executed as stage actors
// whose activations and gradients travel over the fabric.
#include <catch2/catch.hpp>

#include "sim/simgrid/simgrid_tier.hpp"
#include "sim/step/collectives.hpp"
#include "sim/step/gemm_efficiency.hpp"
#include "sim/step/pipeline_schedule.hpp"
#include "sim/step/stage_costs.hpp"
#include "tests/unit/simgrid_fixtures.hpp"
#include "tests/unit/test_fixtures.hpp"

using namespace fleetsim;

namespace {
WorkloadSpec small_gpt(int pp, int vpp, int gpus) {
  WorkloadSpec w = testing::gpt(24, 4096, 32);
  w.parallel.tensor_model_parallel_size = 8;
  w.parallel.pipeline_model_parallel_size = pp;
  w.parallel.virtual_pipeline_model_parallel_size = vpp;
  w.training.global_batch_size = 8 * gpus / (8 * pp);
  return w;
}

double list_scheduled(const ClusterSpec& c, const WorkloadSpec& w) {
  const step::GpuCompute gpu(c.gpu);
  const step::CollectiveModel net(c);
  const auto sc = step::stage_costs(c, w, gpu, net);
  std::vector<double> f, b;
  for (const auto& ch : sc.chunks) {
    f.push_back(ch.forward_time().si());
    b.push_back(ch.backward_time().si());
  }
  step::ScheduleTimes t;
  step::time_schedule(step::PipelineSchedule(sc.layout.pp, sc.layout.vpp, sc.layout.microbatches), f, b,
                      sc.p2p_time.si(), t);
  return t.makespan;
}
}  // namespace

TEST_CASE("without contention the SimGrid pipeline reproduces the list-scheduled 1F1B and interleaved schedules",
          "[unit][simgrid]") {
  const auto c = sgtest::h100_cluster(256);
  for (int vpp : {1, 2}) {
    INFO("vpp " << vpp);
    const auto w = small_gpt(4, vpp, 256);
    const PipelineTiming t = simgrid_pipeline_time(c, w);
    CHECK(t.makespan.si() == Approx(t.contention_free_makespan.si()).epsilon(1e-6));
    CHECK(t.makespan.si() == Approx(list_scheduled(c, w)).epsilon(1e-3));
    CHECK(t.stage_finish.size() == 4);
  }
}

TEST_CASE("a straggler GPU stretches its stage in the SimGrid pipeline", "[unit][simgrid]") {
  const auto c = sgtest::h100_cluster(256);
  const auto w = small_gpt(4, 1, 256);
  SimgridOptions o;
  o.straggler = SimgridStraggler{2 * 64 + 3, 2.0};  // stage 2 (DP = 8, tp-cp-dp-pp: 64 ranks per stage)
  const PipelineTiming healthy = simgrid_pipeline_time(c, w);
  const PipelineTiming slow = simgrid_pipeline_time(c, w, o);
  CHECK(slow.makespan > healthy.makespan);
  CHECK(slow.makespan.si() == Approx(slow.contention_free_makespan.si()).epsilon(1e-6));
}
