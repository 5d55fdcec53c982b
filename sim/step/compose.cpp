#include "sim/step/compose.hpp"

#include <algorithm>
#include <cmath>

namespace fleetsim::step {

double local_optimizer_params(const StageCosts& sc, const ParallelSpec& par, int rank) {
  const Layout& l = sc.layout;
  const double p = sc.rank_params[static_cast<size_t>(rank)];
  const double pe = sc.rank_expert_params[static_cast<size_t>(rank)];
  if (par.effective_zero_stage() < 1) return p;
  const double shard_dense = static_cast<double>(l.dp) * l.cp;
  const double shard_expert = std::max(1.0, shard_dense / l.ep);
  return (p - pe) / shard_dense + pe / shard_expert;
}

Composition compose_iteration(const StageCosts& sc, const WorkloadSpec& w, const PipelineTimes& pipe,
                              const DataParallelCosts& costs, std::vector<DpSpan>* record) {
  const Layout& l = sc.layout;
  const ParallelSpec& par = w.parallel;
  const bool sharded = par.effective_zero_stage() >= 1;
  // Sharded optimizers reduce-scatter the gradients and all-gather the updated 16-bit weights;
  // otherwise the gradients are all-reduced. Gradients move in fp32 under bf16 (TrainingSpec).
  const Collective grad_kind = sharded ? Collective::ReduceScatter : Collective::AllReduce;
  const double grad_bytes = w.training.grad_bytes(), weight_bytes = w.training.bytes_per_param;
  // Megatron DDP bucket size: max(40M, 1M x DP) parameters (megatron/core/distributed).
  const double bucket_params = std::max(4.0e7, 1.0e6 * l.dp);
  Composition out;
  out.dp_exposed.assign(static_cast<size_t>(l.pp), 0.0);
  out.dp_total.assign(static_cast<size_t>(l.pp), 0.0);
  out.optimizer.assign(static_cast<size_t>(l.pp), 0.0);
  double best_end = -1;
  for (int r = 0; r < l.pp; ++r) {
    const auto rr = static_cast<size_t>(r);
    const double end = pipe.rank_end[rr];
    // Gradient reduction per chunk once its last backward has run, chunks in the order their
    // gradients complete (bucketed overlap, Megatron DDP / PyTorch DDP: buckets are reduced as
    // soon as their gradients are complete, Li et al. VLDB 2020); without overlap, after the
    // rank's last backward.
    double queue = 0, total = 0;
    for (int c = l.vpp - 1; c >= 0; --c) {
      const auto j = static_cast<size_t>(c * l.pp + r);
      const ChunkCost& ch = sc.chunks[j];
      const double t = costs.collective(grad_kind, (ch.params - ch.expert_params) * grad_bytes,
                                        ch.expert_params * grad_bytes);
      total += t;
      if (l.dp * l.cp <= 1 && ch.expert_params <= 0) continue;
      double start, buckets = 1;
      if (par.overlap_grad_reduce) {
        buckets = std::max(1.0, std::ceil(ch.params / bucket_params));
        start = std::max(queue, pipe.last_backward_start[j]);
        queue = std::max(start + t, pipe.last_backward_end[j] + t / buckets);
      } else {
        start = std::max(queue, end);
        queue = start + t;
      }
      if (record)
        record->push_back({r, static_cast<int>(j), grad_kind, start, queue, t, 0.0,
                           (ch.params - ch.expert_params) * grad_bytes, ch.expert_params * grad_bytes,
                           static_cast<int>(buckets)});
    }
    double exposed = std::max(end, queue) - end;
    const double p = sc.rank_params[rr], pe = sc.rank_expert_params[rr];
    if (sharded) {
      // Distributed optimizer / ZeRO / FSDP: the updated 16-bit weights are all-gathered,
      // overlapped with the next iteration's first forward: only the first bucket of the first
      // chunk must arrive before it can start.
      const double ag = costs.collective(Collective::AllGather, (p - pe) * weight_bytes, pe * weight_bytes);
      total += ag;
      const double before_ag = exposed;
      if (par.overlap_param_gather) {
        const double first = sc.chunks[rr].params;
        const double buckets = std::max(1.0, std::ceil(first / bucket_params));
        exposed += ag * (first / std::max(1.0, p)) / buckets;
      } else {
        exposed += ag;
      }
      if (record)
        record->push_back({r, -1, Collective::AllGather, 0, 0, ag, exposed - before_ag,
                           (p - pe) * weight_bytes, pe * weight_bytes});
      if (par.zero_stage >= 3) {
        // ZeRO-3 / FSDP holds only the chunk computing and the one prefetched unsharded
        // (memory.cpp), so each microbatch re-gathers every chunk's weights before its forward
        // and, when resharded after forward, again before its backward (Rajbhandari et al. 2020,
        // ZeRO §7.2.2: parameter all-gathers in forward and backward; PyTorch FSDP
        // reshard_after_forward; Llama 3 §3.3.2 keeps them after forward). The gather above is
        // one of them. They are prefetched: the rank's network streams them while it computes or
        // waits in the pipeline, so the rank finishes no earlier than its gathers do. (A rank
        // that is slowed therefore never finishes sooner: hiding grows with its pipeline time.)
        const double gathers = (par.fsdp_reshard_after_forward ? 2.0 : 1.0) * l.microbatches - 1.0;
        const double extra = std::max(0.0, gathers) * ag;
        total += extra;
        exposed += std::max(0.0, extra - end);
        if (record && extra > 0)
          record->push_back({r, -2, Collective::AllGather, 0, 0, extra, std::max(0.0, extra - end),
                             std::max(0.0, gathers) * (p - pe) * weight_bytes,
                             std::max(0.0, gathers) * pe * weight_bytes});
      }
    }
    const double opt = costs.optimizer(r);
    out.dp_exposed[rr] = exposed;
    out.dp_total[rr] = total;
    out.optimizer[rr] = opt;
    if (end + exposed + opt > best_end) {
      best_end = end + exposed + opt;
      out.critical_rank = r;
    }
  }
  out.iteration_time = best_end;
  return out;
}

}  // namespace fleetsim::step
