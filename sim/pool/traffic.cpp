#include "sim/pool/traffic.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/core/error.hpp"
#include "sim/step/layout.hpp"
#include "sim/step/step_model.hpp"

namespace fleetsim::pool {
namespace {

// Communication slowdowns at which the step model is evaluated: fine near 1 (where overlap hides
// a slowdown and the curve bends), coarse beyond (all exposed: linear).
constexpr double kGrid[] = {1.0, 1.1, 1.25, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 16.0};
constexpr double kBatchTokens = 1 << 20;  // 2^20 tokens per iteration (NeMo's Llama 3 8B/70B recipes: 128 x 8,192)

bool crosses_nodes(const step::GroupPlacement& g, int gpus_per_node) {
  return g.size > 1 && (g.stride >= gpus_per_node || static_cast<long long>(g.size) * g.stride > gpus_per_node);
}

struct Candidate {
  WorkloadSpec w;
  std::string layout;
};

// Layouts in the order tried: least model parallelism first (TP x PP), TP before PP.
std::vector<Candidate> candidates(const StreamModel& sm, int gpus, int gpus_per_node, bool recompute, int zero) {
  std::vector<std::pair<int, int>> shapes;
  for (int tp : {1, 2, 4, 8})
    for (int pp : {1, 2, 4, 8, 16})
      if (tp <= gpus_per_node && tp * pp <= gpus && gpus % (tp * pp) == 0) shapes.emplace_back(tp, pp);
  std::stable_sort(shapes.begin(), shapes.end(),
                   [](const auto& a, const auto& b) { return a.first * a.second < b.first * b.second; });
  std::vector<Candidate> out;
  for (const auto& [tp, pp] : shapes) {
    Candidate c;
    WorkloadSpec& w = c.w;
    w.model = sm.model;
    ParallelSpec& p = w.parallel;
    p.tensor_model_parallel_size = tp;
    p.pipeline_model_parallel_size = pp;
    p.sequence_parallel = tp > 1;
    p.use_distributed_optimizer = true;
    p.zero_stage = zero;
    p.recompute_granularity = recompute ? Recompute::Full : Recompute::None;
    const int dp = gpus / (tp * pp);
    p.expert_model_parallel_size = sm.model.is_moe() ? std::max(1, std::min(sm.model.num_experts, dp)) : 1;
    while (p.expert_model_parallel_size > 1 && dp % p.expert_model_parallel_size != 0) p.expert_model_parallel_size /= 2;
    TrainingSpec& t = w.training;
    t.micro_batch_size = 1;
    const int seqs = std::max(1, static_cast<int>(std::ceil(kBatchTokens / std::max(1, sm.model.seq_length))));
    t.global_batch_size = (seqs + dp - 1) / dp * dp;
    char buf[96];
    std::snprintf(buf, sizeof buf, "TP%d PP%d DP%d", tp, pp, dp);
    c.layout = buf;
    if (p.expert_model_parallel_size > 1) c.layout += " EP" + std::to_string(p.expert_model_parallel_size);
    if (recompute) c.layout += " recompute";
    if (zero == 3) c.layout += " FSDP";
    out.push_back(std::move(c));
  }
  return out;
}

StreamTraffic time_class(const Scenario& s, const StreamModel& sm, int gpus) {
  ClusterSpec cluster = s.cluster;
  cluster.gpus = gpus;
  // Line rate: the sharing model carries oversubscription and collisions (s_self), see traffic.hpp.
  cluster.fabric.oversubscription = 1.0;
  cluster.fabric.pod_oversubscription = 1.0;
  const int G = std::max(1, cluster.node.gpus_per_node);
  // Fallbacks in order: full recomputation, then FSDP (ZeRO-3) as Llama 3 405B trains (§3.3.2).
  for (const auto& [recompute, zero] : {std::pair{false, 1}, std::pair{true, 1}, std::pair{false, 3}, std::pair{true, 3}})
    for (const Candidate& c : candidates(sm, gpus, G, recompute, zero)) {
      StepResult r;
      step::Layout l;
      try {
        r = evaluate_step(cluster, c.w);
        l = step::make_layout(cluster, c.w);
      } catch (const ConfigError&) {
        continue;  // the model does not divide this way (heads, layers, experts)
      } catch (const InfeasibleError&) {
        continue;
      }
      if (!r.fits_in_memory) continue;
      StreamTraffic t;
      t.gpus = gpus;
      t.moe = sm.moe;
      t.model = sm.name;
      t.layout = c.layout;
      const std::pair<const char*, const step::GroupPlacement*> groups[] = {
          {"dp", &l.dp_group}, {"pp", &l.pp_group}, {"cp", &l.cp_group}, {"ep", &l.ep_group}, {"tp", &l.tp_group}};
      for (const auto& [name, g] : groups)
        if (crosses_nodes(*g, G)) t.crossing += (t.crossing.empty() ? "" : ",") + std::string(name);
      t.iteration_s = r.iteration_time.si();
      t.profile.pattern = crosses_nodes(l.ep_group, G) ? TrafficPattern::AllToAll : TrafficPattern::Ring;
      for (double sg : kGrid) {
        const double T = sg == 1.0 ? t.iteration_s
                                   : evaluate_step(cluster, c.w, StepOptions{1.0, 1.0 / sg, nullptr}).iteration_time.si();
        t.profile.s_grid.push_back(sg);
        t.profile.t_rel.push_back(T / t.iteration_s);
      }
      // Past the last point every inter-node byte is exposed: the slope there is the
      // communication time at line rate (dT/ds), exposed or overlapped.
      const size_t n = t.profile.s_grid.size();
      const double slope = (t.profile.t_rel[n - 1] - t.profile.t_rel[n - 2]) /
                           (t.profile.s_grid[n - 1] - t.profile.s_grid[n - 2]);
      t.fabric_s = std::max(0.0, slope) * t.iteration_s;
      t.profile.comm_share = std::clamp(slope, 0.0, 1.0);
      const double nic = cluster.node.nic_bandwidth.si() * std::max(0.0, cluster.fabric.efficiency);
      t.fabric_bytes = t.fabric_s * nic;
      t.exposed_share = t.profile.relative_time(2.0) - 1.0;
      return t;
    }
  throw ConfigError(s.file, "pool.interference",
                    "no layout of '" + sm.name + "' fits " + std::to_string(gpus) +
                        " GPUs of this cluster in memory (TP 1-8, PP 1-16, with and without full recomputation): "
                        "set pool.interference.comm_share to give the stream's traffic directly");
}

}  // namespace

std::vector<StreamTraffic> stream_traffic(const Scenario& s, int pool_gpus) {
  std::vector<StreamTraffic> out;
  const InterferenceSpec& is = s.pool.interference;
  const int G = std::max(1, s.cluster.node.gpus_per_node);
  for (bool moe : {false, true}) {
    if (moe && !(is.all_to_all_share > 0)) continue;
    for (long long gpus = 2LL * G; gpus <= pool_gpus; gpus *= 2) {
      const StreamModel* pick = nullptr;
      for (const StreamModel& sm : is.stream_models)
        if (sm.moe == moe && sm.min_gpus <= gpus) pick = &sm;
      if (!pick) continue;
      out.push_back(time_class(s, *pick, static_cast<int>(gpus)));
    }
  }
  return out;
}

const StreamTraffic& traffic_for(const std::vector<StreamTraffic>& table, int gpus, bool moe) {
  const StreamTraffic* best = nullptr;
  for (const StreamTraffic& t : table)
    if (t.moe == moe && t.gpus <= gpus && (!best || t.gpus > best->gpus)) best = &t;
  if (!best)
    for (const StreamTraffic& t : table)  // below the smallest class (not a multi-node job): the smallest
      if (t.moe == moe && (!best || t.gpus < best->gpus)) best = &t;
  // No multi-node class at all (a pool of single-node jobs): no traffic on the fabric.
  static const StreamTraffic none = [] {
    StreamTraffic t;
    t.profile.comm_share = 0;
    return t;
  }();
  return best ? *best : none;
}

}  // namespace fleetsim::pool
