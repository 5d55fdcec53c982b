// What a software stack changes in the step model (sim/workload/software.hpp,
// models/software/README.md): fusions change the op list, CUDA graphs lift the host bound, FP8
// attention shortens the attention, the stack's efficiencies replace the GPU preset's.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/config/load.hpp"
#include "sim/step/collectives.hpp"
#include "sim/step/gemm_efficiency.hpp"
#include "sim/step/op_time.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/step/step_model.hpp"
#include "tests/unit/test_fixtures.hpp"

using namespace fleetsim;

namespace {

step::StageCosts costs(const Scenario& s) {
  return step::stage_costs(s.cluster, s.workload, step::GpuCompute(s.cluster.gpu), step::CollectiveModel(s.cluster));
}

const step::Op& op(const step::LayerOps& l, std::string_view name, step::Phase phase) {
  for (const step::Op& o : l.ops)
    if (o.name == name && o.phase == phase) return o;
  FAIL("no op " << name);
  return *l.ops.begin();
}

}  // namespace

TEST_CASE("the default stack is the model as it was, presets load with today's values", "[step][software][unit]") {
  const Scenario a = config::load_scenario("llama3-405b-16k");
  CHECK(a.workload.software.name == "default");
  const double t = evaluate_step(a.cluster, a.workload).iteration_time.si();
  for (const char* p : {"nemo-24.12", "megatron-bridge-25.11", "megatron-deepspeed-vtrain", "megatron-lm-sc21"}) {
    INFO(p);
    const Scenario s = config::load_scenario("llama3-405b-16k", {std::string("software=") + p});
    CHECK(s.workload.software.name == p);
    CHECK(evaluate_step(s.cluster, s.workload).iteration_time.si() == t);
  }
}

TEST_CASE("an unfused SwiGLU moves 10 B per element instead of 6, in two kernels", "[step][software][unit]") {
  const Scenario f = config::load_scenario("llama3-405b-16k");
  const Scenario u = config::load_scenario("llama3-405b-16k", {"software.bias_swiglu_fusion=false"});
  const step::StageCosts cf = costs(f), cu = costs(u);
  const step::Op& a = op(cf.dense_layer, "swiglu", step::Phase::Forward);
  const step::Op& b = op(cu.dense_layer, "swiglu", step::Phase::Forward);
  CHECK(b.bytes == Approx(a.bytes * 10.0 / 6.0).epsilon(1e-12));
  CHECK(b.kernels == a.kernels + 1);
  CHECK(evaluate_step(u.cluster, u.workload).iteration_time > evaluate_step(f.cluster, f.workload).iteration_time);
}

TEST_CASE("CUDA graphs lift the host-dispatch bound of a launch-bound layer", "[step][software][unit]") {
  // A small layer (h 1024, 128 tokens per microbatch) whose passes are host-bound at 200 us per op.
  Scenario eager;
  eager.cluster = testing::a100_like_cluster(1);
  eager.cluster.gpu.kernel_launch_overhead = Seconds(200e-6);  // a slow host: every pass launch-bound
  eager.workload = testing::gpt(4, 1024, 16);
  eager.workload.model.seq_length = 128;
  Scenario graphs = eager;
  graphs.workload.software.cuda_graphs = true;
  const step::StageCosts e = costs(eager), c = costs(graphs);
  CHECK(e.dense_layer.host_dispatch);
  CHECK_FALSE(c.dense_layer.host_dispatch);
  const step::GpuCompute gpu(eager.cluster.gpu);
  const step::CollectiveModel net(eager.cluster);
  const step::OpPricing pe{gpu, net, eager.workload.model, e.layout};
  const step::PricedOps host = step::price_ops(e.dense_layer, pe), free = step::price_ops(c.dense_layer, pe);
  CHECK(host.fwd.math == free.fwd.math);
  INFO("forward memory " << host.fwd.memory.si() << " s with the host bound, " << free.fwd.memory.si() << " s without");
  CHECK(host.fwd.memory > free.fwd.memory);  // the host bound showed up as memory-bound time
}

TEST_CASE("FP8 attention divides the attention core's time by its speed-up under fp8", "[step][software][unit]") {
  const std::vector<std::string> fp8 = {"workload.training.precision=fp8"};
  const Scenario b = config::load_scenario("llama3-405b-16k", fp8);
  std::vector<std::string> sets = fp8;
  sets.push_back("software.fp8_attention=true");
  const Scenario f = config::load_scenario("llama3-405b-16k", sets);
  const step::StageCosts cb = costs(b), cf = costs(f);
  const step::Op& ab = op(cb.dense_layer, "core_attention", step::Phase::Forward);
  const step::Op& af = op(cf.dense_layer, "core_attention", step::Phase::Forward);
  CHECK(af.factor == Approx(1.62));
  const step::GpuCompute gpu(b.cluster.gpu);
  const step::CollectiveModel net(b.cluster);
  const step::OpPricing p{gpu, net, b.workload.model, cb.layout};
  CHECK((step::price_ops(cb.dense_layer, p).fwd.math - step::price_ops(cf.dense_layer, p).fwd.math).si() ==
        Approx(gpu.attention(Flops(ab.flops)).si() * (1 - 1 / 1.62)).epsilon(1e-9));
  // Not under bf16: the field needs FP8 tensors.
  const Scenario bf = config::load_scenario("llama3-405b-16k", {"software.fp8_attention=true"});
  const step::StageCosts cbf = costs(bf);
  CHECK(op(cbf.dense_layer, "core_attention", step::Phase::Forward).factor == 1.0);
}

TEST_CASE("a stack's fitted efficiency replaces the GPU preset's, 0 keeps it", "[step][software][unit]") {
  const Scenario a = config::load_scenario("llama3-405b-16k");
  const Scenario b = config::load_scenario("llama3-405b-16k", {"software.gemm_efficiency=0.7",
                                                               "software.kernel_launch_overhead=5 us"});
  CHECK(a.cluster.gpu.gemm_efficiency == 0.80);
  CHECK(b.cluster.gpu.gemm_efficiency == 0.7);
  CHECK(b.cluster.gpu.kernel_launch_overhead.si() == Approx(5e-6));
  CHECK(b.cluster.gpu.hbm_efficiency == a.cluster.gpu.hbm_efficiency);
  CHECK(evaluate_step(b.cluster, b.workload).iteration_time > evaluate_step(a.cluster, a.workload).iteration_time);
}

TEST_CASE("bulk TP overlap has no pipeline fill, TP-overlap SMs slow the GEMMs beside it", "[step][software][unit]") {
  const std::vector<std::string> ov = {"workload.parallel.tp_comm_overlap=true"};
  std::vector<std::string> bulk = ov, sms = ov;
  bulk.push_back("software.tp_overlap_method=bulk");
  sms.push_back("software.tp_overlap_sms=16");
  const Scenario p = config::load_scenario("llama3-405b-16k", ov);
  const Scenario b = config::load_scenario("llama3-405b-16k", bulk);
  const Scenario s = config::load_scenario("llama3-405b-16k", sms);
  const step::StageCosts cp = costs(p), cb = costs(b), cs = costs(s);
  CHECK(cb.chunks[1].forward.tp_comm < cp.chunks[1].forward.tp_comm);
  CHECK(cs.chunks[1].forward.math > cp.chunks[1].forward.math);
  CHECK(cs.chunks[1].forward.tp_comm == cp.chunks[1].forward.tp_comm);
}

TEST_CASE("a software file written by fleetsim calibrate is read as the stack's fields", "[step][software][unit]") {
  // The form of sim/calibrate/stack_file.cpp: fitted parameters beside the calibration record.
  const std::string path = std::filesystem::temp_directory_path() / ("fleetsim_calibrated." + std::to_string(::getpid()) + ".yaml");
  {
    std::ofstream o(path);
    o << "kind: software\n"
         "description: fitted by fleetsim calibrate on 5 measured rows of runs.csv\n"
         "parameters:\n"
         "  gemm_efficiency_fp8: {value: 0.61, si: 0.61, unit: \"1\", key: cluster.gpu.gemm_efficiency_fp8, "
         "bootstrap: [0.6, 0.62], status: fitted}\n"
         "  kernel_launch_overhead: {value: \"12.5 us\", si: 1.25e-05, unit: s, status: \"not identified: at the preset\"}\n"
         "  fabric_efficiency: {value: 0.85, si: 0.85, unit: \"1\", key: cluster.fabric.efficiency, "
         "bootstrap: [0.8, 0.9], status: fitted}\n"
         "calibration:\n"
         "  measurements: runs.csv\n"
         "  calibration_rows: 5\n"
         "  range: {gpu: h100-sxm-80gb, gpus: [8, 64], params_b: [8, 70], precision: [bf16]}\n"
         "  held_out_log_residuals: [0.01, -0.02, 0.03, -0.01, 0.02]\n"
         "  mean_abs_error: {held_out: 0.02, held_out_method: leave-one-out}\n"
         "rows:\n"
         "  - {row: 1, role: calibration, measured_s: 1.2}\n";
  }
  const Scenario s = config::load_scenario("llama3-405b-16k", {"software=" + path});
  CHECK(s.cluster.gpu.gemm_efficiency_fp8 == 0.61);
  CHECK(s.cluster.fabric.efficiency == 0.85);
  CHECK(s.cluster.gpu.gemm_efficiency == 0.80);  // not in the file: the GPU preset's
  // A parameter the rows did not identify stays at the preset's value.
  CHECK(s.cluster.gpu.kernel_launch_overhead.si() ==
        config::load_scenario("llama3-405b-16k").cluster.gpu.kernel_launch_overhead.si());
  std::filesystem::remove(path);
}
