#include "sim/step/step_model.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/error.hpp"
#include "sim/step/collectives.hpp"
#include "sim/step/flops.hpp"
#include "sim/step/gemm_efficiency.hpp"
#include "sim/step/pipeline_schedule.hpp"
#include "sim/step/stage_costs.hpp"

namespace fleetsim {
namespace {

using step::Collective;

// The in-flight activation counts depend only on (p, v, m, chunk layers): memoized per thread.
const step::InFlight& cached_in_flight(const step::PipelineSchedule& s, const std::vector<int>& layers) {
  thread_local int p = -1, v = -1, m = -1;
  thread_local std::vector<int> key;
  thread_local step::InFlight value;
  if (p != s.ranks() || v != s.chunks_per_rank() || m != s.microbatches() || key != layers) {
    value = step::activations_in_flight(s, layers);
    p = s.ranks(); v = s.chunks_per_rank(); m = s.microbatches(); key = layers;
  }
  return value;
}

// Adam step on the local shard: reads and writes fp32 master weights, m and v (24 B), reads the
// fp32 gradient (4 B), writes the 16-bit weight (2 B); the gradient-norm pass reads the gradient
// again (4 B): 34 B per parameter through HBM (memory-bound, Megatron's fused multi-tensor Adam).
constexpr double kOptimizerBytesPerParam = 34.0;

}  // namespace

StepResult evaluate_step(const ClusterSpec& cluster, const WorkloadSpec& w, const StepOptions& options) {
  if (cluster.gpu.peak_bf16.si() <= 0)
    throw ConfigError("", "cluster.gpu.peak_bf16", "the GPU has no 16-bit peak FLOP rate");
  const step::GpuCompute gpu(cluster.gpu, options.compute_slowdown);
  const step::CollectiveModel net(cluster, options.fabric_bandwidth_scale);
  const step::StageCosts sc = step::stage_costs(cluster, w, gpu, net);
  const step::Layout& l = sc.layout;
  const int J = l.chunks(), m = l.microbatches;

  // Pipeline: explicit schedule, with and without the point-to-point time.
  const step::PipelineSchedule sched(l.pp, l.vpp, m);
  thread_local std::vector<double> fwd, bwd;
  fwd.resize(static_cast<size_t>(J));
  bwd.resize(static_cast<size_t>(J));
  for (int j = 0; j < J; ++j) {
    fwd[static_cast<size_t>(j)] = sc.chunks[static_cast<size_t>(j)].forward_time().si();
    bwd[static_cast<size_t>(j)] = sc.chunks[static_cast<size_t>(j)].backward_time().si();
  }
  // Point-to-point sends are blocking in Megatron: `_communicate` posts batch_isend_irecv, waits
  // on every request and then calls torch.cuda.synchronize() (megatron/p2p_communication.py,
  // 2021; megatron/core/pipeline_parallel/p2p_communication.py, `batch_p2p_sync` default True).
  // The sending stage is therefore busy for the transfer after each forward (to the next stage)
  // and each backward (to the previous stage); the receiver starts when the send completes.
  const double p2p = l.pp > 1 ? sc.p2p_time.si() : 0.0;
  thread_local std::vector<double> fwd_c, bwd_c;
  fwd_c = fwd; bwd_c = bwd;
  for (int j = 0; j < J; ++j) {
    if (j < J - 1) fwd_c[static_cast<size_t>(j)] += p2p;
    if (j > 0) bwd_c[static_cast<size_t>(j)] += p2p;
  }
  thread_local step::ScheduleTimes with_p2p;
  step::time_schedule(sched, fwd_c, bwd_c, 0.0, with_p2p);

  // Data parallelism: gradient reduction per chunk once its last backward has run (bucketed
  // overlap, Megatron DDP / PyTorch DDP: buckets are reduced as soon as their gradients are
  // complete, Li et al. VLDB 2020), then the optimizer, then (distributed optimizer / ZeRO /
  // FSDP) the parameter all-gather, overlapped with the next iteration's first forward.
  const ParallelSpec& par = w.parallel;
  const bool sharded = par.use_distributed_optimizer || par.zero_stage >= 1;
  const Collective grad_kind = sharded ? Collective::ReduceScatter : Collective::AllReduce;
  const double gb = w.training.bytes_per_param;
  const auto& vol = sc.volumes;
  auto grad_time = [&](const step::ChunkCost& c) {
    return net.time(grad_kind, Bytes((c.params - c.expert_params) * gb), vol.dp_grad_group) +
           net.time(grad_kind, Bytes(c.expert_params * gb), vol.expert_dp_group);
  };
  auto gather_time = [&](double params, double expert_params) {
    return net.time(Collective::AllGather, Bytes((params - expert_params) * gb), vol.dp_grad_group) +
           net.time(Collective::AllGather, Bytes(expert_params * gb), vol.expert_dp_group);
  };
  // Megatron DDP bucket size: max(40M, 1M x DP) parameters (megatron/core/distributed).
  const double bucket_params = std::max(4.0e7, 1.0e6 * l.dp);
  const double shard_dense = static_cast<double>(l.dp) * l.cp;
  const double shard_expert = std::max(1.0, shard_dense / l.ep);

  StepResult res;
  double best_end = -1;
  int crit = 0;
  std::vector<double> dp_exposed(static_cast<size_t>(l.pp)), dp_total(static_cast<size_t>(l.pp)),
      opt_time(static_cast<size_t>(l.pp));
  for (int r = 0; r < l.pp; ++r) {
    const double end = with_p2p.rank_end[static_cast<size_t>(r)];
    // Chunks of this rank in the order their gradients complete.
    double queue = 0, total = 0;
    double last_done = end;
    for (int c = l.vpp - 1; c >= 0; --c) {
      const int j = c * l.pp + r;
      const auto& ch = sc.chunks[static_cast<size_t>(j)];
      const double t = grad_time(ch).si();
      total += t;
      if (l.dp * l.cp <= 1 && ch.expert_params <= 0) continue;
      if (par.overlap_grad_reduce) {
        const double buckets = std::max(1.0, std::ceil(ch.params / bucket_params));
        const double start = std::max(queue, with_p2p.last_backward_start[static_cast<size_t>(j)]);
        queue = std::max(start + t, with_p2p.last_backward_end[static_cast<size_t>(j)] + t / buckets);
      } else {
        queue = std::max(queue, end) + t;
      }
    }
    last_done = std::max(end, queue);
    double exposed = last_done - end;
    const double p = sc.rank_params[static_cast<size_t>(r)];
    const double pe = sc.rank_expert_params[static_cast<size_t>(r)];
    if (sharded) {
      const double ag = gather_time(p, pe).si();
      total += ag;
      if (par.overlap_param_gather) {
        // Only the first bucket of the first chunk must arrive before the forward can start.
        const double first = sc.chunks[static_cast<size_t>(r)].params;
        const double buckets = std::max(1.0, std::ceil(first / bucket_params));
        exposed += ag * (first / std::max(1.0, p)) / buckets;
      } else {
        exposed += ag;
      }
      if (par.zero_stage >= 3) {
        // ZeRO-3 / FSDP holds only the chunk computing and the one prefetched unsharded
        // (memory.cpp), so each microbatch re-gathers every chunk's weights before its forward
        // and, when resharded after forward, again before its backward (Rajbhandari et al. 2020,
        // ZeRO §7.2.2: parameter all-gathers in forward and backward; PyTorch FSDP
        // reshard_after_forward; Llama 3 §3.3.2 keeps them after forward). The gather above is
        // one of them. They are prefetched behind the rank's own compute; what exceeds it shows.
        const double gathers = (par.fsdp_reshard_after_forward ? 2.0 : 1.0) * l.microbatches - 1.0;
        const double extra = std::max(0.0, gathers) * ag;
        double busy_r = 0;
        for (int c = 0; c < l.vpp; ++c) {
          const auto jj = static_cast<size_t>(c * l.pp + r);
          busy_r += (fwd[jj] + bwd[jj]) * l.microbatches;
        }
        total += extra;
        exposed += std::max(0.0, extra - busy_r);
      }
    }
    const double local_params = sharded ? (p - pe) / shard_dense + pe / shard_expert : p;
    const double opt = gpu.memory_bound(Bytes(local_params * kOptimizerBytesPerParam)).si() +
                       gpu.launch(20).si();
    dp_exposed[static_cast<size_t>(r)] = exposed;
    dp_total[static_cast<size_t>(r)] = total;
    opt_time[static_cast<size_t>(r)] = opt;
    const double rank_total = end + exposed + opt;
    if (rank_total > best_end) { best_end = rank_total; crit = r; }
  }
  const auto cr = static_cast<size_t>(crit);
  res.iteration_time = Seconds(best_end);
  res.critical_stage = crit;

  // Breakdown on the critical rank.
  step::PhaseTime busy;
  for (int c = 0; c < l.vpp; ++c) {
    const auto& ch = sc.chunks[static_cast<size_t>(c * l.pp + crit)];
    busy += ch.forward; busy += ch.backward; busy += ch.recompute;
  }
  busy = busy.scaled(m);
  StepBreakdown& b = res.breakdown;
  b.compute = busy.compute();
  b.tp_comm = busy.tp_comm;
  b.cp_comm = busy.cp_comm;
  b.ep_comm = busy.ep_comm;
  // Exposed p2p: the blocking sends of the critical rank; bubble: the rest of its idle time.
  int sends = 0;
  for (int c = 0; c < l.vpp; ++c) {
    const int j = c * l.pp + crit;
    sends += (j < J - 1 ? 1 : 0) + (j > 0 ? 1 : 0);
  }
  const double end_p2p = with_p2p.rank_end[cr];
  b.pp_comm = Seconds(p2p * sends * m);
  b.bubble = Seconds(std::max(0.0, end_p2p - with_p2p.rank_busy[cr]));
  b.dp_comm = Seconds(dp_exposed[cr]);
  b.optimizer = Seconds(opt_time[cr]);
  b.exposed_comm = b.tp_comm + b.cp_comm + b.ep_comm + b.pp_comm + b.dp_comm;
  b.overlapped_comm = busy.cp_hidden + Seconds(std::max(0.0, dp_total[cr] - dp_exposed[cr]));

  // FLOPs and utilization (PaLM App. B definitions, see flops.hpp).
  res.model_flops_per_iteration = step::model_flops_per_iteration(w);
  res.hardware_flops_per_iteration = step::hardware_flops_per_iteration(w);
  const double gpu_seconds = res.iteration_time.si() * l.gpus;
  res.model_flops_per_gpu = FlopsPerSecond(res.model_flops_per_iteration.si() / gpu_seconds);
  res.hardware_flops_per_gpu = FlopsPerSecond(res.hardware_flops_per_iteration.si() / gpu_seconds);
  res.mfu = res.model_flops_per_gpu.si() / cluster.gpu.peak_bf16.si();
  res.hfu = res.hardware_flops_per_gpu.si() / cluster.gpu.peak_bf16.si();
  res.compute_busy_fraction = std::min(1.0, busy.math.si() / res.iteration_time.si());
  res.tokens_per_iteration = Tokens(static_cast<double>(l.global_batch) * w.model.seq_length);
  res.data_parallel_size = l.dp;
  res.microbatches = m;

  // Memory.
  const step::InFlight& inflight = cached_in_flight(sched, l.chunk_layers);
  const auto mem = step::stage_memory(w, sc, inflight);
  res.stage_memory.resize(mem.size());
  size_t peak = 0;
  for (size_t r = 0; r < mem.size(); ++r) {
    res.stage_memory[r] = mem[r].total();
    if (mem[r].total() > mem[peak].total()) peak = r;
  }
  res.peak_memory_stage = static_cast<int>(peak);
  res.peak_memory = mem[peak];
  res.memory_per_gpu = mem[peak].total();
  res.usable_memory = cluster.gpu.memory - cluster.gpu.usable_memory_reserve;
  res.fits_in_memory = res.memory_per_gpu <= res.usable_memory;
  if (!res.fits_in_memory)
    res.memory_message = step::memory_error_message(mem[peak], static_cast<int>(peak), cluster.gpu);
  return res;
}

void require_fits_in_memory(const StepResult& r) {
  if (!r.fits_in_memory) throw InfeasibleError(r.memory_message);
}

}  // namespace fleetsim
