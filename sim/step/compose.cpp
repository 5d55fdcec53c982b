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

namespace {

// Bytes a ring collective of `bytes` per rank sends over the network per rank (nccl-tests'
// bus bandwidth factors): (n-1)/n for reduce-scatter and all-gather, twice that for all-reduce.
double network_bytes(Collective kind, double bytes, int n) {
  const double f = n > 1 ? (n - 1.0) / n : 0.0;
  return (kind == Collective::AllReduce ? 2.0 : 1.0) * f * bytes;
}

}  // namespace

Composition compose_iteration(const StageCosts& sc, const WorkloadSpec& w, const PipelineTimes& pipe,
                              const DataParallelCosts& costs, std::vector<DpSpan>* record) {
  const Layout& l = sc.layout;
  const ParallelSpec& par = w.parallel;
  const bool sharded = par.effective_zero_stage() >= 1;
  // Sharded optimizers reduce-scatter the gradients and all-gather the updated 16-bit weights;
  // otherwise the gradients are all-reduced. Gradients move in fp32 under bf16 (TrainingSpec).
  const Collective grad_kind = sharded ? Collective::ReduceScatter : Collective::AllReduce;
  const double grad_bytes = w.training.grad_bytes(), weight_bytes = w.training.bytes_per_param;
  // Megatron DDP bucket size: max(40M, 1M x DP) parameters (megatron/core/distributed), the
  // software stack's (software.hpp).
  const double bucket_params = std::max(w.software.dp_bucket_min_params, w.software.dp_bucket_params_per_dp_rank * l.dp);
  const int group = sc.volumes.dp_grad_group.size;
  const auto P = static_cast<size_t>(l.pp);
  auto buckets_of = [&](double params) { return std::max(1.0, std::ceil(params / bucket_params)); };
  auto chunk_collective = [&](Collective kind, size_t j, double bytes_per_param) {
    const ChunkCost& ch = sc.chunks[j];
    return costs.collective(kind, (ch.params - ch.expert_params) * bytes_per_param,
                            ch.expert_params * bytes_per_param);
  };
  // Seconds of compute delay per second a collective of `bytes` taking `t` overlaps compute.
  auto delay_rate = [&](Collective kind, double bytes, double t, double math_share) {
    const double rate = t > 0 ? network_bytes(kind, bytes, group) / t : 0.0;
    return costs.contention.delay_per_second(math_share, rate);
  };

  Composition out;
  out.dp_exposed.assign(P, 0.0);
  out.dp_total.assign(P, 0.0);
  out.optimizer.assign(P, 0.0);
  out.contention.assign(P, 0.0);
  out.gather_stall.assign(P, 0.0);
  out.prefetch_exposed.assign(P, 0.0);
  std::vector<double> math_share(P, 0.0), busy_share(P, 0.0), ag_whole(P, 0.0), ag_hidden(P, 0.0);
  // All-gather time of each chunk's 16-bit weights (sharded optimizers), computed once.
  thread_local std::vector<double> ag_chunk;
  ag_chunk.assign(sc.chunks.size(), 0.0);
  if (sharded)
    for (size_t j = 0; j < sc.chunks.size(); ++j) ag_chunk[j] = chunk_collective(Collective::AllGather, j, weight_bytes);
  for (size_t r = 0; r < P; ++r) {
    const PhaseTime busy = rank_busy_time(sc, static_cast<int>(r));
    const double compute = busy.compute().si();
    math_share[r] = compute > 0 ? busy.math.si() / compute : 0.0;
    // Share of the rank's pipeline time it computes: a collective streaming through the whole
    // pipeline overlaps compute for this share of its time (the rest overlaps the bubble).
    busy_share[r] = pipe.rank_end[r] > 0 ? std::min(1.0, busy.total().si() / pipe.rank_end[r]) : 0.0;
    if (sharded) {
      const double p = sc.rank_params[r], pe = sc.rank_expert_params[r];
      ag_whole[r] = costs.collective(Collective::AllGather, (p - pe) * weight_bytes, pe * weight_bytes);
    }
  }

  // 1. The updated 16-bit weights, all-gathered for the next iteration (sharded optimizers).
  // Without overlap they all arrive before it starts. With overlap_param_gather each bucket's
  // gather must arrive before the first microbatch's forward reaches it (overlap.hpp,
  // mechanism 1), gathers run one after another on the rank's communication stream, and they
  // are dispatched as Megatron-core does:
  // - interleaved schedule: all buckets of chunks 0 and 1 when the iteration starts, those of
  //   chunk c + 1 when the rank starts chunk c (schedules.py, param_sync_func);
  // - one chunk per rank: bucket k + 1 when the forward reaches bucket k (the forward pre-hook's
  //   finish_param_sync dispatches the next bucket group; head-of-line blocking of compute
  //   kernels is why not all at once).
  // The first microbatch walks the chunks in model order; a stall delays it on every later
  // chunk, and everything its rank runs afterwards. The iteration is delayed by the largest
  // delay reached.
  double stall_all = 0;
  if (sharded && !par.overlap_param_gather) {
    for (size_t r = 0; r < P; ++r) stall_all = std::max(stall_all, ag_whole[r]);
  } else if (sharded) {
    std::vector<double> rank_delay(P, 0.0), comm_free(P, 0.0), dispatch(P, 0.0), chunk_start(P, 0.0);
    double delay_out = 0;
    const int J = l.chunks();
    for (int j = 0; j < J; ++j) {
      const auto r = static_cast<size_t>(j % l.pp);
      const int c = j / l.pp;
      const auto jj = static_cast<size_t>(j);
      const double n = buckets_of(sc.chunks[jj].params);
      const double gb = ag_chunk[jj] / n;
      const double u = std::max(0.0, pipe.first_forward_end[jj] - pipe.first_forward_start[jj]) / n;
      const double delay_in = std::max(rank_delay[r], delay_out);
      const double fs = pipe.first_forward_start[jj] + delay_in;
      double stall = 0, hidden = 0;
      if (l.vpp > 1) {
        const double sent = std::max(c <= 1 ? 0.0 : chunk_start[r], comm_free[r]);
        for (int k = 0; k < static_cast<int>(n); ++k) {
          const double arrive = sent + (k + 1) * gb;
          const double need = fs + k * u + stall;
          stall += std::max(0.0, arrive - need);
        }
        comm_free[r] = sent + n * gb;
        // Behind compute: what the forward did not wait for, in the share of time the rank computes.
        hidden = std::max(0.0, n * gb - stall) * busy_share[r];
      } else {
        for (int k = 0; k < static_cast<int>(n); ++k) {
          const double need = fs + k * u + stall;
          const double sent = std::max(k == 0 ? 0.0 : dispatch[r], comm_free[r]);
          const double arrive = sent + gb;
          comm_free[r] = arrive;
          if (k > 0) hidden += std::min(gb, std::max(0.0, need - sent));
          const double start = std::max(need, arrive);
          stall += start - need;
          dispatch[r] = start;
        }
      }
      chunk_start[r] = fs;
      ag_hidden[r] += hidden;
      delay_out = delay_in + stall;
      rank_delay[r] = delay_out;
      stall_all = std::max(stall_all, delay_out);
    }
  }

  double best_end = -1;
  for (size_t r = 0; r < P; ++r) {
    const double end = pipe.rank_end[r];
    double total = ag_whole[r];
    const double p_rank = sc.rank_params[r], pe_rank = sc.rank_expert_params[r];
    if (record && sharded)
      record->push_back({static_cast<int>(r), -1, Collective::AllGather, 0, 0, ag_whole[r], stall_all,
                         (p_rank - pe_rank) * weight_bytes, pe_rank * weight_bytes});
    // 2. ZeRO-3 / FSDP holds only the chunk computing and the one prefetched unsharded
    // (memory.cpp), so each microbatch re-gathers every chunk's weights before its forward and,
    // when resharded after forward, again before its backward (Rajbhandari et al. 2020, ZeRO
    // §7.2.2; PyTorch FSDP reshard_after_forward; Llama 3 §3.3.2 keeps them after forward). The
    // gather above is one of them. They are prefetched while the rank computes or waits, so
    // the rank finishes no earlier than its gathers do (a slowed rank never finishes sooner);
    // and each hides only behind the `fsdp_prefetch_ops` ops before it (overlap.hpp, mechanism
    // 2): in the 1F1B steady state a forward's gather overlaps a backward and a backward's
    // gather a forward.
    double z3_exposed = 0, z3_hidden = 0, z3_rate = 0;
    if (sharded && par.zero_stage >= 3) {
      const double m = l.microbatches;
      const double reshard = par.fsdp_reshard_after_forward ? 1.0 : 0.0;
      const double gathers = (1.0 + reshard) * m - 1.0;
      const double extra = std::max(0.0, gathers) * ag_whole[r];
      total += extra;
      z3_exposed = std::max(0.0, extra - end);
      if (par.fsdp_prefetch_ops > 0) {
        const double d = par.fsdp_prefetch_ops;
        double prefetch = 0;
        for (int c = 0; c < l.vpp; ++c) {
          const auto j = static_cast<size_t>(c * l.pp) + r;
          const double g = ag_chunk[j];
          const double f = sc.chunks[j].forward_time().si(), b = sc.chunks[j].backward_time().si();
          prefetch += (m - 1.0) * std::max(0.0, g - d * b) + reshard * m * std::max(0.0, g - d * f);
        }
        out.prefetch_exposed[r] = std::max(0.0, prefetch - z3_exposed);
        z3_exposed = std::max(z3_exposed, std::min(extra, prefetch));
      }
      z3_hidden = (extra - z3_exposed) * busy_share[r];
      const double p = sc.rank_params[r];
      z3_rate = delay_rate(Collective::AllGather, p * weight_bytes, ag_whole[r], math_share[r]);
      if (record && extra > 0)
        record->push_back({static_cast<int>(r), -2, Collective::AllGather, 0, 0, extra, z3_exposed,
                           std::max(0.0, gathers) * (p_rank - pe_rank) * weight_bytes,
                           std::max(0.0, gathers) * pe_rank * weight_bytes});
    }
    double delay = z3_rate * z3_hidden;
    if (ag_hidden[r] > 0)
      delay += ag_hidden[r] *
               delay_rate(Collective::AllGather, sc.rank_params[r] * weight_bytes, ag_whole[r], math_share[r]);
    const double shift = delay + z3_exposed;

    // 3. Gradient reduction per chunk once its last microbatch's backward has run, chunks in
    // the order their gradients complete (bucketed overlap, Megatron DDP / PyTorch DDP: a bucket
    // is reduced as soon as its gradients are complete, Li et al. VLDB 2020). Bucket k of n is
    // ready (k+1)/n of the way through the chunk's last backward; the buckets are reduced one
    // after another. Without overlap, after the rank's last backward.
    double queue = 0, rs_delay = 0;
    for (int c = l.vpp - 1; c >= 0; --c) {
      const auto j = static_cast<size_t>(c * l.pp) + r;
      const ChunkCost& ch = sc.chunks[j];
      const double t = chunk_collective(grad_kind, j, grad_bytes);
      total += t;
      if (l.dp * l.cp <= 1 && ch.expert_params <= 0) continue;
      double start, buckets = 1;
      if (par.overlap_grad_reduce) {
        const double n = buckets_of(ch.params);
        buckets = n;
        const double d = std::max(0.0, pipe.last_backward_end[j] - pipe.last_backward_start[j]);
        start = std::max(queue, pipe.last_backward_start[j] + d / n);
        queue = std::max(start + t, pipe.last_backward_end[j] + t / n);
        const double hidden = std::min(t, std::max(0.0, end - start)) * busy_share[r];
        rs_delay += hidden * delay_rate(grad_kind, ch.params * grad_bytes, t, math_share[r]);
      } else {
        start = std::max(queue, end);
        queue = start + t;
      }
      if (record)
        record->push_back({static_cast<int>(r), static_cast<int>(j), grad_kind, start, queue, t, 0.0,
                           (ch.params - ch.expert_params) * grad_bytes, ch.expert_params * grad_bytes,
                           static_cast<int>(buckets)});
    }
    const double finish = stall_all + shift + std::max(end + rs_delay, queue);
    const double opt = costs.optimizer(static_cast<int>(r));
    out.contention[r] = delay + rs_delay;
    out.dp_exposed[r] = finish - end - out.contention[r];
    out.gather_stall[r] = stall_all;
    out.dp_total[r] = total;
    out.optimizer[r] = opt;
    if (finish + opt > best_end) {
      best_end = finish + opt;
      out.critical_rank = static_cast<int>(r);
    }
  }
  out.iteration_time = best_end;
  return out;
}

}  // namespace fleetsim::step
