// The layer as data (sim/step/layer_ops.hpp, op_time.hpp): the op lists name every op with its
// shape, phase, stream and group, and the time model over them gives what the ops' own kernels
// give.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/config/load.hpp"
#include "sim/step/collectives.hpp"
#include "sim/step/gemm_efficiency.hpp"
#include "sim/step/layer_ops.hpp"
#include "sim/step/op_time.hpp"
#include "sim/step/stage_costs.hpp"
#include "tests/unit/test_fixtures.hpp"

using namespace fleetsim;
using step::Op;
using step::OpKind;
using step::Phase;

namespace {

template <std::size_t N>
std::vector<const Op*> find(const step::OpArray<N>& ops, std::string_view name, Phase phase) {
  std::vector<const Op*> out;
  for (const Op& op : ops)
    if (op.name == name && op.phase == phase) out.push_back(&op);
  return out;
}

step::StageCosts costs(const Scenario& s) {
  const step::GpuCompute gpu(s.cluster.gpu);
  const step::CollectiveModel net(s.cluster);
  return step::stage_costs(s.cluster, s.workload, gpu, net);
}

}  // namespace

TEST_CASE("a dense layer is a list of named ops with GEMM shapes, phases, streams and groups", "[step][ops][unit]") {
  const Scenario s = config::load_scenario("llama3-405b-16k");  // TP 8, sequence parallel, GQA, SwiGLU
  const step::StageCosts sc = costs(s);
  const auto& ops = sc.dense_layer.ops;
  for (const char* name : {"input_norm", "qkv", "core_attention", "out_proj", "attention_residual", "pre_mlp_norm",
                           "fc1", "swiglu", "fc2", "mlp_residual"}) {
    INFO(name);
    CHECK(find(ops, name, Phase::Forward).size() == 1);
    CHECK(find(ops, name, Phase::Dgrad).size() == 1);
  }
  CHECK(sc.moe_layer.ops.size() == 0);  // a dense model has no MoE layer
  const double h = 16384, tokens = 8192, tp = 8, hd = 128;
  const Op& qkv = *find(ops, "qkv", Phase::Forward).at(0);
  CHECK(qkv.kind == OpKind::Gemm);
  CHECK(qkv.m == tokens);
  CHECK(qkv.n == (128 + 2 * 8) / tp * hd);  // 16 query heads and one K/V group per rank
  CHECK(qkv.k == h);
  // Backward: input gradient (M x K, inner N) and weight gradient (K x N, inner M).
  const Op& dq = *find(ops, "qkv", Phase::Dgrad).at(0);
  const Op& wq = *find(ops, "qkv", Phase::Wgrad).at(0);
  CHECK((dq.m == qkv.m && dq.n == qkv.k && dq.k == qkv.n));
  CHECK((wq.m == qkv.k && wq.n == qkv.n && wq.k == qkv.m));
  // Sequence parallelism: two all-gathers and two reduce-scatters of the unsharded activation per
  // pass, on the TP stream and group, exposed (no tp_comm_overlap in the scenario).
  const auto ag = find(ops, "tp_all_gather", Phase::Forward), rs = find(ops, "tp_reduce_scatter", Phase::Forward);
  REQUIRE(ag.size() == 2);
  REQUIRE(rs.size() == 2);
  for (const Op* op : {ag[0], ag[1], rs[0], rs[1]}) {
    CHECK(op->stream == step::OpStream::Tp);
    CHECK(op->group == step::OpGroup::Tp);
    CHECK(op->bytes == tokens * h * 2);
    CHECK(op->window_first == -1);
  }
  CHECK(sc.dense_layer.tp_bytes.si() == 4 * tokens * h * 2);
  // The embedding and the head have their own lists.
  CHECK(find(sc.embedding.ops, "embedding", Phase::Forward).size() == 2);  // the kernel and its launches
  CHECK(find(sc.head.ops, "logits", Phase::Forward).size() == 1);
  CHECK(find(sc.head.ops, "cross_entropy", Phase::Dgrad).size() == 1);
}

TEST_CASE("a layer's time is the sum of its ops' kernel times", "[step][ops][unit]") {
  // No TP, CP, EP or FP8: the forward's math is its GEMMs and attention, its memory the
  // elementwise passes (unless host dispatch bounds it), priced op by op.
  ClusterSpec c = testing::a100_like_cluster(4);
  WorkloadSpec w = testing::gpt(4, 2048, 16);
  w.parallel.pipeline_model_parallel_size = 4;  // one layer per stage: stage 1 holds one layer only
  w.training.use_flash_attn = true;
  const step::GpuCompute gpu(c.gpu);
  const step::CollectiveModel net(c);
  const step::StageCosts sc = step::stage_costs(c, w, gpu, net);
  double math = 0, bytes = 0, dmath = 0, wgrad = 0;
  for (const Op& op : sc.dense_layer.ops) {
    double t = 0;
    if (op.kind == OpKind::Gemm) t = gpu.gemm(op.m, op.n, op.k, op.count).si();
    if (op.kind == OpKind::Attention) t = gpu.attention(Flops(op.flops)).si();
    if (op.phase == Phase::Forward) {
      math += t;
      if (op.kind == OpKind::MemoryBound) bytes += op.bytes;
    } else {
      dmath += t;
      if (op.phase == Phase::Wgrad && op.kind == OpKind::Gemm) wgrad += t;
    }
  }
  const step::PricedOps p = step::price_ops(sc.dense_layer, {gpu, net, w.model, sc.layout, 1.0});
  CHECK(p.fwd.math.si() == Approx(math).epsilon(1e-12));
  CHECK(p.fwd.memory.si() >= gpu.memory_bound(Bytes(bytes)).si() * (1 - 1e-12));
  CHECK(p.bwd.math.si() == Approx(dmath).epsilon(1e-12));
  CHECK(p.bwd.wgrad.si() == Approx(wgrad).epsilon(1e-12));
  CHECK(p.fwd.tp_comm.si() == 0);
  CHECK(p.recompute.total().si() == 0);  // no recomputation in the scenario
  // The chunks are built from the same list: a middle chunk of one layer is one layer.
  CHECK(sc.chunks.at(1).forward.total().si() == p.fwd.total().si());
}

TEST_CASE("a MoE layer with MLA lists its projections, router, experts and all-to-alls", "[step][ops][unit]") {
  const Scenario s = config::load_scenario("deepseek-v3-2048-h800");  // EP 64, FP8 blockwise, selective recompute
  const step::StageCosts sc = costs(s);
  const auto& ops = sc.moe_layer.ops;
  for (const char* name : {"q_down", "q_up", "kv_down", "kv_up", "out_proj", "core_attention", "router", "expert_fc1",
                           "expert_fc2", "shared_fc1", "shared_fc2", "permute", "unpermute", "expert_dispatch",
                           "expert_combine", "swiglu"}) {
    INFO(name);
    CHECK(find(ops, name, Phase::Forward).size() == 1);
  }
  const Op& fc1 = *find(ops, "expert_fc1", Phase::Forward).at(0);
  CHECK(fc1.kind == OpKind::GemmFp8);
  CHECK(fc1.count == 256.0 / 64);  // the local experts, one grouped GEMM
  CHECK(find(ops, "fp8_cast", Phase::Forward).size() == find(ops, "fp8_cast", Phase::Dgrad).size());
  CHECK(find(ops, "router", Phase::Forward).at(0)->kind == OpKind::Gemm);  // the router stays 16-bit
  const Op& disp = *find(ops, "expert_dispatch", Phase::Forward).at(0);
  CHECK(disp.stream == step::OpStream::Ep);
  CHECK(disp.group == step::OpGroup::Ep);
  // Selective recomputation under MLA re-runs the up-projections (DeepSeek-V3 §3.2.3).
  CHECK(find(ops, "q_up", Phase::Recompute).size() == 1);
  CHECK(find(ops, "kv_up", Phase::Recompute).size() == 1);
  CHECK(find(ops, "core_attention", Phase::Recompute).empty());
  // Dense first layers have their own list.
  CHECK(find(sc.dense_layer.ops, "fc1", Phase::Forward).size() == 1);
  CHECK(sc.mtp_projection.ops.size() > 0);
}

TEST_CASE("TP overlap hides each collective behind its own GEMM, every mechanism fits the fixed list", "[step][ops][unit]") {
  const Scenario s = config::load_scenario(
      "deepseek-v3-2048-h800",
      {"workload.parallel.tensor_model_parallel_size=2", "workload.parallel.sequence_parallel=true",
       "workload.parallel.tp_comm_overlap=true", "workload.parallel.context_parallel_size=2",
       "workload.parallel.expert_model_parallel_size=32", "workload.parallel.pipeline_model_parallel_size=16"});
  const step::StageCosts sc = costs(s);
  const auto& ops = sc.moe_layer.ops;
  auto unit_of = [&](const char* name) { return static_cast<int>(find(ops, name, Phase::Forward).at(0)->unit); };
  const auto ag = find(ops, "tp_all_gather", Phase::Forward), rs = find(ops, "tp_reduce_scatter", Phase::Forward);
  REQUIRE(ag.size() == 2);
  REQUIRE(rs.size() == 2);
  CHECK(ag[0]->window_first == unit_of("q_down"));  // every MLA projection before the attention
  CHECK(ag[0]->window_last == unit_of("kv_up"));
  CHECK(rs[0]->window_first == unit_of("out_proj"));
  CHECK(ag[1]->window_first == unit_of("expert_fc1"));
  CHECK(rs[1]->window_first == unit_of("expert_fc2"));
  CHECK(find(ops, "cp_kv_exchange", Phase::Forward).size() == 1);
  CHECK(find(ops, "cp_kv_exchange", Phase::Dgrad).at(0)->count == 2);  // K, V and their gradients
  CHECK(ops.size() <= step::kMaxLayerOps);
  const step::PricedOps p = step::price_ops(sc.moe_layer, {step::GpuCompute(s.cluster.gpu), step::CollectiveModel(s.cluster),
                                                           s.workload.model, sc.layout, 1.0});
  CHECK(p.fwd.tp_hidden.si() > 0);
}
