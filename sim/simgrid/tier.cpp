// The measurements of the SimGrid tier: a contended collective step and the representative
// pipeline, each planned here (plan.hpp) and run in a forked child (isolate.hpp, sg_runs.hpp).
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "sim/core/error.hpp"
#include "sim/simgrid/isolate.hpp"
#include "sim/simgrid/plan.hpp"
#include "sim/simgrid/sg_runs.hpp"
#include "sim/simgrid/simgrid_tier.hpp"
#include "sim/simgrid/tier_internal.hpp"
#include "sim/step/collectives.hpp"
#include "sim/step/gemm_efficiency.hpp"
#include "sim/step/pipeline_schedule.hpp"
#include "sim/step/stage_costs.hpp"

namespace fleetsim {

using namespace sgtier;

std::string simgrid_state_key(const SimgridOptions& o) {
  std::ostringstream k;
  k.precision(17);
  k << "placement=" << (o.placement == SimgridPlacement::Scattered ? "scattered:" + std::to_string(o.placement_seed)
                                                                     : std::string("contiguous"));
  if (o.cable_fault)
    k << ";cable=" << (o.cable_fault->where == SimgridCableFault::Where::GpuNic ? "nic" : "leaf-uplink") << ":"
      << o.cable_fault->rank << ":" << o.cable_fault->rate_fraction;
  if (o.straggler) k << ";straggler=" << o.straggler->rank << ":" << o.straggler->slowdown;
  if (o.sharing_job_gpus > 0) k << ";sharing=" << o.sharing_job_gpus;
  k << ";max_flows=" << o.max_flows;
  for (const auto& c : o.cfg) k << ";cfg=" << c;
  return k.str();
}

namespace sgtier {

TierSetup::TierSetup(const ClusterSpec& cluster, const ParallelSpec& parallel, const SimgridOptions& o)
    : layout(parallel, cluster.gpus, std::max(1, cluster.node.gpus_per_node),
             o.placement == SimgridPlacement::Scattered ? PlacementKind::Scattered : PlacementKind::Contiguous,
             o.placement_seed, o.sharing_job_gpus),
      fabric(cluster, layout.physical_gpus(), fault_of(cluster, o)) {
  engine.cfg = o.cfg;
  engine.verbose = o.verbose;
  if (o.straggler) focus_rank = o.straggler->rank;
  if (o.cable_fault) focus_rank = o.cable_fault->rank;
  if (focus_rank < 0 || focus_rank >= cluster.gpus) throw InfeasibleError("simgrid tier: the degraded rank is outside the job");
}

std::optional<CableFault> TierSetup::fault_of(const ClusterSpec& cluster, const SimgridOptions& o) {
  if (!o.cable_fault) return std::nullopt;
  const Layout probe(ParallelSpec{}, cluster.gpus, std::max(1, cluster.node.gpus_per_node),
                     o.placement == SimgridPlacement::Scattered ? PlacementKind::Scattered : PlacementKind::Contiguous,
                     o.placement_seed, o.sharing_job_gpus);
  if (o.cable_fault->rank < 0 || o.cable_fault->rank >= cluster.gpus)
    throw InfeasibleError("simgrid tier: the faulty cable's rank is outside the job");
  CableFault f;
  f.where = o.cable_fault->where == SimgridCableFault::Where::GpuNic ? CableFault::Where::GpuNic
                                                                     : CableFault::Where::LeafUplink;
  f.physical_gpu = probe.gpu_of_rank(o.cable_fault->rank);  // placement does not depend on the parallel layout
  f.rate_fraction = o.cable_fault->rate_fraction;
  return f;
}

Collective to_plan(SimgridCollective k) {
  switch (k) {
    case SimgridCollective::AllReduce: return Collective::AllReduce;
    case SimgridCollective::ReduceScatter: return Collective::ReduceScatter;
    case SimgridCollective::AllGather: return Collective::AllGather;
    case SimgridCollective::AllToAll: return Collective::AllToAll;
  }
  return Collective::AllReduce;
}

Axis to_plan(ParallelAxis a) {
  switch (a) {
    case ParallelAxis::Data: return Axis::Data;
    case ParallelAxis::Context: return Axis::Context;
    case ParallelAxis::Expert: return Axis::Expert;
  }
  return Axis::Data;
}

PendingCollective start_collective(const TierSetup& s, SimgridCollective kind, GroupShape shape, Bytes bytes,
                                   int max_flows) {
  PendingCollective pc;
  pc.plan = plan_collective(s.fabric, s.layout, shape, to_plan(kind), bytes.si(), s.focus_rank, max_flows);
  if (pc.plan.flows.empty()) return pc;
  const Fabric& fabric = s.fabric;
  const CollectivePlan& plan = pc.plan;
  const EngineConfig& engine = s.engine;
  pc.run.emplace([&fabric, &plan, &engine] {
    return std::vector<double>{run_flow_step(fabric, plan.flows, plan.scale, engine)};
  }, engine.verbose);
  return pc;
}

CollectiveTiming finish_collective(PendingCollective& pc) {
  CollectiveTiming t;
  t.steps = pc.plan.steps;
  t.group_size = pc.plan.group_size;
  t.groups_simulated = pc.plan.groups_simulated;
  t.groups_in_class = pc.plan.groups_in_class;
  t.flows_simulated = static_cast<int>(pc.plan.flows.size());
  t.contention_free_step = Seconds(pc.plan.contention_free_step_s);
  if (pc.run) t.step = Seconds(pc.run->get().at(0));
  t.time = t.step * static_cast<double>(t.steps);
  return t;
}

}  // namespace sgtier

CollectiveTiming simgrid_collective_time(const ClusterSpec& cluster, const ParallelSpec& parallel,
                                         SimgridCollective kind, ParallelAxis axis, Bytes bytes_per_rank,
                                         const SimgridOptions& options) {
  const TierSetup setup(cluster, parallel, options);
  auto pending = start_collective(setup, kind, shape_of(setup.layout, to_plan(axis)), bytes_per_rank, options.max_flows);
  return finish_collective(pending);
}

CollectiveTiming simgrid_collective_time(const ClusterSpec& cluster, SimgridCollective kind, int group_size,
                                         int group_stride, Bytes bytes_per_rank, const SimgridOptions& options) {
  const TierSetup setup(cluster, ParallelSpec{}, options);
  auto pending = start_collective(setup, kind, {group_size, group_stride}, bytes_per_rank, options.max_flows);
  return finish_collective(pending);
}

namespace sgtier {

step::StageCosts contended_stage_costs(const TierSetup& s, const ClusterSpec& cluster, const WorkloadSpec& workload,
                                       const SimgridOptions& o, const CommScales& scales) {
  const step::GpuCompute gpu(cluster.gpu);
  const step::CollectiveModel net(cluster);
  step::StageCosts costs = step::stage_costs(cluster, workload, gpu, net);
  const int pp = costs.layout.pp;
  const int straggler_stage = o.straggler ? s.layout.stage_of(o.straggler->rank) : -1;
  const double slow = o.straggler ? std::max(1.0, o.straggler->slowdown) : 1.0;
  for (size_t j = 0; j < costs.chunks.size(); ++j) {
    step::ChunkCost& c = costs.chunks[j];
    for (step::PhaseTime* ph : {&c.forward, &c.backward, &c.recompute}) {
      // The K/V exchange hides behind attention up to cp_hidden; what the contention adds beyond
      // that is exposed.
      ph->cp_comm = Seconds(std::max(0.0, scales.cp * (ph->cp_comm + ph->cp_hidden).si() - ph->cp_hidden.si()));
      ph->ep_comm = ph->ep_comm * scales.ep;
      if (static_cast<int>(j) % pp == straggler_stage) {
        ph->math = ph->math * slow;
        ph->memory = ph->memory * slow;
      }
    }
  }
  return costs;
}

PipelineProgram pipeline_program(const TierSetup& s, const ClusterSpec& cluster, const WorkloadSpec& workload,
                                 const SimgridOptions& o, const CommScales& scales) {
  const step::CollectiveModel net(cluster);
  const step::StageCosts costs = contended_stage_costs(s, cluster, workload, o, scales);
  const step::Layout& l = costs.layout;
  PipelineProgram prog;
  prog.stages = l.pp;
  prog.chunks = l.vpp;
  prog.microbatches = l.microbatches;
  prog.p2p_bytes = l.pp > 1 ? costs.p2p_bytes.si() : 0.0;
  // What the analytical p2p time adds to the message itself (the NVLink all-gather of the
  // scatter/gather optimization) happens on the receiving side.
  if (l.pp > 1) prog.receive_delay_s = std::max(0.0, (costs.p2p_time - net.p2p(costs.p2p_bytes, l.pp_group.stride)).si());
  const step::PipelineSchedule sched(l.pp, l.vpp, l.microbatches, l.microbatch_group);
  prog.ops.assign(static_cast<size_t>(l.pp), {});
  for (int r = 0; r < l.pp; ++r) {
    for (int k = 0; k < sched.ops_per_rank(); ++k) {
      const step::PipelineOp op = sched.op(r, k);
      const step::ChunkCost& c = costs.chunks[static_cast<size_t>(op.chunk)];
      const double d = op.forward ? c.forward_time().si() : c.backward_time().si();
      prog.ops[static_cast<size_t>(r)].push_back(PipeOp{op.forward, op.microbatch, op.chunk / l.pp, d});
    }
  }
  place_pipeline(s.fabric, s.layout, s.focus_rank, prog);
  return prog;
}

PipelineRun::PipelineRun(const std::vector<double>& out, const PipelineProgram& prog) {
  const auto P = static_cast<size_t>(prog.stages), VS = P * static_cast<size_t>(std::max(1, prog.chunks));
  size_t at = 0;
  auto next = [&]() {
    if (at >= out.size()) throw std::runtime_error("simgrid tier: the pipeline run returned too few numbers");
    return out[at++];
  };
  makespan = next();
  for (size_t p = 0; p < P; ++p) stage_finish.push_back(next());
  for (size_t j = 0; j < VS; ++j) last_backward_start.push_back(next());
  for (size_t j = 0; j < VS; ++j) last_backward_end.push_back(next());
  for (size_t p = 0; p < P; ++p)
    for (const PipeOp& op : prog.ops[p]) {
      step::OpTiming t;
      t.rank = static_cast<int>(p);
      t.op = {op.forward, op.microbatch, op.chunk * prog.stages + static_cast<int>(p)};
      t.start = next();
      t.end = next();
      ops.push_back(t);
    }
  const auto n = static_cast<size_t>(next());
  for (size_t i = 0; i < n; ++i) {
    Transfer t;
    t.from = static_cast<int>(next());
    t.to = static_cast<int>(next());
    t.microbatch = static_cast<int>(next());
    t.start = next();
    t.end = next();
    transfers.push_back(t);
  }
}

}  // namespace sgtier

PipelineTiming simgrid_pipeline_time(const ClusterSpec& cluster, const WorkloadSpec& workload,
                                     const SimgridOptions& options) {
  const TierSetup setup(cluster, workload.parallel, options);
  const PipelineProgram prog = pipeline_program(setup, cluster, workload, options);
  PipelineTiming t;
  t.contention_free_makespan = Seconds(pipeline_makespan_reference(setup.fabric, prog));
  if (prog.stages <= 1) {
    t.makespan = t.contention_free_makespan;
    t.stage_finish = {t.makespan};
    return t;
  }
  IsolatedRun run([&] { return run_pipeline(setup.fabric, prog, setup.engine); }, setup.engine.verbose);
  const PipelineRun out(run.get(), prog);
  t.makespan = Seconds(out.makespan);
  for (double f : out.stage_finish) t.stage_finish.emplace_back(f);
  return t;
}

}  // namespace fleetsim
