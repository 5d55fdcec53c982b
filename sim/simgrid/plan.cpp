#include "sim/simgrid/plan.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "sim/core/error.hpp"

namespace fleetsim::sgtier {

Layout::Layout(const ParallelSpec& par, int gpus, int gpus_per_node, PlacementKind placement,
               unsigned long long seed, int other_job_gpus)
    : tp(std::max(1, par.tensor_model_parallel_size)),
      cp(std::max(1, par.context_parallel_size)),
      pp(std::max(1, par.pipeline_model_parallel_size)),
      ep(std::max(1, par.expert_model_parallel_size)),
      gpus_(gpus), other_gpus_(std::max(0, other_job_gpus)), G_(std::max(1, gpus_per_node)) {
  if (gpus % (tp * cp * pp) != 0) throw InfeasibleError("simgrid tier: TP x CP x PP does not divide the GPUs");
  dp = gpus / (tp * cp * pp);
  const std::string& order = par.rank_order;
  const bool dp_inner = order.empty() || order == "tp-cp-dp-pp" || order == "tp-cp-ep-dp-pp";
  stride_d = dp_inner ? tp * cp : tp * cp * pp;
  stride_p = dp_inner ? tp * cp * dp : tp * cp;
  // A job smaller than a node (or ending in a partial node) still occupies whole nodes.
  const int ours = (gpus + G_ - 1) / G_, theirs = (other_gpus_ + G_ - 1) / G_, total = ours + theirs;
  physical_ = total * G_;
  // Interleave: our i-th node goes to the i-th of `ours` evenly spread slots; the other job fills the rest.
  std::vector<char> taken(total, 0);
  for (int i = 0; i < ours; ++i) {
    const int slot = static_cast<int>(static_cast<long long>(i) * total / ours);
    our_nodes_.push_back(slot);
    taken[slot] = 1;
  }
  for (int n = 0; n < total; ++n)
    if (!taken[n]) other_nodes_.push_back(n);
  if (placement == PlacementKind::Scattered) {
    std::mt19937_64 rng(seed);
    std::shuffle(our_nodes_.begin(), our_nodes_.end(), rng);
  }
}

int Layout::gpu_of_rank(int rank) const { return our_nodes_[rank / G_] * G_ + rank % G_; }
int Layout::other_gpu_of_rank(int rank) const { return other_nodes_[rank / G_] * G_ + rank % G_; }

GroupShape shape_of(const Layout& l, Axis axis) {
  switch (axis) {
    case Axis::Data: return {l.dp, l.stride_d};
    case Axis::Context: return {l.cp, l.tp};
    case Axis::Expert: return {l.ep, l.tp};
  }
  return {};
}

std::vector<std::vector<int>> groups_strided(GroupShape shape, int ranks) {
  const int size = std::max(1, shape.size), stride = std::max(1, shape.stride);
  if (ranks % (static_cast<long long>(size) * stride) != 0 && size > 1)
    throw InfeasibleError("simgrid tier: a group of " + std::to_string(size) + " ranks " + std::to_string(stride) +
                          " apart does not tile " + std::to_string(ranks) + " ranks");
  std::vector<std::vector<int>> out;
  for (int base = 0; base < ranks; ++base) {
    if ((base / stride) % size != 0) continue;
    std::vector<int> g;
    for (int i = 0; i < size; ++i) g.push_back(base + i * stride);
    out.push_back(std::move(g));
  }
  return out;
}

namespace {

// Flows of one step of a ring (NCCL style: one channel per NIC the group can use inside a node; in
// channel c each node's block of members is rotated by c so that consecutive channels leave the
// node through different GPUs, hence different NICs), or of a whole all-to-all.
void group_flows(const Fabric& f, const std::vector<int>& gpus, Collective kind, double bytes_per_rank,
                 bool background, std::vector<Flow>& out) {
  const int n = static_cast<int>(gpus.size());
  if (n < 2) return;
  if (kind == Collective::AllToAll) {
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (i != j) out.push_back({gpus[i], gpus[j], bytes_per_rank / n, background});
    return;
  }
  std::vector<std::vector<int>> blocks;  // consecutive members on one node
  for (int g : gpus) {
    if (blocks.empty() || f.node_of(blocks.back().back()) != f.node_of(g)) blocks.emplace_back();
    blocks.back().push_back(g);
  }
  int k = static_cast<int>(blocks.front().size());
  for (const auto& b : blocks) k = std::min<int>(k, static_cast<int>(b.size()));
  const int channels = blocks.size() > 1 ? std::max(1, std::min(k, f.nics_per_node())) : 1;
  const double chunk = bytes_per_rank / n / channels;
  for (int c = 0; c < channels; ++c) {
    std::vector<int> ring;
    for (const auto& b : blocks) {
      const int m = static_cast<int>(b.size());
      for (int i = 0; i < m; ++i) ring.push_back(b[(i + c * m / channels) % m]);
    }
    for (int i = 0; i < n; ++i) out.push_back({ring[i], ring[(i + 1) % n], chunk, background});
  }
}

// Which switch trees (rails) a group's flows use: groups whose trees overlap can share bundles and NICs.
std::vector<int> tree_signature(const Fabric& f, const std::vector<Flow>& flows) {
  std::set<int> trees;
  for (const Flow& fl : flows)
    for (LinkId l : f.route(fl.src, fl.dst))
      if (l.kind == LinkKind::NicUp) trees.insert(f.rail_optimized() ? f.rail_of_nic(static_cast<int>(l.index)) : 0);
  return {trees.begin(), trees.end()};
}

bool overlaps(const std::vector<int>& a, const std::vector<int>& b) {
  for (int x : a)
    if (std::binary_search(b.begin(), b.end(), x)) return true;
  return false;
}

}  // namespace

CollectivePlan plan_collective(const Fabric& fabric, const Layout& layout, GroupShape shape, Collective kind,
                               double bytes_per_rank, int focus_rank, int max_flows) {
  CollectivePlan plan;
  const auto groups = groups_strided(shape, layout.ranks());
  if (groups.empty()) return plan;
  const int n = static_cast<int>(groups.front().size());
  plan.group_size = n;
  plan.steps = kind == Collective::AllReduce ? 2 * (n - 1)
               : kind == Collective::AllToAll ? 1 : n - 1;
  if (n < 2) return plan;

  auto flows_of = [&](const std::vector<int>& ranks, bool other) {
    std::vector<int> gpus;
    for (int r : ranks) gpus.push_back(other ? layout.other_gpu_of_rank(r) : layout.gpu_of_rank(r));
    std::vector<Flow> fl;
    group_flows(fabric, gpus, kind, bytes_per_rank, other, fl);
    return fl;
  };

  // The focus group and every group that shares its switch trees.
  int focus = 0;
  for (size_t g = 0; g < groups.size(); ++g)
    if (std::find(groups[g].begin(), groups[g].end(), focus_rank) != groups[g].end()) focus = static_cast<int>(g);
  const auto focus_flows = flows_of(groups[focus], false);
  const auto signature = tree_signature(fabric, focus_flows);
  std::vector<int> cls;  // indices of groups in the focus class, focus first
  for (size_t g = 0; g < groups.size(); ++g) {
    if (static_cast<int>(g) == focus) continue;
    if (overlaps(tree_signature(fabric, flows_of(groups[g], false)), signature)) cls.push_back(static_cast<int>(g));
  }
  cls.insert(cls.begin(), focus);
  const int K = static_cast<int>(cls.size());
  const int per_group = std::max<int>(1, static_cast<int>(focus_flows.size()));

  std::vector<std::vector<int>> other_groups;
  if (layout.other_ranks() > 0) {
    const int other_dp = layout.other_ranks() / (layout.tp * layout.cp * layout.pp);
    for (const auto& g : groups_strided({other_dp, layout.stride_d}, layout.other_ranks()))
      if (overlaps(tree_signature(fabric, flows_of(g, true)), signature)) other_groups.push_back(g);
  }
  const int budget = other_groups.empty() ? max_flows : max_flows / 2;
  const int k = std::clamp(budget / per_group, 1, K);
  plan.groups_in_class = K;
  plan.groups_simulated = k;
  const int K2 = static_cast<int>(other_groups.size());
  const int k2 = K2 == 0 ? 0 : std::clamp(static_cast<int>(std::lround(static_cast<double>(K2) * k / K)), 1, K2);
  const bool sampling = k < K || k2 < K2;
  std::unordered_map<std::uint64_t, int> all, sampled;
  auto count = [&](const std::vector<Flow>& fl, std::unordered_map<std::uint64_t, int>& into) {
    if (!sampling) return;
    for (const Flow& x : fl)
      for (LinkId l : fabric.route(x.src, x.dst)) ++into[l.key()];
  };
  auto take = [&](const std::vector<Flow>& fl, bool kept) {
    count(fl, all);
    if (!kept) return;
    count(fl, sampled);
    plan.flows.insert(plan.flows.end(), fl.begin(), fl.end());
  };
  // Evenly spaced groups of the class (the focus group first), then as large a share of the other job's.
  std::vector<char> keep(static_cast<size_t>(K), 0), keep2(static_cast<size_t>(K2), 0);
  for (int j = 0; j < k; ++j) keep[static_cast<size_t>(static_cast<long long>(j) * K / k)] = 1;
  for (int j = 0; j < k2; ++j) keep2[static_cast<size_t>(static_cast<long long>(j) * K2 / k2)] = 1;
  for (int i = 0; i < K; ++i) take(flows_of(groups[cls[static_cast<size_t>(i)]], false), keep[static_cast<size_t>(i)]);
  for (int i = 0; i < K2; ++i) {
    // The other job's ring all-reduce runs through and beyond our step: make it long-lived.
    auto fl = flows_of(other_groups[static_cast<size_t>(i)], true);
    for (Flow& x : fl) x.bytes = std::max(x.bytes, 1e3 * bytes_per_rank / n);
    take(fl, keep2[static_cast<size_t>(i)]);
  }
  for (auto [key, n_sampled] : sampled) plan.scale.multiplier[key] = static_cast<double>(n_sampled) / all[key];
  plan.reference_bytes = bytes_per_rank;
  for (const Flow& fl : focus_flows) {
    plan.contention_free_step_s = std::max(plan.contention_free_step_s, fabric.transfer_time(fl.src, fl.dst, fl.bytes));
    plan.step_latency_s = std::max(plan.step_latency_s, fabric.route_latency(fabric.route(fl.src, fl.dst)));
  }
  return plan;
}

double LinkScale::apply(const Fabric& f, LinkId id) const {
  double bw = f.bandwidth(id);
  if (auto it = multiplier.find(id.key()); it != multiplier.end()) bw *= it->second;
  return bw;
}

void place_pipeline(const Fabric& fabric, const Layout& layout, int focus_rank, PipelineProgram& program) {
  const int t0 = focus_rank % layout.tp;
  const int c0 = (focus_rank / layout.tp) % layout.cp;
  const int d0 = (focus_rank / layout.stride_d) % layout.dp;
  program.stage_gpu.clear();
  for (int p = 0; p < layout.pp; ++p) program.stage_gpu.push_back(layout.gpu_of_rank(layout.rank_of(t0, c0, p, d0)));
  // For each hop (p -> p+1 and back), count every pipeline's TP ranks crossing each link (switch
  // bundles, and NICs when GPUs share them).
  std::map<std::uint64_t, double> worst;
  for (int p = 0; p + 1 < layout.pp; ++p)
    for (int dir = 0; dir < 2; ++dir) {
      std::unordered_map<std::uint64_t, int> count;
      for (int d = 0; d < layout.dp; ++d)
        for (int c = 0; c < layout.cp; ++c)
          for (int t = 0; t < layout.tp; ++t) {
            int a = layout.gpu_of_rank(layout.rank_of(t, c, p, d));
            int b = layout.gpu_of_rank(layout.rank_of(t, c, p + 1, d));
            if (dir) std::swap(a, b);
            for (LinkId l : fabric.route(a, b)) ++count[l.key()];
          }
      int a = program.stage_gpu[p], b = program.stage_gpu[p + 1];
      if (dir) std::swap(a, b);
      for (LinkId l : fabric.route(a, b)) worst[l.key()] = std::max(worst[l.key()], static_cast<double>(count[l.key()]));
    }
  program.scale.multiplier.clear();
  for (auto [key, n] : worst)
    if (n > 1) program.scale.multiplier[key] = 1.0 / n;
}

double pipeline_makespan_reference(const Fabric& fabric, const PipelineProgram& prog) {
  // Event-free list scheduling: repeatedly run any stage whose next op has its input ready.
  const int P = prog.stages, V = std::max(1, prog.chunks), M = prog.microbatches;
  const int VS = P * V;
  std::vector<double> fdone(static_cast<size_t>(VS) * M, -1), bdone(static_cast<size_t>(VS) * M, -1);
  std::vector<size_t> next(P, 0);
  std::vector<double> free_at(P, 0);
  auto hop = [&](int from_stage, int to_stage) {
    if (from_stage == to_stage) return 0.0;
    return fabric.transfer_time(prog.stage_gpu[from_stage], prog.stage_gpu[to_stage], prog.p2p_bytes) +
           prog.receive_delay_s;
  };
  bool progress = true;
  double makespan = 0;
  while (progress) {
    progress = false;
    for (int p = 0; p < P; ++p) {
      while (next[p] < prog.ops[p].size()) {
        const PipeOp& op = prog.ops[p][next[p]];
        const int v = op.chunk * P + p;
        double ready = free_at[p];
        if (op.forward && v > 0) {
          const double in = fdone[static_cast<size_t>(v - 1) * M + op.microbatch];
          if (in < 0) break;
          ready = std::max(ready, in + hop((v - 1) % P, p));
        }
        if (!op.forward && v < VS - 1) {
          const double in = bdone[static_cast<size_t>(v + 1) * M + op.microbatch];
          if (in < 0) break;
          ready = std::max(ready, in + hop((v + 1) % P, p));
        }
        if (!op.forward && fdone[static_cast<size_t>(v) * M + op.microbatch] < 0) break;
        const double end = ready + op.duration_s;
        (op.forward ? fdone : bdone)[static_cast<size_t>(v) * M + op.microbatch] = end;
        free_at[p] = end;
        makespan = std::max(makespan, end);
        ++next[p];
        progress = true;
      }
    }
  }
  for (int p = 0; p < P; ++p)
    if (next[p] != prog.ops[p].size()) throw InfeasibleError("simgrid tier: the pipeline schedule deadlocks");
  return makespan;
}

}  // namespace fleetsim::sgtier
