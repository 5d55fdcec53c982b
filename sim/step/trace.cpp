#include "sim/step/trace.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "sim/step/capture.hpp"
#include "sim/step/flops.hpp"

namespace fleetsim::step {
namespace {

// Hardware FLOPs of one GPU for one microbatch of a chunk: the layers' forward (flops.hpp, the
// work of all TP and CP ranks divided among them) plus the logits on the last chunk; the
// recomputed forward under full or selective recomputation. Backward = 2 x forward.
struct ChunkFlops {
  double forward = 0, recompute = 0;
  int moe_layers = 0;
};

std::vector<ChunkFlops> chunk_flops(const WorkloadSpec& w, const Layout& l) {
  const ModelSpec& m = w.model;
  const LayerFlops dense = layer_forward_flops(m, false), moe = layer_forward_flops(m, true);
  const double per_gpu = static_cast<double>(l.micro_batch) / (static_cast<double>(l.tp) * l.cp);
  const auto recompute = w.parallel.recompute_granularity;
  std::vector<ChunkFlops> out(static_cast<size_t>(l.chunks()));
  int first = 0;
  for (int j = 0; j < l.chunks(); ++j) {
    ChunkFlops& c = out[static_cast<size_t>(j)];
    const int layers = l.chunk_layers[static_cast<size_t>(j)];
    for (int i = 0; i < layers; ++i) {
      const bool is_moe = is_moe_layer(m, first + i);
      const LayerFlops& f = is_moe ? moe : dense;
      c.moe_layers += is_moe ? 1 : 0;
      c.forward += f.forward().si();
      if (recompute == Recompute::Full) c.recompute += f.forward().si();
      if (recompute == Recompute::Selective) c.recompute += f.attention_core.si();
    }
    first += layers;
    if (j == l.chunks() - 1) c.forward += logits_forward_flops(m).si();
    c.forward *= per_gpu;
    c.recompute *= per_gpu;
  }
  return out;
}

class Builder {
 public:
  Builder(const StepCapture& cap, std::vector<TimelineSpan>& out) : cap_(cap), out_(out) {}

  void span(int rank, TraceStream stream, int depth, std::string name, const char* cat, double start,
            double duration, TraceArgs args = {}) {
    if (!(duration > 0)) return;
    out_.push_back({rank, stream, depth, std::move(name), cat, start, duration, std::move(args)});
  }

  // The parts of one pass, in the order drawn: compute, then the communication on the critical
  // path (the model sums them per pass; their order inside it is a drawing choice). Bytes are
  // per GPU: the per-layer volumes of stage_costs times the chunk's layers.
  double parts(int rank, int depth, double t, const PhaseTime& ph, const ChunkCost& ch, int moe_layers,
               double flops, double cp_factor) {
    const CollectiveVolumes& v = cap_.costs.volumes;
    span(rank, TraceStream::Compute, depth, "compute", trace_cat::kCompute, t, ph.compute().si(),
         {{"flops", flops}, {"math_s", ph.math.si()}, {"memory_and_launch_s", ph.memory.si()}});
    t += ph.compute().si();
    TraceArgs tp{{"layer_bytes", v.tp_per_layer_forward.si() * ch.layers}, {"layers", ch.layers}};
    if (ch.has_embedding || ch.has_logits)
      tp.emplace_back("also", "the embedding / logits TP collective (time included, bytes not itemized)");
    span(rank, TraceStream::Compute, depth, "TP comm", trace_cat::kTp, t, ph.tp_comm.si(), std::move(tp));
    t += ph.tp_comm.si();
    span(rank, TraceStream::Compute, depth, "EP all-to-all", trace_cat::kEp, t, ph.ep_comm.si(),
         {{"bytes", v.ep_per_layer_forward.si() * moe_layers}, {"moe_layers", moe_layers}});
    t += ph.ep_comm.si();
    span(rank, TraceStream::Compute, depth, "CP K/V exchange (exposed)", trace_cat::kCp, t, ph.cp_comm.si(),
         {{"bytes", v.cp_kv_per_layer_forward.si() * ch.layers * cp_factor}, {"hidden_s", ph.cp_hidden.si()}});
    t += ph.cp_comm.si();
    return t;
  }

 private:
  const StepCapture& cap_;
  std::vector<TimelineSpan>& out_;
};

const char* collective_name(Collective k) {
  switch (k) {
    case Collective::AllReduce: return "all-reduce";
    case Collective::ReduceScatter: return "reduce-scatter";
    case Collective::AllGather: return "all-gather";
    default: return "collective";
  }
}

}  // namespace

namespace {
TimelineFn& simgrid_timeline_slot() {
  static TimelineFn fn;
  return fn;
}
}  // namespace

void set_simgrid_timeline(TimelineFn fn) { simgrid_timeline_slot() = std::move(fn); }
const TimelineFn& simgrid_timeline() { return simgrid_timeline_slot(); }

std::vector<std::pair<double, double>> gradient_bucket_intervals(const DpSpan& d) {
  if (d.buckets <= 1) return {{d.start, d.seconds}};
  std::vector<std::pair<double, double>> out;
  const double each = d.seconds / d.buckets;
  for (int k = 0; k < d.buckets; ++k) {
    const double at = k + 1 < d.buckets ? d.start + k * each : d.end - each;
    out.emplace_back(at, each);
  }
  return out;
}

IterationTimeline iteration_timeline(const ClusterSpec& cluster, const WorkloadSpec& w) {
  StepCapture cap;
  StepOptions options;
  options.capture = &cap;
  const StepResult result = evaluate_step(cluster, w, options);
  return timeline_from_capture(cap, result, w);
}

IterationTimeline timeline_from_capture(const StepCapture& cap, const StepResult& result, const WorkloadSpec& w) {
  IterationTimeline tl;
  tl.result = result;
  tl.tier = result.tier.empty() ? "analytical" : result.tier;
  const StageCosts& sc = cap.costs;
  const Layout& l = sc.layout;
  const int J = l.chunks();
  tl.ranks = l.pp;
  tl.gpus_per_rank = l.gpus / l.pp;
  const std::vector<ChunkFlops> flops = chunk_flops(w, l);
  const double iteration = tl.result.iteration_time.si();

  std::vector<std::vector<const OpTiming*>> by_rank(static_cast<size_t>(l.pp));
  for (const OpTiming& op : cap.ops) by_rank[static_cast<size_t>(op.rank)].push_back(&op);
  Builder b(cap, tl.spans);
  char name[96];
  for (int r = 0; r < l.pp; ++r) {
    const auto rr = static_cast<size_t>(r);
    auto& ops = by_rank[rr];
    std::stable_sort(ops.begin(), ops.end(), [](const OpTiming* a, const OpTiming* c) { return a->start < c->start; });
    // Pipeline: ops, the parts inside them, and the idle gaps between them (the bubble).
    double cursor = 0;
    for (const OpTiming* op : ops) {
      if (op->start > cursor)
        b.span(r, TraceStream::Compute, 0, "bubble", trace_cat::kBubble, cursor, op->start - cursor);
      const int j = op->op.chunk, mb = op->op.microbatch;
      const ChunkCost& ch = sc.chunks[static_cast<size_t>(j)];
      const ChunkFlops& f = flops[static_cast<size_t>(j)];
      const bool fwd = op->op.forward;
      const double op_flops = fwd ? f.forward : 2.0 * f.forward + f.recompute;
      std::snprintf(name, sizeof name, "%s mb%d c%d", fwd ? "F" : "B", mb, j);
      b.span(r, TraceStream::Compute, 0, name, fwd ? trace_cat::kForward : trace_cat::kBackward, op->start,
             op->end - op->start,
             {{"microbatch", mb}, {"chunk", j}, {"layers", ch.layers}, {"flops", op_flops}});
      double t = op->start;
      if (fwd) {
        t = b.parts(r, 1, t, ch.forward, ch, f.moe_layers, f.forward, 1.0);
      } else {
        const double rec = ch.recompute.total().si();
        if (rec > 0) {
          b.span(r, TraceStream::Compute, 1, "recompute", trace_cat::kRecompute, t, rec, {{"flops", f.recompute}});
          b.parts(r, 2, t, ch.recompute, ch, f.moe_layers, f.recompute, 1.0);
          t += rec;
        }
        t = b.parts(r, 1, t, ch.backward, ch, f.moe_layers, 2.0 * f.forward, 2.0);
      }
      const bool sends = fwd ? j < J - 1 : j > 0;
      if (sends && cap.p2p > 0) {
        const int to = l.rank_of_chunk(fwd ? j + 1 : j - 1);
        std::snprintf(name, sizeof name, "send %s to stage %d", fwd ? "activation" : "gradient", to);
        b.span(r, TraceStream::Compute, 1, name, trace_cat::kPp, t, cap.p2p, {{"bytes", sc.p2p_bytes.si()}});
      }
      cursor = op->end;
    }
    // After the pipeline: the DP communication the rank waits for, the optimizer, then idle until
    // the slowest rank is done (compose.cpp).
    const double end = cap.schedule.rank_end[rr];
    for (const DpSpan& d : cap.dp) {
      if (d.rank != r) continue;
      if (d.chunk < 0) continue;
      {
        std::snprintf(name, sizeof name, "%s grads c%d", collective_name(d.kind), d.chunk);
        b.span(r, TraceStream::DpGradients, 0, name, trace_cat::kDp, d.start, d.end - d.start,
               {{"bytes", d.dense_bytes}, {"expert_bytes", d.expert_bytes}, {"transfer_s", d.seconds},
                {"buckets", d.buckets}});
        // The buckets as compose_iteration times them: each a 1/B share of the transfer, back to
        // back from the start; the last one cannot start before the chunk's last backward is done,
        // so it ends the span.
        if (d.buckets > 1) {
          const auto buckets = gradient_bucket_intervals(d);
          for (size_t k = 0; k < buckets.size(); ++k) {
            std::snprintf(name, sizeof name, "bucket %d/%d", static_cast<int>(k) + 1, d.buckets);
            b.span(r, TraceStream::DpGradients, 1, name, trace_cat::kDp, buckets[k].first, buckets[k].second,
                   {{"bytes", (d.dense_bytes + d.expert_bytes) / d.buckets}});
          }
        }
      }
    }
    // The rank's time after its pipeline, as compose_iteration accounts it: compute slowed by the
    // collectives it overlapped (drawn as one span, though it is spread over the overlapped
    // compute), the parameter gathers the first forward waited for (drawn here, though they delay
    // the start), then the gradient reduction and ZeRO-3 gathers still running when the pipeline
    // ends. Their sum is the model's exposed DP time, so the track adds up to the iteration.
    const Composition& comp = cap.composition;
    double t = end;
    b.span(r, TraceStream::Compute, 0, "compute slowed by overlapped NCCL kernels", trace_cat::kContention, t,
           comp.contention[rr]);
    t += comp.contention[rr];
    b.span(r, TraceStream::Compute, 0, "wait: parameter all-gather before the first forward",
           trace_cat::kDpExposed, t, comp.gather_stall[rr]);
    t += comp.gather_stall[rr];
    b.span(r, TraceStream::Compute, 0, "wait: gradient reduction and ZeRO-3 gathers", trace_cat::kDpExposed, t,
           comp.dp_exposed[rr] - comp.gather_stall[rr]);
    t += comp.dp_exposed[rr] - comp.gather_stall[rr];
    double hidden_at = 0;  // the parameter gathers' hidden parts, from the iteration's start
    for (const DpSpan& d : cap.dp) {
      if (d.rank != r || d.chunk >= 0) continue;
      const bool zero3 = d.chunk == -2;
      const TraceArgs args{{"bytes", d.dense_bytes}, {"expert_bytes", d.expert_bytes}, {"transfer_s", d.seconds},
                           {"exposed_s", d.exposed}};
      // Hidden part: the all-gather of the updated weights overlaps the next iteration's first
      // forwards (drawn in steady state at this iteration's start); ZeRO-3's per-microbatch
      // gathers are prefetched while the rank computes.
      b.span(r, TraceStream::DpParameters, 0,
             zero3 ? "ZeRO-3 parameter gathers (prefetched)" : "parameter all-gather (overlapped)", trace_cat::kDp,
             hidden_at, std::max(0.0, d.seconds - d.exposed), args);
      hidden_at += std::max(0.0, d.seconds - d.exposed);
    }
    const double opt = cap.composition.optimizer[rr];
    b.span(r, TraceStream::Compute, 0, "optimizer", trace_cat::kOptimizer, t, opt,
           {{"params", local_optimizer_params(sc, w.parallel, r)}});
    t += opt;
    b.span(r, TraceStream::Compute, 0, "idle: slowest stage", trace_cat::kIdle, t, iteration - t);
  }
  // By rank, stream, start; parents (lower depth) first at equal starts.
  std::stable_sort(tl.spans.begin(), tl.spans.end(), [](const TimelineSpan& a, const TimelineSpan& c) {
    if (a.rank != c.rank) return a.rank < c.rank;
    if (a.stream != c.stream) return a.stream < c.stream;
    if (a.start != c.start) return a.start < c.start;
    return a.depth < c.depth;
  });
  return tl;
}

void add_iteration_trace(const IterationTimeline& t, const Scenario& s, TraceWriter& out) {
  const StepResult& r = t.result;
  const auto& p = s.workload.parallel;
  char buf[256];
  std::snprintf(buf, sizeof buf, "TP %d, PP %d (VPP %d), CP %d, EP %d, DP %d; %d microbatches of %d",
                p.tensor_model_parallel_size, p.pipeline_model_parallel_size, p.virtual_pipeline_model_parallel_size,
                p.context_parallel_size, p.expert_model_parallel_size, r.data_parallel_size, r.microbatches,
                s.workload.training.micro_batch_size);
  out.other("scenario", s.file);
  out.other("description", s.description);
  out.other("layout", buf);
  out.other("tier", t.tier);
  std::snprintf(buf, sizeof buf,
                "one representative GPU per pipeline stage: each track stands for the %d GPUs (TP x CP x DP) "
                "of its stage, which run the same schedule",
                t.gpus_per_rank);
  out.other("tracks", buf);
  if (!t.links_note.empty()) out.other("link_tracks", t.links_note);

  constexpr int kPid = 1;
  std::snprintf(buf, sizeof buf, "iteration: %d GPUs, %s", s.cluster.gpus, s.cluster.gpu.name.c_str());
  out.process_name(kPid, buf, 0);
  out.thread_name(kPid, 0, "iteration", 0);
  const StepBreakdown& b = r.breakdown;
  out.complete(kPid, 0, "iteration", "iteration", 0, r.iteration_time.si(),
               {{"iteration_time_s", r.iteration_time.si()},
                {"mfu", r.mfu},
                {"hfu", r.hfu},
                {"critical_stage", r.critical_stage},
                {"compute_s", b.compute.si()},
                {"tp_comm_s", b.tp_comm.si()},
                {"cp_comm_s", b.cp_comm.si()},
                {"ep_comm_s", b.ep_comm.si()},
                {"pp_comm_s", b.pp_comm.si()},
                {"bubble_s", b.bubble.si()},
                {"dp_comm_s", b.dp_comm.si()},
                {"optimizer_s", b.optimizer.si()},
                {"model_flops_per_iteration", r.model_flops_per_iteration.si()},
                {"hardware_flops_per_iteration", r.hardware_flops_per_iteration.si()}});
  const char* stream_names[] = {"compute", "DP gradients", "DP parameters"};
  std::vector<bool> named(static_cast<size_t>(t.ranks) * 3, false);
  for (const TimelineSpan& sp : t.spans) {
    const int k = static_cast<int>(sp.stream);
    const int tid = 1 + 3 * sp.rank + k;
    if (!named[static_cast<size_t>(tid - 1)]) {
      named[static_cast<size_t>(tid - 1)] = true;
      std::snprintf(buf, sizeof buf, "stage %d%s: %s", sp.rank, sp.rank == r.critical_stage ? " (critical)" : "",
                    stream_names[k]);
      out.thread_name(kPid, tid, buf, tid);
    }
    out.complete(kPid, tid, sp.name, sp.category, sp.start, sp.duration, sp.args);
  }
  // The fabric's levels, below the pipeline ranks.
  if (t.links.empty() && t.link_rates.empty()) return;
  constexpr int kLinkPid = 2;
  out.process_name(kLinkPid, "fabric: traffic of the representative ranks by switch level", 1);
  for (size_t k = 0; k < t.link_tracks.size(); ++k)
    out.thread_name(kLinkPid, static_cast<int>(k), t.link_tracks[k], static_cast<int>(k));
  for (const LinkSpan& sp : t.links) out.complete(kLinkPid, sp.track, sp.name, "link", sp.start, sp.duration, sp.args);
  for (const LinkRate& r : t.link_rates)
    out.counter(kLinkPid, t.link_counters[static_cast<size_t>(r.counter)], r.at, {{"bytes_per_s", r.bytes_per_s}});
}

}  // namespace fleetsim::step
