// The iteration trace (sim/step/trace.hpp) read back from the file as a viewer would: valid
// trace-event JSON, events ordered and nested on every track, and the busy time of every pipeline
// rank, summed per category, equal to the step model's own numbers (rank_busy_time, the
// breakdown of the critical rank, the iteration time).
#include <catch2/catch.hpp>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "sim/step/collectives.hpp"
#include "sim/step/gemm_efficiency.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/step/trace.hpp"
#include "tests/unit/test_fixtures.hpp"
#include "tests/unit/iteration_trace_io.hpp"

using namespace fleetsim;
namespace fs = std::filesystem;

namespace {

// Writes the analytical tier's trace and reads it back.
testing::ReadTrace write_and_read(const ClusterSpec& c, const WorkloadSpec& w, step::IterationTimeline& tl) {
  tl = step::iteration_timeline(c, w);
  testing::ReadTrace p = testing::write_and_read_iteration_trace(tl, c, w, "fleetsim_step_trace_test");
  REQUIRE(p.root["otherData"]["tracks"].as<std::string>().find("representative") != std::string::npos);
  CHECK(p.root["otherData"]["tier"].as<std::string>() == "analytical");
  for (const auto& e : p.events) REQUIRE(e.pid == 1);  // no link tracks on the analytical tier
  CHECK(p.counters.empty());
  return p;
}

void check_busy_times(const ClusterSpec& c, const WorkloadSpec& w) {
  step::IterationTimeline tl;
  const testing::ReadTrace p = write_and_read(c, w, tl);
  testing::check_order_and_nesting(p);
  const StepResult& r = tl.result;
  const step::GpuCompute gpu(c.gpu, 1.0);
  const step::CollectiveModel net(c, 1.0);
  const step::StageCosts sc = step::stage_costs(c, w, gpu, net);
  const double T = r.iteration_time.si();
  REQUIRE(tl.ranks == sc.layout.pp);
  // Sums per rank and category on the compute track, and its top-level spans.
  for (int rank = 0; rank < tl.ranks; ++rank) {
    INFO("pipeline rank " << rank << " of " << tl.ranks << (rank == r.critical_stage ? " (critical)" : ""));
    std::map<std::string, double> sum;
    double top = 0, ops = 0, end = 0;
    for (const auto& e : p.events) {
      if (e.tid != 1 + 3 * rank) continue;
      sum[e.cat] += e.dur;
      end = std::max(end, e.ts + e.dur);
      const bool is_top = e.cat == "forward" || e.cat == "backward" || e.cat == "bubble" || e.cat == "dp_exposed" ||
                          e.cat == "overlap_contention" || e.cat == "optimizer" || e.cat == "idle";
      if (is_top) top += e.dur;
      if (e.cat == "forward" || e.cat == "backward") ops += e.dur;
    }
    // The compute track covers the iteration without gaps or overlaps.
    CHECK(top == Approx(T).epsilon(1e-9));
    CHECK(end == Approx(T).epsilon(1e-9));
    // Busy time of the rank = the model's: compute and TP/CP/EP communication of every pass.
    const step::PhaseTime busy = step::rank_busy_time(sc, rank);
    CHECK(sum["compute"] == Approx(busy.compute().si()).epsilon(1e-9));
    CHECK(sum["tp_comm"] == Approx(busy.tp_comm.si()).epsilon(1e-9).margin(1e-15));
    CHECK(sum["cp_comm"] == Approx(busy.cp_comm.si()).epsilon(1e-9).margin(1e-15));
    CHECK(sum["ep_comm"] == Approx(busy.ep_comm.si()).epsilon(1e-9).margin(1e-15));
    CHECK(ops == Approx(busy.total().si() + sum["pp_comm"]).epsilon(1e-9));
    if (rank == r.critical_stage) {
      const StepBreakdown& b = r.breakdown;
      CHECK(sum["compute"] + sum["overlap_contention"] == Approx(b.compute.si()).epsilon(1e-9));
      CHECK(sum["overlap_contention"] == Approx(b.overlap_contention.si()).epsilon(1e-9).margin(1e-12));
      CHECK(sum["tp_comm"] == Approx(b.tp_comm.si()).epsilon(1e-9).margin(1e-15));
      CHECK(sum["pp_comm"] == Approx(b.pp_comm.si()).epsilon(1e-9).margin(1e-15));
      CHECK(sum["bubble"] == Approx(b.bubble.si()).epsilon(1e-9).margin(1e-12));
      CHECK(sum["dp_exposed"] == Approx(b.dp_comm.si()).epsilon(1e-9).margin(1e-12));
      CHECK(sum["optimizer"] == Approx(b.optimizer.si()).epsilon(1e-9));
      CHECK(sum["idle"] == Approx(0).margin(1e-12 * T));
    }
  }
  // The iteration event carries the model's iteration time.
  bool found = false;
  for (const auto& e : p.events)
    if (e.tid == 0 && e.name == "iteration") { found = true; CHECK(e.dur == Approx(T).epsilon(1e-12)); }
  CHECK(found);
}

}  // namespace

TEST_CASE("iteration trace: 1F1B with full recomputation, TP and a distributed optimizer", "[trace][unit]") {
  WorkloadSpec w = testing::gpt(16, 2048, 16);
  w.parallel.tensor_model_parallel_size = 2;
  w.parallel.pipeline_model_parallel_size = 4;
  w.parallel.recompute_granularity = Recompute::Full;
  w.parallel.use_distributed_optimizer = true;
  w.training.global_batch_size = 16;
  check_busy_times(testing::a100_like_cluster(16), w);
}

TEST_CASE("iteration trace: interleaved schedule, sequence parallel, selective recompute, no overlap", "[trace][unit]") {
  WorkloadSpec w = testing::gpt(16, 2048, 16);
  w.parallel.tensor_model_parallel_size = 2;
  w.parallel.sequence_parallel = true;
  w.parallel.pipeline_model_parallel_size = 2;
  w.parallel.virtual_pipeline_model_parallel_size = 2;
  w.parallel.recompute_granularity = Recompute::Selective;
  w.parallel.overlap_grad_reduce = false;
  w.training.global_batch_size = 16;
  check_busy_times(testing::a100_like_cluster(16), w);
}

TEST_CASE("iteration trace: MoE with expert and context parallelism under ZeRO-3", "[trace][unit]") {
  WorkloadSpec w = testing::gpt(8, 2048, 16);
  w.model.num_experts = 8;
  w.model.moe_router_topk = 2;
  w.parallel.expert_model_parallel_size = 2;
  w.parallel.context_parallel_size = 2;
  w.parallel.pipeline_model_parallel_size = 2;
  w.parallel.zero_stage = 3;
  w.training.global_batch_size = 8;
  check_busy_times(testing::a100_like_cluster(16), w);
}

TEST_CASE("iteration trace: large chunks reduce their gradients in several DDP buckets, nested in the chunk's span",
          "[trace][unit]") {
  WorkloadSpec w = testing::gpt(16, 8192, 64);  // ~0.8B parameters per chunk and GPU: > 40M per bucket
  w.parallel.tensor_model_parallel_size = 8;
  w.parallel.pipeline_model_parallel_size = 4;
  w.training.global_batch_size = 16;
  const ClusterSpec c = testing::a100_like_cluster(64);
  check_busy_times(c, w);
  const auto tl = step::iteration_timeline(c, w);
  int buckets = 0;
  for (const auto& sp : tl.spans) buckets += sp.name.rfind("bucket ", 0) == 0 ? 1 : 0;
  CHECK(buckets > 4 * 2);
}

TEST_CASE("iteration trace: its size grows with the schedule, not with the GPUs", "[trace][unit]") {
  WorkloadSpec w = testing::gpt(16, 2048, 16);
  w.parallel.pipeline_model_parallel_size = 4;
  w.training.global_batch_size = 1024;
  auto events = [&](int gpus) {
    const auto tl = step::iteration_timeline(testing::a100_like_cluster(gpus), w);
    return tl.spans.size();
  };
  // 8x the GPUs at the same global batch: 8x fewer microbatches per replica, fewer events.
  CHECK(events(64) > events(512));
  CHECK(events(512) < 20000);
}

#include <sys/wait.h>

#include <cstdlib>
#include <unistd.h>

#include "tests/test_paths.hpp"

namespace {
int exit_code_of(const std::string& args) {
  const std::string cmd = fleetsim::testing::fleetsim_binary() + " " + args + " > /dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
}  // namespace

TEST_CASE("step --trace (both tiers) and run --trace write files Perfetto opens, a bad path exits 2",
          "[trace][scenario]") {
  const fs::path dir = fs::temp_directory_path() / ("fleetsim_trace_cli." + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path step = dir / "step.json", run = dir / "run.json";
  fs::remove(step);
  fs::remove(run);
  CHECK(exit_code_of("step --trace " + step.string()) == 0);
  CHECK(YAML::LoadFile(step.string())["traceEvents"].size() > 1000);
  CHECK(exit_code_of("run --replications 1 --set run.duration=2d --trace " + run.string()) == 0);
  CHECK(YAML::LoadFile(run.string())["traceEvents"].size() > 10);
  CHECK(exit_code_of("step --trace /nonexistent-dir/step.json") == 2);
  CHECK(exit_code_of("run --replications 1 --set run.duration=2d --trace /nonexistent-dir/run.json") == 2);
  // The SimGrid tier adds the fabric's tracks (process 2); tests/unit/simgrid_trace_test.cpp checks them.
  CHECK(exit_code_of("step --tier simgrid --trace " + (dir / "sg.json").string()) == 0);
  const auto sg = testing::read_trace((dir / "sg.json").string());
  CHECK(sg.root["otherData"]["tier"].as<std::string>() == "simgrid");
  CHECK(sg.thread(2, 0).find("NIC - leaf switch") != std::string::npos);
  CHECK(exit_code_of("step --tier simgrid --trace /nonexistent-dir/sg.json") == 2);
  fs::remove_all(dir);
}
