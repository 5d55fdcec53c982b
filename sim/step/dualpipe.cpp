#include "sim/step/dualpipe.hpp"

#include <algorithm>
#include <string>

#include "sim/core/error.hpp"

namespace fleetsim::step {

namespace {
InFlight dualpipe_in_flight(const Layout& l) {
  const int p = l.pp;
  InFlight f;
  f.peak_layer_microbatches.assign(static_cast<size_t>(p), 0);
  f.peak_chunk_microbatches.assign(static_cast<size_t>(p), p + 1);
  for (int r = 0; r < p; ++r) {
    const int layers = l.chunk_layers[static_cast<size_t>(r)] + l.chunk_layers[static_cast<size_t>(p - 1 - r)];
    f.peak_layer_microbatches[static_cast<size_t>(r)] = ((p + 1) * layers + 1) / 2;
  }
  f.first_chunk_peak = f.last_chunk_peak = (p + 2) / 2;
  return f;
}
}  // namespace

void dualpipe_stages(StageCosts& sc, const WorkloadSpec& w) {
  const int p = sc.layout.pp;
  auto mirror = [p](std::vector<double>& v) {
    const std::vector<double> one = v;
    for (int r = 0; r < p; ++r) v[static_cast<size_t>(r)] = one[static_cast<size_t>(r)] + one[static_cast<size_t>(p - 1 - r)];
  };
  mirror(sc.rank_params);
  mirror(sc.rank_expert_params);
  mirror(sc.rank_linear_params);
  // Both copies' gradients are reduced and both are updated: the DP volumes follow the rank's
  // parameters (as stage_costs derives them).
  CollectiveVolumes& v = sc.volumes;
  const double grad_bytes = w.training.grad_bytes();
  size_t top = 0;
  for (size_t r = 0; r < sc.rank_params.size(); ++r)
    if (sc.rank_params[r] > sc.rank_params[top]) top = r;
  v.dp_grad_per_rank = Bytes((sc.rank_params[top] - sc.rank_expert_params[top]) * grad_bytes);
  v.dp_expert_grad_per_rank = Bytes(sc.rank_expert_params[top] * grad_bytes);
  if (w.parallel.effective_zero_stage() >= 1)
    v.dp_param_gather_per_rank = Bytes(sc.rank_params[top] * w.training.bytes_per_param);
}

DualPipeResult dualpipe_schedule(const StageCosts& sc, const WorkloadSpec& w, const GpuSpec& gpu, double p2p) {
  const Layout& l = sc.layout;
  const int p = l.pp, m = l.microbatches;
  if (m % 2 != 0 || m < p)
    throw InfeasibleError("workload.training.global_batch_size: dualpipe needs an even number of microbatches, at least PP = " +
                          std::to_string(p) + ", per data-parallel replica (got " + std::to_string(m) + ")");
  const int sms = std::max(1, gpu.sm_count);
  const int held = l.ep > 1 ? std::clamp(w.parallel.ep_comm_sms, 0, sms - 1) : 0;
  const double slow = static_cast<double>(sms) / (sms - held);

  DualPipeResult out;
  double worst = -1;
  double pace_bubble_term = 0;
  for (int r = 0; r < p; ++r) {
    // Half the microbatches pass this rank as stage r, half as stage p-1-r: per chunk, the mean.
    const ChunkCost& a = sc.chunks[static_cast<size_t>(r)];
    const ChunkCost& b = sc.chunks[static_cast<size_t>(p - 1 - r)];
    auto mean = [](const PhaseTime& x, const PhaseTime& y) { PhaseTime z = x; z += y; return z.scaled(0.5); };
    const PhaseTime F = mean(a.forward, b.forward);
    PhaseTime B = mean(a.backward, b.backward);
    B += mean(a.recompute, b.recompute);
    auto compute = [&](const PhaseTime& x) {
      return x.math.si() * slow + x.memory.si() + x.tp_comm.si() + x.cp_comm.si();
    };
    const double fc = compute(F), bc = compute(B);
    const double plain = F.compute().si() + B.compute().si();  // math + memory-bound, all SMs
    const double ep = F.ep_comm.si() + B.ep_comm.si();
    // Forward sends its output on, the backward its input gradient back: both hide in the pair.
    const double comm = ep + 2.0 * p2p;
    const double fb = std::max(fc + bc, comm);
    const double wgt = B.wgrad.si() * slow;
    const double bubble_term = fb + bc - 3.0 * wgt;
    const double total = m * fb;
    if (total > worst) {
      worst = total;
      out.critical_rank = r;
      out.compute = m * plain;
      out.sm_partition = m * (F.math.si() + B.math.si()) * (slow - 1.0);
      out.comm_total = m * comm;
      out.comm_exposed = m * (fb - fc - bc);
      out.ep_total = m * ep;
      // The exposed share is the all-to-all's part of the communication that did not hide.
      out.ep_exposed = comm > 0 ? out.comm_exposed * ep / comm : 0.0;
    }
    pace_bubble_term = std::max(pace_bubble_term, bubble_term);
  }
  out.bubble = std::max(0.0, (p / 2.0 - 1.0) * pace_bubble_term);
  const double end = worst + out.bubble;

  ScheduleTimes& t = out.times;
  t.makespan = end;
  t.rank_end.assign(static_cast<size_t>(p), end);
  t.rank_busy.assign(static_cast<size_t>(p), 0.0);
  t.last_backward_start.assign(static_cast<size_t>(p), 0.0);
  t.last_backward_end.assign(static_cast<size_t>(p), end);
  t.first_forward_start.assign(static_cast<size_t>(p), 0.0);
  t.first_forward_end.assign(static_cast<size_t>(p), 0.0);
  double start = 0;
  for (int j = 0; j < p; ++j) {
    const ChunkCost& c = sc.chunks[static_cast<size_t>(j)];
    t.rank_busy[static_cast<size_t>(j)] = m * 0.5 * (c.forward_time().si() + c.backward_time().si() +
                                                     sc.chunks[static_cast<size_t>(p - 1 - j)].forward_time().si() +
                                                     sc.chunks[static_cast<size_t>(p - 1 - j)].backward_time().si());
    t.last_backward_start[static_cast<size_t>(j)] = end - c.backward_time().si();
    t.first_forward_start[static_cast<size_t>(j)] = start;
    start += c.forward_time().si() + p2p;
    t.first_forward_end[static_cast<size_t>(j)] = start - p2p;
  }

  out.in_flight = dualpipe_in_flight(l);
  return out;
}


std::vector<StageMemory> dualpipe_memory(const WorkloadSpec& w, const StageCosts& sc) {
  StageCosts both = sc;
  dualpipe_stages(both, w);
  return stage_memory(w, both, dualpipe_in_flight(sc.layout));
}

double dualpipe_lower_bound(const StageCosts& sc) {
  const Layout& l = sc.layout;
  const int p = l.pp;
  double worst = 0;
  for (int r = 0; r < p; ++r) {
    const ChunkCost& a = sc.chunks[static_cast<size_t>(r)];
    const ChunkCost& b = sc.chunks[static_cast<size_t>(p - 1 - r)];
    const double work = 0.5 * (a.forward.compute().si() + a.backward.compute().si() + a.recompute.compute().si() +
                               b.forward.compute().si() + b.backward.compute().si() + b.recompute.compute().si());
    worst = std::max(worst, work);
  }
  return l.microbatches * worst;
}

}  // namespace fleetsim::step
