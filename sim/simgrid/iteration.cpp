// One training iteration on the SimGrid tier (DESIGN.md §2).
//
// 1. Context- and expert-parallel collectives: one contended step each on SimGrid gives the ratio
//    of their time to the analytical tier's; the chunks' exposed CP/EP time is scaled by it.
// 2. In parallel, in separate child processes: the representative pipeline (stage durations from
//    sim/step/stage_costs, schedule from sim/step/pipeline_schedule, p2p over real routes) and one
//    contended ring step of each data-parallel gradient group (dense, expert), scaled to the
//    reduce-scatter / all-reduce / all-gather of every chunk's gradients by their byte count.
// 3. The iteration is composed by the analytical tier's own composition (sim/step/compose.cpp:
//    bucketed gradient reduction after each chunk's last backward, parameter all-gather, optimizer),
//    with the simulated finish times, last-backward times and collective times in place of the
//    analytical ones. So on a contention-free fabric both tiers agree, and every difference is
//    contention the analytical tier does not see.
#include <algorithm>
#include <cmath>
#include <optional>

#include "sim/core/error.hpp"
#include "sim/simgrid/simgrid_tier.hpp"
#include "sim/simgrid/tier_internal.hpp"
#include "sim/step/collectives.hpp"
#include "sim/step/compose.hpp"
#include "sim/step/gemm_efficiency.hpp"
#include "sim/step/pipeline_schedule.hpp"
#include "sim/step/stage_costs.hpp"

namespace fleetsim {

using namespace sgtier;

namespace {

// Time of a ring collective of `bytes` per rank on a group whose contended step was simulated at
// plan.reference_bytes: every step costs its latency plus bytes at the contended rate.
double ring_time(const CollectivePlan& plan, double simulated_step, step::Collective kind, double bytes) {
  const int n = plan.group_size;
  if (n <= 1 || bytes <= 0) return 0.0;
  const double per_byte = plan.reference_bytes > 0
                              ? std::max(0.0, simulated_step - plan.step_latency_s) / plan.reference_bytes
                              : 0.0;
  const double step_time = plan.step_latency_s + per_byte * bytes;
  const int steps = kind == step::Collective::AllReduce ? 2 * (n - 1) : n - 1;
  return steps * step_time;
}

struct Calibrated {
  CollectivePlan plan;
  double step = 0;  // simulated contended step at plan.reference_bytes
  [[nodiscard]] double time(step::Collective kind, double bytes) const { return ring_time(plan, step, kind, bytes); }
};

Calibrated finish(PendingCollective& p) {
  Calibrated c;
  c.step = finish_collective(p).step.si();
  c.plan = std::move(p.plan);
  return c;
}

bool spans_nodes(const step::GroupPlacement& g, const Layout& layout, const Fabric& fabric) {
  if (g.size <= 1) return false;
  const int first = layout.gpu_of_rank(0), last = layout.gpu_of_rank((g.size - 1) * g.stride);
  return fabric.node_of(first) != fabric.node_of(last) || g.size * g.stride > fabric.gpus_per_node();
}

}  // namespace

StepResult simgrid_evaluate_step(const ClusterSpec& cluster, const WorkloadSpec& w, const SimgridOptions& o,
                                 SimgridTimeline* timeline) {
  const StepResult analytical = evaluate_step(cluster, w);
  const step::GpuCompute gpu(cluster.gpu);
  const step::CollectiveModel net(cluster);
  const step::StageCosts sc = step::stage_costs(cluster, w, gpu, net);
  const step::Layout& l = sc.layout;
  const auto& vol = sc.volumes;
  const TierSetup setup(cluster, w.parallel, o);
  using step::Collective;

  // 1. Context- and expert-parallel contention ratios (these sit inside the stage durations).
  CommScales scales;
  {
    std::optional<PendingCollective> cp, ep;
    if (l.cp > 1 && vol.cp_kv_per_layer_forward.si() > 0 && spans_nodes(l.cp_group, setup.layout, setup.fabric))
      cp.emplace(start_collective(setup, SimgridCollective::AllGather, {l.cp_group.size, l.cp_group.stride},
                            vol.cp_kv_per_layer_forward, o.max_flows));
    if (l.ep > 1 && vol.ep_per_layer_forward.si() > 0 && spans_nodes(l.ep_group, setup.layout, setup.fabric))
      ep.emplace(start_collective(setup, SimgridCollective::AllToAll, {l.ep_group.size, l.ep_group.stride},
                            vol.ep_per_layer_forward, o.max_flows));
    if (cp) {
      const double sim = finish_collective(*cp).time.si();
      const double ana = net.time(Collective::AllGather, vol.cp_kv_per_layer_forward, l.cp_group).si();
      if (ana > 0) scales.cp = sim / ana;
    }
    if (ep) {
      const double sim = finish_collective(*ep).time.si();
      const double ana = net.time(Collective::AllToAll, vol.ep_per_layer_forward, l.ep_group).si();
      if (ana > 0) scales.ep = sim / ana;
    }
  }

  // 2. The pipeline and the data-parallel gradient groups, in parallel child processes.
  const PipelineProgram prog = pipeline_program(setup, cluster, w, o, scales);
  const ParallelSpec& par = w.parallel;
  std::optional<PendingCollective> dense_p, expert_p;
  if (vol.dp_grad_per_rank.si() > 0 && vol.dp_grad_group.size > 1)
    dense_p.emplace(start_collective(setup, SimgridCollective::ReduceScatter,
                               {vol.dp_grad_group.size, vol.dp_grad_group.stride}, vol.dp_grad_per_rank, o.max_flows));
  if (vol.dp_expert_grad_per_rank.si() > 0 && vol.expert_dp_group.size > 1)
    expert_p.emplace(start_collective(setup, SimgridCollective::ReduceScatter,
                                {vol.expert_dp_group.size, vol.expert_dp_group.stride}, vol.dp_expert_grad_per_rank,
                                o.max_flows));
  std::optional<PipelineRun> pipe;
  if (l.pp > 1) {
    IsolatedRun run([&] { return run_pipeline(setup.fabric, prog, setup.engine); }, setup.engine.verbose);
    pipe.emplace(run.get(), prog);
  }
  std::optional<Calibrated> dense, expert;
  if (dense_p) dense = finish(*dense_p);
  if (expert_p) expert = finish(*expert_p);

  // Stage durations as the pipeline ran them, and the contention-free schedule for the breakdown.
  const int J = l.chunks(), m = l.microbatches;
  std::vector<double> fwd(static_cast<size_t>(J)), bwd(static_cast<size_t>(J));
  for (int r = 0; r < l.pp; ++r)
    for (const PipeOp& op : prog.ops[static_cast<size_t>(r)])
      (op.forward ? fwd : bwd)[static_cast<size_t>(op.chunk * l.pp + r)] = op.duration_s;
  const step::PipelineSchedule sched(l.pp, l.vpp, m, l.microbatch_group);
  step::ScheduleTimes free_p2p, with_p2p;
  step::time_schedule(sched, fwd, bwd, 0.0, free_p2p, timeline && !pipe ? &timeline->capture.ops : nullptr);
  std::vector<double> rank_end(static_cast<size_t>(l.pp)), lb_start(static_cast<size_t>(J)), lb_end(static_cast<size_t>(J));
  if (pipe) {
    rank_end = pipe->stage_finish;
    lb_start = pipe->last_backward_start;
    lb_end = pipe->last_backward_end;
  } else {
    rank_end = free_p2p.rank_end;
    lb_start = free_p2p.last_backward_start;
    lb_end = free_p2p.last_backward_end;
  }

  // 3. Composition (sim/step/compose.cpp) with the simulated times. The optimizer is
  // memory-bound on the local shard: the analytical tier's time on its critical rank, in
  // proportion to each rank's shard.
  const double opt_ref = analytical.breakdown.optimizer.si();
  const double params_ref = std::max(1.0, step::local_optimizer_params(sc, par, analytical.critical_stage));
  step::DataParallelCosts costs;
  costs.collective = [&](Collective kind, double dense_bytes, double expert_bytes) {
    return (dense ? dense->time(kind, dense_bytes) : 0.0) + (expert ? expert->time(kind, expert_bytes) : 0.0);
  };
  costs.optimizer = [&](int r) { return opt_ref * step::local_optimizer_params(sc, par, r) / params_ref; };
  costs.contention = step::overlap_contention(cluster.gpu, par);
  // Where the next iteration's first forwards run: the schedule with the stage durations as
  // simulated and the blocking p2p sends of the analytical tier (only the parameter all-gather
  // overlap reads them).
  std::vector<double> fwd_c = fwd, bwd_c = bwd;
  if (l.pp > 1)
    for (int j = 0; j < J; ++j) {
      if (j < J - 1) fwd_c[static_cast<size_t>(j)] += sc.p2p_time.si();
      if (j > 0) bwd_c[static_cast<size_t>(j)] += sc.p2p_time.si();
    }
  step::time_schedule(sched, fwd_c, bwd_c, 0.0, with_p2p);
  const step::Composition comp = step::compose_iteration(
      sc, w, {rank_end, lb_start, lb_end, with_p2p.first_forward_start, with_p2p.first_forward_end}, costs,
      timeline ? &timeline->capture.dp : nullptr);
  const int crit = comp.critical_rank;

  StepResult res = analytical;
  res.tier = "simgrid";
  res.iteration_time = Seconds(comp.iteration_time);
  res.critical_stage = crit;
  const auto cr = static_cast<size_t>(crit);
  const step::PhaseTime busy = step::rank_busy_time(sc, crit);
  const bool slow_stage = o.straggler && setup.layout.stage_of(o.straggler->rank) == crit;
  const double slow = slow_stage ? std::max(1.0, o.straggler->slowdown) : 1.0;
  const double cp_total = (busy.cp_comm + busy.cp_hidden).si();
  const double cp_exposed = std::max(0.0, scales.cp * cp_total - busy.cp_hidden.si());
  StepBreakdown& b = res.breakdown;
  b.compute = busy.compute() * slow + Seconds(comp.contention[cr]);
  b.tp_comm = busy.tp_comm;
  b.cp_comm = Seconds(cp_exposed);
  b.ep_comm = busy.ep_comm * scales.ep;
  const double busy_sum = free_p2p.rank_busy[cr];
  b.pp_comm = Seconds(std::max(0.0, rank_end[cr] - free_p2p.rank_end[cr]));
  b.bubble = Seconds(std::max(0.0, rank_end[cr] - busy_sum - b.pp_comm.si()));
  b.dp_comm = Seconds(comp.dp_exposed[cr]);
  b.optimizer = Seconds(comp.optimizer[cr]);
  b.overlap_contention = Seconds(comp.contention[cr]);
  b.gather_stall = Seconds(comp.gather_stall[cr]);
  b.prefetch_exposed = Seconds(comp.prefetch_exposed[cr]);
  b.exposed_comm = b.tp_comm + b.cp_comm + b.ep_comm + b.pp_comm + b.dp_comm;
  b.overlapped_comm = Seconds(std::max(0.0, scales.cp * cp_total - cp_exposed)) +
                      Seconds(std::max(0.0, comp.dp_total[cr] - comp.dp_exposed[cr]));

  const double gpu_seconds = res.iteration_time.si() * l.gpus;
  res.model_flops_per_gpu = FlopsPerSecond(res.model_flops_per_iteration.si() / gpu_seconds);
  res.hardware_flops_per_gpu = FlopsPerSecond(res.hardware_flops_per_iteration.si() / gpu_seconds);
  res.mfu = res.model_flops_per_gpu.si() / cluster.gpu.peak_bf16.si();
  res.hfu = res.hardware_flops_per_gpu.si() / cluster.gpu.peak_bf16.si();
  res.compute_busy_fraction = std::min(1.0, busy.math.si() * slow / res.iteration_time.si());

  if (timeline) {
    step::StepCapture& cap = timeline->capture;
    cap.costs = contended_stage_costs(setup, cluster, w, o, scales);
    cap.p2p = 0.0;
    if (pipe) cap.ops = pipe->ops;
    cap.schedule = free_p2p;
    cap.schedule.rank_end = rank_end;
    cap.schedule.last_backward_start = lb_start;
    cap.schedule.last_backward_end = lb_end;
    cap.schedule.makespan = *std::max_element(rank_end.begin(), rank_end.end());
    cap.composition = comp;
    record_transfers(setup, prog, pipe ? &*pipe : nullptr, vol, cap.dp, dense ? &dense->plan : nullptr,
                     expert ? &expert->plan : nullptr, timeline->transfers);
  }
  return res;
}

SimgridOptions simgrid_state_of(const StepOptions& state, const SimgridOptions& base) {
  SimgridOptions o = base;
  if (state.compute_slowdown > 1.0) o.straggler = SimgridStraggler{0, state.compute_slowdown};
  if (state.fabric_bandwidth_scale < 1.0)
    o.cable_fault = SimgridCableFault{SimgridCableFault::Where::GpuNic, 0, std::max(0.0, state.fabric_bandwidth_scale)};
  return o;
}

SimgridIterationTimes::SimgridIterationTimes(ClusterSpec cluster, WorkloadSpec workload, SimgridOptions base)
    : cluster_(std::move(cluster)), workload_(std::move(workload)), base_(std::move(base)) {}

Seconds SimgridIterationTimes::operator()(const SimgridOptions& state) {
  SimgridOptions o = state;
  if (o.cfg.empty()) o.cfg = base_.cfg;
  o.verbose = o.verbose || base_.verbose;
  const std::string key = simgrid_state_key(o);
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  const Seconds t = simgrid_evaluate_step(cluster_, workload_, o).iteration_time;
  ++evaluations_;
  memo_.emplace(key, t);
  return t;
}

}  // namespace fleetsim
