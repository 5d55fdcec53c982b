#include "sim/step/step_model.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/error.hpp"
#include "sim/step/capture.hpp"
#include "sim/step/collectives.hpp"
#include "sim/step/compose.hpp"
#include "sim/step/dualpipe.hpp"
#include "sim/step/flops.hpp"
#include "sim/step/fp8.hpp"
#include "sim/step/gemm_efficiency.hpp"
#include "sim/step/pipeline_schedule.hpp"
#include "sim/step/stage_costs.hpp"

namespace fleetsim {
namespace {

using step::Collective;

// The in-flight activation counts depend only on (p, v, m, chunk layers): memoized per thread.
const step::InFlight& cached_in_flight(const step::PipelineSchedule& s, const std::vector<int>& layers) {
  thread_local int p = -1, v = -1, m = -1, n = -1;
  thread_local std::vector<int> key;
  thread_local step::InFlight value;
  if (p != s.ranks() || v != s.chunks_per_rank() || m != s.microbatches() || n != s.group() || key != layers) {
    value = step::activations_in_flight(s, layers);
    p = s.ranks(); v = s.chunks_per_rank(); m = s.microbatches(); n = s.group(); key = layers;
  }
  return value;
}

// Optimizer step on the local shard, memory-bound, bytes per parameter through HBM (Megatron's
// MixedPrecisionOptimizer.step: megatron/optimizer/optimizer.py, 2021; megatron/core/optimizer):
// gradient-norm pass for clipping (read the fp32 gradient, 4 B); fused multi-tensor Adam (read
// fp32 master weight, gradient, m, v; write weight, m, v: 28 B); copy the fp32 master weights to
// the 16-bit model weights (read 4, write 2: 6 B). bf16: 38 B (the software stack's
// optimizer_bytes_per_param). fp16 adds the copy of the 16-bit model gradients to fp32 main
// gradients (read 2, write 4) and the loss-scale unscale with its inf/NaN check (read 4, write 4):
// 52 B.
double optimizer_bytes_per_param(const WorkloadSpec& w) {
  const double common = w.software.optimizer_bytes_per_param;
  return w.training.precision == Precision::Fp16 ? common + 6.0 + 8.0 : common;
}

}  // namespace

StepResult evaluate_step(const ClusterSpec& cluster, const WorkloadSpec& w, const StepOptions& options) {
  if (cluster.gpu.peak_bf16.si() <= 0)
    throw ConfigError("", "cluster.gpu.peak_bf16", "the GPU has no 16-bit peak FLOP rate");
  const step::GpuCompute gpu(cluster.gpu, options.compute_slowdown);
  const step::CollectiveModel net(cluster, options.fabric_bandwidth_scale);
  step::StageCosts sc = step::stage_costs(cluster, w, gpu, net);
  const bool dualpipe = w.parallel.pipeline_schedule == PipelineScheduleKind::DualPipe;
  const step::Layout& l = sc.layout;
  const int J = l.chunks(), m = l.microbatches;

  // Pipeline: explicit schedule, with and without the point-to-point time.
  const step::PipelineSchedule sched(l.pp, l.vpp, m, l.microbatch_group);
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
  // With overlap_p2p_comm (Megatron-core's interleaved schedule; Llama 3's asynchronous p2p,
  // §3.3.2) the sender posts the transfer and goes on: the transfer only delays the receiver.
  const double p2p = l.pp > 1 ? sc.p2p_time.si() : 0.0;
  const bool async_p2p = w.parallel.overlap_p2p_comm;
  thread_local std::vector<double> fwd_c, bwd_c;
  fwd_c = fwd; bwd_c = bwd;
  if (!async_p2p) step::add_blocking_sends(fwd_c, bwd_c, p2p);
  thread_local step::ScheduleTimes with_p2p;
  step::StepCapture* const cap = options.capture;
  if (cap) {
    cap->ops.clear();
    cap->dp.clear();
  }
  // DualPipe (dualpipe.hpp): closed form instead of the list scheduler; each rank then holds
  // its mirror stage's parameters too.
  step::DualPipeResult dual;
  if (dualpipe) {
    dual = step::dualpipe_schedule(sc, w, cluster.gpu, l.pp > 1 ? sc.p2p_time.si() : 0.0);
    step::dualpipe_stages(sc, w);
    with_p2p = dual.times;
  } else {
    step::time_schedule(sched, fwd_c, bwd_c, async_p2p ? p2p : 0.0, with_p2p, cap ? &cap->ops : nullptr);
  }
  // Data parallelism and the optimizer (compose.cpp), with the α-β collective times.
  const auto& vol = sc.volumes;
  step::DataParallelCosts costs;
  costs.collective = [&](Collective kind, double dense_bytes, double expert_bytes) {
    return (net.time(kind, Bytes(dense_bytes), vol.dp_grad_group) +
            net.time(kind, Bytes(expert_bytes), vol.expert_dp_group)).si();
  };
  // Under fp8, Transformer Engine re-quantizes every linear weight of the rank once per iteration
  // (first microbatch, after the optimizer has updated it; fp8.hpp): a cast-transpose pass
  // counted here with the optimizer step it follows.
  const bool fp8 = quantized_linears(w.training.precision);
  costs.optimizer = [&](int r) {
    const double params = step::local_optimizer_params(sc, w.parallel, r);
    double t = gpu.memory_bound(Bytes(params * optimizer_bytes_per_param(w))).si() +
               gpu.launch(w.software.optimizer_kernels).si();
    if (fp8)
      t += gpu.memory_bound(Bytes(sc.rank_linear_params[static_cast<size_t>(r)] *
                                  step::weight_quantize_bytes_per_element(w.training))).si();
    return t;
  };
  costs.contention = step::overlap_contention(cluster.gpu, w.parallel);
  const step::Composition comp = step::compose_iteration(
      sc, w,
      {with_p2p.rank_end, with_p2p.last_backward_start, with_p2p.last_backward_end,
       with_p2p.first_forward_start, with_p2p.first_forward_end},
      costs, cap ? &cap->dp : nullptr);
  if (cap) {
    cap->costs = sc;
    cap->p2p = async_p2p ? 0.0 : p2p;  // async sends are not on the sender's track (their wait is bubble)
    cap->schedule = with_p2p;
    cap->composition = comp;
  }
  const int crit = comp.critical_rank;
  StepResult res;
  res.iteration_time = Seconds(comp.iteration_time);
  res.critical_stage = crit;
  // The pipeline as scheduled, so that step::stage_imbalance_seconds can re-time it with
  // balanced stages when a caller asks (issue 27; not on every evaluation: search calls this often).
  StepResult::Pipeline& pl = res.pipeline;
  pl.pp = l.pp; pl.vpp = l.vpp; pl.microbatches = m; pl.group = l.microbatch_group;
  pl.p2p = p2p; pl.async_p2p = async_p2p; pl.makespan = with_p2p.makespan;
  pl.schedulable = !dualpipe && J > 1;
  for (int j = 0; j < J; ++j) {
    pl.mean_forward += fwd[static_cast<size_t>(j)] / J;
    pl.mean_backward += bwd[static_cast<size_t>(j)] / J;
  }

  const auto cr = static_cast<size_t>(crit);

  // Breakdown on the critical rank.
  const step::PhaseTime busy = step::rank_busy_time(sc, crit);
  StepBreakdown& b = res.breakdown;
  // Compute on the critical rank, plus what the collectives overlapping it cost (overlap.hpp).
  b.compute = busy.compute() + Seconds(comp.contention[static_cast<size_t>(crit)]);
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
  b.pp_comm = Seconds(async_p2p ? 0.0 : p2p * sends * m);  // async: waits show up as bubble
  b.bubble = Seconds(std::max(0.0, end_p2p - with_p2p.rank_busy[cr]));
  b.dp_comm = Seconds(comp.dp_exposed[cr]);
  b.optimizer = Seconds(comp.optimizer[cr]);
  b.overlap_contention = Seconds(comp.contention[cr]);
  b.gather_stall = Seconds(comp.gather_stall[cr]);
  b.prefetch_exposed = Seconds(comp.prefetch_exposed[cr]);
  if (dualpipe) {
    // The critical rank of the pipeline part, as DualPipe paired its chunks (dualpipe.hpp).
    b.ep_comm = Seconds(dual.ep_exposed);
    b.ep_hidden = Seconds(dual.ep_total - dual.ep_exposed);
    b.ep_sm_partition = Seconds(dual.sm_partition);
    b.compute = Seconds(dual.compute + dual.sm_partition) + Seconds(comp.contention[cr]);
    b.pp_comm = Seconds(dual.comm_exposed - dual.ep_exposed);
    b.bubble = Seconds(dual.bubble);
  }
  b.exposed_comm = b.tp_comm + b.cp_comm + b.ep_comm + b.pp_comm + b.dp_comm;
  b.overlapped_comm = busy.cp_hidden + busy.tp_hidden + b.ep_hidden + Seconds(std::max(0.0, comp.dp_total[cr] - comp.dp_exposed[cr]));

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
  const step::InFlight& inflight = dualpipe ? dual.in_flight : cached_in_flight(sched, l.chunk_layers);
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
