// The SimGrid tier's iteration timeline: the rank tracks as the analytical trace lays them out
// (sim/step/trace.cpp, from this tier's capture), plus one track per level of the fabric that
// carries traffic.
//
// Symmetry keeps the link tracks small, as it keeps the rank tracks: they hold the transfers of
// the representative ranks only (one GPU per pipeline stage: its pipeline sends and its
// data-parallel collectives), aggregated per level (NVLink, NIC to leaf, leaf to spine, pod to
// core) rather than per cable. Transfers that overlap in time on a level merge into one span
// carrying their count and bytes, so each track's spans are disjoint (the trace format requires
// complete events on one thread to nest) and the file grows with the schedule, not the GPUs.
#include <algorithm>
#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/simgrid/simgrid_tier.hpp"
#include "sim/simgrid/tier_internal.hpp"

namespace fleetsim {

namespace sgtier {

namespace {

// Levels of the fabric a route crosses.
std::array<bool, kFabricLevels> levels_of(const std::vector<LinkId>& route) {
  std::array<bool, kFabricLevels> on{};
  for (LinkId id : route) {
    switch (id.kind) {
      case LinkKind::NvlUp:
      case LinkKind::NvlDown: on[static_cast<size_t>(FabricLevel::NvLink)] = true; break;
      case LinkKind::NicUp:
      case LinkKind::NicDown: on[static_cast<size_t>(FabricLevel::NicLeaf)] = true; break;
      case LinkKind::LeafUp:
      case LinkKind::LeafDown: on[static_cast<size_t>(FabricLevel::LeafSpine)] = true; break;
      case LinkKind::PodUp:
      case LinkKind::PodDown: on[static_cast<size_t>(FabricLevel::PodCore)] = true; break;
    }
  }
  return on;
}

// Where a ring collective's wire bytes go: the share of the simulated step's flows (of our job)
// that cross each level.
std::array<double, kFabricLevels> level_shares(const Fabric& fabric, const CollectivePlan* plan) {
  std::array<double, kFabricLevels> share{};
  if (!plan) return share;
  int flows = 0;
  for (const Flow& f : plan->flows) {
    if (f.background) continue;
    ++flows;
    const auto on = levels_of(fabric.route(f.src, f.dst));
    for (size_t k = 0; k < on.size(); ++k) share[k] += on[k] ? 1.0 : 0.0;
  }
  for (double& x : share) x = flows > 0 ? x / flows : 0.0;
  return share;
}

// Bytes a rank of a ring of n puts on the wire per byte of the collective's buffer.
double wire_per_buffer_byte(step::Collective kind, int n) {
  if (n <= 1) return 0.0;
  return (kind == step::Collective::AllReduce ? 2.0 : 1.0) * (n - 1.0) / n;
}

}  // namespace

void record_transfers(const TierSetup& setup, const PipelineProgram& prog, const PipelineRun* pipe,
                      const step::CollectiveVolumes& vol, const std::vector<step::DpSpan>& dp,
                      const CollectivePlan* dense, const CollectivePlan* expert, std::vector<FabricTransfer>& out) {
  char name[96];
  if (pipe) {
    const int P = prog.stages;
    for (const PipelineRun::Transfer& t : pipe->transfers) {
      FabricTransfer f;
      const bool forward = t.to > t.from;
      std::snprintf(name, sizeof name, "%s mb%d c%d -> c%d", forward ? "activation" : "gradient", t.microbatch, t.from,
                    t.to);
      f.name = name;
      f.kind = FabricTransfer::Kind::PipelineSend;
      f.start = t.start;
      f.end = t.end;
      const auto on = levels_of(setup.fabric.route(prog.stage_gpu[static_cast<size_t>(t.from % P)],
                                                   prog.stage_gpu[static_cast<size_t>(t.to % P)]));
      for (size_t k = 0; k < on.size(); ++k) f.bytes[k] = on[k] ? prog.p2p_bytes : 0.0;
      out.push_back(std::move(f));
    }
  }
  const auto dense_share = level_shares(setup.fabric, dense), expert_share = level_shares(setup.fabric, expert);
  std::vector<double> gather_at(static_cast<size_t>(prog.stages), 0.0);
  for (const step::DpSpan& d : dp) {
    const double dense_wire = d.dense_bytes * wire_per_buffer_byte(d.kind, vol.dp_grad_group.size);
    const double expert_wire = d.expert_bytes * wire_per_buffer_byte(d.kind, vol.expert_dp_group.size);
    auto transfer = [&](const std::string& what, double start, double seconds, double part) {
      FabricTransfer f;
      f.name = what;
      f.kind = d.chunk >= 0 ? FabricTransfer::Kind::GradientReduction : FabricTransfer::Kind::ParameterGather;
      f.start = start;
      f.end = start + seconds;
      for (size_t k = 0; k < f.bytes.size(); ++k)
        f.bytes[k] = part * (dense_wire * dense_share[k] + expert_wire * expert_share[k]);
      out.push_back(std::move(f));
    };
    const char* kind = d.kind == step::Collective::AllReduce ? "all-reduce" : "reduce-scatter";
    if (d.chunk >= 0) {
      const auto buckets = step::gradient_bucket_intervals(d);
      for (size_t k = 0; k < buckets.size(); ++k) {
        if (buckets.size() > 1)
          std::snprintf(name, sizeof name, "%s grads c%d bucket %d/%d", kind, d.chunk, static_cast<int>(k) + 1,
                        d.buckets);
        else
          std::snprintf(name, sizeof name, "%s grads c%d", kind, d.chunk);
        transfer(name, buckets[k].first, buckets[k].second, 1.0 / static_cast<double>(buckets.size()));
      }
    } else {
      double& at = gather_at[static_cast<size_t>(d.rank)];
      std::snprintf(name, sizeof name, "%s (stage %d)",
                    d.chunk == -2 ? "ZeRO-3 parameter gathers" : "parameter all-gather", d.rank);
      transfer(name, at, d.seconds, 1.0);
      at += d.seconds;
    }
  }
}

}  // namespace sgtier

const char* fabric_level_name(FabricLevel level) {
  switch (level) {
    case FabricLevel::NvLink: return "NVLink (GPU - NVSwitch)";
    case FabricLevel::NicLeaf: return "NIC - leaf switch";
    case FabricLevel::LeafSpine: return "leaf - spine";
    case FabricLevel::PodCore: return "pod - core";
  }
  return "?";
}

namespace {

struct Piece {
  double start = 0, end = 0, bytes = 0;
  const std::string* name = nullptr;
};

// Disjoint spans of one track: each the union of transfers that overlap or touch.
void merge_track(std::vector<Piece> pieces, int track, const char* merged_name, std::vector<step::LinkSpan>& out) {
  std::stable_sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) {
    return a.start != b.start ? a.start < b.start : a.end < b.end;
  });
  size_t i = 0;
  while (i < pieces.size()) {
    size_t k = i;
    double end = pieces[i].end, bytes = 0;
    while (k < pieces.size() && pieces[k].start <= end) {
      end = std::max(end, pieces[k].end);
      bytes += pieces[k].bytes;
      ++k;
    }
    // Most transfers in flight at once in this span: starts and ends swept in time order (an end
    // before a start at the same instant: back-to-back transfers do not overlap).
    std::vector<std::pair<double, int>> edges;
    for (size_t q = i; q < k; ++q) {
      edges.emplace_back(pieces[q].start, 1);
      edges.emplace_back(pieces[q].end, -1);
    }
    std::sort(edges.begin(), edges.end());
    int live = 0, peak = 0;
    for (const auto& e : edges) peak = std::max(peak, live += e.second);

    step::LinkSpan s;
    s.track = track;
    s.start = pieces[i].start;
    s.duration = end - s.start;
    const int n = static_cast<int>(k - i);
    s.name = n == 1 ? *pieces[i].name : merged_name;
    s.args = {{"bytes", bytes}, {"transfers", n}, {"peak_concurrent", peak},
              {"mean_rate_bytes_per_s", bytes / s.duration}};
    out.push_back(std::move(s));
    i = k;
  }
}

// A level's aggregate throughput as a step function: each transfer at its mean rate (bytes over
// its duration) while it is in flight. One point per instant where the rate changes; exactly 0
// when nothing is in flight.
void rate_points(const std::vector<Piece>& pieces, int counter, std::vector<step::LinkRate>& out) {
  std::vector<std::pair<double, double>> edges;  // (time, rate change)
  for (const Piece& p : pieces) {
    const double rate = p.bytes / (p.end - p.start);
    edges.emplace_back(p.start, rate);
    edges.emplace_back(p.end, -rate);
  }
  std::sort(edges.begin(), edges.end());
  double rate = 0;
  int live = 0;
  for (size_t i = 0; i < edges.size();) {
    const double at = edges[i].first;
    for (; i < edges.size() && edges[i].first == at; ++i) {
      rate += edges[i].second;
      live += edges[i].second > 0 ? 1 : -1;
    }
    if (live == 0) rate = 0;
    const double value = std::max(0.0, rate);
    if (!out.empty() && out.back().counter == counter && out.back().bytes_per_s == value) continue;
    out.push_back({counter, at, value});
  }
}

}  // namespace

step::IterationTimeline simgrid_iteration_timeline(const ClusterSpec& cluster, const WorkloadSpec& workload,
                                                   const SimgridOptions& options) {
  SimgridTimeline sg;
  const StepResult result = simgrid_evaluate_step(cluster, workload, options, &sg);
  step::IterationTimeline tl = step::timeline_from_capture(sg.capture, result, workload);
  for (int level = 0; level < kFabricLevels; ++level) {
    std::vector<Piece> all;
    std::array<std::vector<Piece>, 3> by_kind;  // FabricTransfer::Kind
    for (const FabricTransfer& t : sg.transfers) {
      const double bytes = t.bytes[static_cast<size_t>(level)];
      if (!(bytes > 0) || !(t.end > t.start)) continue;
      all.push_back({t.start, t.end, bytes, &t.name});
      by_kind[static_cast<size_t>(t.kind)].push_back(all.back());
    }
    if (all.empty()) continue;
    const std::string name = fabric_level_name(static_cast<FabricLevel>(level));
    rate_points(all, static_cast<int>(tl.link_counters.size()), tl.link_rates);
    tl.link_counters.push_back(name + " (bytes/s)");
    const char* kinds[] = {"pipeline sends", "DP gradient reductions", "DP parameter gathers"};
    for (size_t k = 0; k < by_kind.size(); ++k) {
      if (by_kind[k].empty()) continue;
      merge_track(std::move(by_kind[k]), static_cast<int>(tl.link_tracks.size()), kinds[k], tl.links);
      tl.link_tracks.push_back(name + ": " + kinds[k]);
    }
  }
  tl.links_note =
      "one track per level of the fabric that carries traffic, for the representative ranks only: each stage's "
      "GPU (one TP rank) with its pipeline sends, as SimGrid timed them, and its data-parallel collectives, where "
      "the composition placed them at the simulated contended rate, their wire bytes split over the levels as "
      "the simulated step's flows cross them (parameter all-gathers back to back from the iteration's start). "
      "On each level, pipeline sends, DP gradient reductions and DP parameter gathers have a track each, where "
      "transfers that overlap are merged "
      "into one span (its args count them and sum their bytes), and a counter gives the level's aggregate "
      "throughput (each transfer at its mean rate). "
      "Context- and expert-parallel traffic runs inside the ops and is not drawn here.";
  return tl;
}

}  // namespace fleetsim
