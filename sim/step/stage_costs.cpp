#include "sim/step/stage_costs.hpp"

#include <algorithm>
#include <cmath>

#include "sim/step/flops.hpp"
#include "sim/step/moe.hpp"
#include "sim/step/op_time.hpp"

namespace fleetsim::step {

namespace {

constexpr double kAct = 2.0;  // bytes per 16-bit activation element

// A layer's priced lists with what the chunks read from it.
struct LayerCost {
  PhaseTime fwd, bwd, recompute;
  double params = 0, expert_params = 0, linear_params = 0;
  Bytes tp_bytes, cp_bytes, ep_bytes;
};

template <std::size_t N>
LayerCost priced(const OpBlock<N>& ops, const OpPricing& p) {
  const PricedOps t = price_ops(ops, p);
  LayerCost lc;
  lc.fwd = t.fwd; lc.bwd = t.bwd; lc.recompute = t.recompute;
  lc.params = ops.params; lc.expert_params = ops.expert_params; lc.linear_params = ops.linear_params;
  lc.tp_bytes = ops.tp_bytes; lc.cp_bytes = ops.cp_bytes; lc.ep_bytes = t.ep_bytes;
  return lc;
}

}  // namespace

PhaseTime rank_busy_time(const StageCosts& sc, int rank) {
  const Layout& l = sc.layout;
  PhaseTime busy;
  for (int c = 0; c < l.vpp; ++c) {
    const ChunkCost& ch = sc.chunks[static_cast<size_t>(c * l.pp + rank)];
    busy += ch.forward;
    busy += ch.backward;
    busy += ch.recompute;
  }
  return busy.scaled(l.microbatches);
}

StageCosts stage_costs(const ClusterSpec& cluster, const WorkloadSpec& w, const GpuCompute& gpu,
                       const CollectiveModel& net) {
  StageCosts sc;
  sc.layout = make_layout(cluster, w);
  const Layout& l = sc.layout;
  const ModelSpec& m = w.model;
  const OpShape c = op_shape(cluster, w, l);
  const OpPricing pricing{gpu, net, m, l, c.rank_load};

  build_layer_ops(c, false, sc.dense_layer);
  const LayerCost dense = priced(sc.dense_layer, pricing);
  if (m.is_moe()) build_layer_ops(c, true, sc.moe_layer);
  const LayerCost moe = m.is_moe() ? priced(sc.moe_layer, pricing) : dense;

  // Embedding (first chunk), logits and loss (last chunk), MTP projections (layer_ops.cpp).
  build_embedding_ops(c, sc.embedding);
  build_head_ops(c, sc.head);
  build_mtp_projection_ops(c, sc.mtp_projection);
  const LayerCost emb = priced(sc.embedding, pricing);
  const LayerCost head = priced(sc.head, pricing);
  const LayerCost mtp = priced(sc.mtp_projection, pricing);
  const PhaseTime &emb_f = emb.fwd, &emb_b = emb.bwd, &log_f = head.fwd, &log_b = head.bwd;
  const double emb_params = sc.embedding.params;
  const double out_params = static_cast<double>(m.vocab_size) * c.h / c.t;

  // Chunks: layer index of chunk j's first layer follows the global chunk order.
  const int J = l.chunks();
  sc.chunks.resize(static_cast<size_t>(J));
  int first_layer = 0;
  for (int j = 0; j < J; ++j) {
    ChunkCost& ch = sc.chunks[static_cast<size_t>(j)];
    ch.layers = l.chunk_layers[static_cast<size_t>(j)];
    int n_moe = 0;
    for (int i = 0; i < ch.layers; ++i) n_moe += is_moe_layer(m, first_layer + i) ? 1 : 0;
    first_layer += ch.layers;
    const int n_dense = ch.layers - n_moe;
    ch.forward = dense.fwd.scaled(n_dense); ch.forward += moe.fwd.scaled(n_moe);
    ch.backward = dense.bwd.scaled(n_dense); ch.backward += moe.bwd.scaled(n_moe);
    ch.recompute = dense.recompute.scaled(n_dense); ch.recompute += moe.recompute.scaled(n_moe);
    ch.params = dense.params * n_dense + moe.params * n_moe;
    ch.linear_params = dense.linear_params * n_dense + moe.linear_params * n_moe;
    ch.expert_params = moe.expert_params * n_moe;
    ch.largest_unit_params = std::max(n_dense > 0 ? dense.params : 0.0, n_moe > 0 ? moe.params : 0.0);
    if (j == 0) {
      ch.has_embedding = true;
      ch.forward += emb_f; ch.backward += emb_b;
      ch.params += emb_params;
      ch.largest_unit_params = std::max(ch.largest_unit_params, emb_params);
    }
    if (j == J - 1) {
      ch.has_logits = true;
      ch.forward += log_f; ch.backward += log_b;
      // Multi-token prediction (DeepSeek-V3 §2.2): each module projects [norm(h); norm(emb)]
      // (2h -> h), runs one more transformer layer (a MoE layer like the main model's) and the
      // shared output head with its loss, on the last stage; embedding and head are shared.
      for (int d = 0; d < m.mtp_depth; ++d) {
        const LayerCost& lay = m.is_moe() ? moe : dense;
        const PhaseTime &pf = mtp.fwd, &pb = mtp.bwd;
        ch.forward += lay.fwd; ch.forward += log_f; ch.forward += pf;
        ch.backward += lay.bwd; ch.backward += log_b; ch.backward += pb;
        ch.recompute += lay.recompute;
        const double projection = 2.0 * c.h * c.h / c.t;
        const double module_params = lay.params + projection + 4.0 * c.h;  // + its two norms
        ch.params += module_params;
        ch.linear_params += lay.linear_params + projection;
        ch.expert_params += lay.expert_params;
        ch.largest_unit_params = std::max(ch.largest_unit_params, module_params);
      }
      const double head = (m.untie_embeddings_and_output_weights || J > 1) ? out_params : 0.0;
      ch.params += head;
      ch.params += 2.0 * c.h;  // final norm
      ch.largest_unit_params = std::max(ch.largest_unit_params, head + 2.0 * c.h);
    }
  }
  sc.rank_params.assign(static_cast<size_t>(l.pp), 0.0);
  sc.rank_expert_params.assign(static_cast<size_t>(l.pp), 0.0);
  sc.rank_linear_params.assign(static_cast<size_t>(l.pp), 0.0);
  for (int j = 0; j < J; ++j) {
    sc.rank_linear_params[static_cast<size_t>(l.rank_of_chunk(j))] += sc.chunks[static_cast<size_t>(j)].linear_params;
    sc.rank_params[static_cast<size_t>(l.rank_of_chunk(j))] += sc.chunks[static_cast<size_t>(j)].params;
    sc.rank_expert_params[static_cast<size_t>(l.rank_of_chunk(j))] += sc.chunks[static_cast<size_t>(j)].expert_params;
  }

  // Point-to-point between stages: the b s h activation; with TP, Megatron's scatter/gather
  // optimization (SC'21 Sec. 4.1) sends 1/t of it per TP rank and all-gathers it over NVLink
  // on the receiving side (already sharded with sequence parallelism).
  const Bytes act(c.T * c.h * kAct);
  sc.p2p_bytes = l.tp > 1 ? act / c.t : act;
  sc.p2p_time = l.pp > 1 ? net.p2p(sc.p2p_bytes, l.pp_group.stride) : Seconds(0);
  if (l.pp > 1 && l.tp > 1 && !w.parallel.sequence_parallel)
    sc.p2p_time += net.time(Collective::AllGather, act, l.tp_group);

  // Collective volumes.
  CollectiveVolumes& v = sc.volumes;
  v.tp_per_layer_forward = dense.tp_bytes;
  v.cp_kv_per_layer_forward = dense.cp_bytes;
  v.ep_per_layer_forward = moe.ep_bytes;
  const double grad_bytes = w.training.grad_bytes();  // fp32 under bf16, 16-bit under fp16
  const double rank0_params = *std::max_element(sc.rank_params.begin(), sc.rank_params.end());
  const double rank0_expert = *std::max_element(sc.rank_expert_params.begin(), sc.rank_expert_params.end());
  v.dp_grad_per_rank = Bytes((rank0_params - rank0_expert) * grad_bytes);
  v.dp_expert_grad_per_rank = Bytes(rank0_expert * grad_bytes);
  // Gradients of dense weights are reduced over DP x CP (CP ranks hold the same weights); the
  // members span the CP block and the DP stride. Expert weights over DP x CP / EP.
  v.dp_grad_group = GroupPlacement{l.dp * l.cp, std::max(1, l.dp_group.stride / l.cp)};
  v.expert_dp_group = GroupPlacement{std::max(1, l.dp * l.cp / l.ep),
                                     std::max(1, l.dp_group.stride / l.cp) * l.ep};
  const bool sharded = w.parallel.effective_zero_stage() >= 1;
  v.dp_param_gather_per_rank = sharded ? Bytes(rank0_params * w.training.bytes_per_param) : Bytes(0);
  return sc;
}

}  // namespace fleetsim::step
