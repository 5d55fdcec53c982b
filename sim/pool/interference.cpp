#include "sim/pool/interference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "sim/run/rng.hpp"
#include "sim/scenario.hpp"

namespace fleetsim::pool {

FabricShape fabric_shape(const ClusterSpec& cluster, int pool_nodes) {
  // The same arithmetic as the SimGrid tier's fabric (sim/simgrid/fabric.cpp), per link class.
  const NodeSpec& node = cluster.node;
  const FabricSpec& fab = cluster.fabric;
  FabricShape f;
  f.nodes = pool_nodes;
  const int G = std::max(1, node.gpus_per_node);
  f.gpus_per_node = G;
  const int nics = std::clamp(node.nics_per_node, 1, G);
  const bool rail = fab.topology == FabricTopology::RailOptimized;
  const int endpoints = std::max(1, fab.gpus_per_leaf * nics / G);
  const double link_rate = fab.link_bandwidth.si() > 0 ? fab.link_bandwidth.si() : node.nic_bandwidth.si();
  const double eff = fab.efficiency > 0 ? fab.efficiency : 1.0;
  const double nic = node.nic_bandwidth.si() > 0 ? std::min(node.nic_bandwidth.si(), link_rate) : link_rate;
  f.nic_rate = nic * eff;
  const double over = std::max(1.0, fab.oversubscription);
  // A leaf group: on a rail-optimized fabric one rail's leaf serves `endpoints` nodes (one NIC
  // each); otherwise one leaf serves gpus_per_leaf / G nodes with all their NICs.
  f.leaf_nodes = rail ? endpoints : std::max(1, fab.gpus_per_leaf / G);
  f.flows_per_node = rail ? 1 : nics;
  f.leaf_capacity = endpoints / over;
  if (fab.tiers < 2) f.leaf_nodes = std::max(1, pool_nodes);  // one switch: no uplinks
  const int pod_nodes = fab.pod_gpus > 0 ? std::max(1, fab.pod_gpus / G) : 0;
  if (fab.tiers >= 3 && pod_nodes > 0 && pod_nodes < pool_nodes) {
    f.pod_nodes = std::max(pod_nodes, f.leaf_nodes);
    f.pod_capacity = (rail ? f.pod_nodes : static_cast<double>(f.pod_nodes) * nics) / over /
                     std::max(1.0, fab.pod_oversubscription);
  }
  return f;
}

FabricSharing::FabricSharing(const FabricShape& shape, const InterferenceSpec& spec, std::uint64_t seed,
                             int replication, double measure_from)
    : shape_(shape), spec_(spec), measure_from_(measure_from) {
  std::uint64_t x = seed ^ 0x5EED1A7E0028ULL;
  seed_ = run::splitmix64(x) ^ (static_cast<std::uint64_t>(replication) * 0xD1B54A32D192ED03ULL);
  leaf_links_ = (shape.nodes + shape.leaf_nodes - 1) / shape.leaf_nodes;
  const int pods = shape.pod_nodes > 0 ? (shape.nodes + shape.pod_nodes - 1) / shape.pod_nodes : 0;
  links_.resize(static_cast<size_t>(leaf_links_ + pods));
  auto cables = [](double cap) { return std::clamp(static_cast<int>(std::lround(cap)), 1, 65535); };
  for (int i = 0; i < leaf_links_; ++i) {
    links_[i].capacity = shape.leaf_capacity;
    links_[i].cables = cables(shape.leaf_capacity);
  }
  for (int p = 0; p < pods; ++p) {
    links_[leaf_links_ + p].capacity = shape.pod_capacity;
    links_[leaf_links_ + p].cables = cables(shape.pod_capacity);
  }
  if (shape.host_links) {
    host_link0_ = static_cast<int>(links_.size());
    links_.resize(links_.size() + static_cast<size_t>(shape.nodes));
    for (int n = 0; n < shape.nodes; ++n) {
      links_[host_link0_ + n].capacity = shape.flows_per_node;
      links_[host_link0_ + n].cables = std::max(1, shape.flows_per_node);
    }
  }
}

void FabricSharing::add_cables(Link& l, const Use& u, double weight, bool adding) {
  if (u.cables.empty()) {
    auto& [uses, sum] = l.unhashed[u.demand];
    uses += adding ? 1 : -1;
    sum += (adding ? weight : -weight) * u.flows / u.demand;
    if (uses <= 0) l.unhashed.erase(u.demand);  // exact: no drift left behind
    return;
  }
  if (l.cable_load.empty()) l.cable_load.assign(static_cast<size_t>(l.cables), 0.0);
  for (std::uint16_t c : u.cables) l.cable_load[c] = std::max(0.0, l.cable_load[c] + (adding ? weight : -weight));
  l.hashed_load = std::max(0.0, l.hashed_load + (adding ? weight : -weight) * u.flows);
}

void FabricSharing::account(Link& l, double now) {
  const double from = std::max(l.t_last, measure_from_);
  if (now > from) {
    const double dt = now - from;
    l.load_int += l.load / l.capacity * dt;
    if (l.jobs.size() >= 2) l.shared_int += dt;
  }
  l.t_last = std::max(l.t_last, now);
}

std::vector<FabricSharing::Use> FabricSharing::build_uses(const std::vector<int>& nodes_in, TrafficPattern traffic,
                                                          bool hash, const std::vector<int>& node_gpus) const {
  // Nodes in order, each with the flows it sends (all its NICs, or its share of them).
  std::vector<std::pair<int, int>> order;
  for (size_t k = 0; k < nodes_in.size(); ++k) {
    int flows = shape_.flows_per_node;
    if (!node_gpus.empty() && shape_.gpus_per_node > 0)
      flows = std::max(1, (shape_.flows_per_node * node_gpus[k] + shape_.gpus_per_node - 1) / shape_.gpus_per_node);
    order.emplace_back(nodes_in[k], flows);
  }
  std::sort(order.begin(), order.end());
  std::vector<int> nodes;
  for (const auto& [node, f] : order) nodes.push_back(node);
  const int n = static_cast<int>(nodes.size());
  std::map<int, Use> uses;  // by link, in link order (deterministic)
  const bool ecmp = hash && spec_.routing == FabricRouting::Ecmp;
  auto add_flows = [&](int link, double flows, bool hashed, double demand) {
    Use& u = uses[link];
    u.link = link;
    u.flows += flows;
    u.demand = demand;
    if (hashed && ecmp) {
      const int cables = links_[link].cables;
      for (int k = 0; k < static_cast<int>(flows); ++k) {
        std::uint64_t x = seed_ ^ (++draws_ * 0x9E3779B97F4A7C15ULL);
        u.cables.push_back(static_cast<std::uint16_t>(run::splitmix64(x) % static_cast<std::uint64_t>(cables)));
      }
    }
  };
  // A host the job holds only part of: its flows there use the host's link (spread over its NICs).
  if (n >= 2 && host_link0_ >= 0 && !node_gpus.empty())
    for (size_t k = 0; k < node_gpus.size(); ++k)
      if (node_gpus[k] < shape_.gpus_per_node) add_flows(host_link0_ + nodes_in[k], order_flows(order, nodes_in[k]), false, 1.0);
  if (n >= 2 && traffic == TrafficPattern::Ring) {
    for (int i = 0; i < n; ++i) {
      const int a = nodes[i], b = nodes[(i + 1) % n];
      const int flows = order[i].second;
      if (a / shape_.leaf_nodes != b / shape_.leaf_nodes) add_flows(a / shape_.leaf_nodes, flows, true, 1.0);
      if (shape_.pod_nodes > 0 && a / shape_.pod_nodes != b / shape_.pod_nodes)
        add_flows(leaf_links_ + a / shape_.pod_nodes, flows, true, 1.0);
    }
  } else if (n >= 2) {
    // All-to-all: a group holding m of the job's n nodes sends m (n - m) / (n - 1) nodes' worth out.
    std::map<int, int> per_leaf, per_pod;
    for (int a : nodes) {
      ++per_leaf[a / shape_.leaf_nodes];
      if (shape_.pod_nodes > 0) ++per_pod[a / shape_.pod_nodes];
    }
    const double scale = static_cast<double>(shape_.flows_per_node) / (n - 1);
    for (const auto& [leaf, m] : per_leaf)
      if (m < n) add_flows(leaf, m * static_cast<double>(n - m) * scale, false, 1.0 / (n - 1));
    for (const auto& [pod, m] : per_pod)
      if (m < n) add_flows(leaf_links_ + pod, m * static_cast<double>(n - m) * scale, false, 1.0 / (n - 1));
  }
  std::vector<Use> out;
  for (auto& [link, u] : uses) out.push_back(std::move(u));
  return out;
}

int FabricSharing::order_flows(const std::vector<std::pair<int, int>>& order, int node) {
  const auto it = std::lower_bound(order.begin(), order.end(), std::make_pair(node, 0));
  return it == order.end() ? 1 : it->second;
}

double TrafficProfile::relative_time(double s) const {
  if (s_grid.size() < 2) return 1.0 - comm_share + comm_share * s;
  // Piecewise linear in s through the step model's points; past the last, the last segment's slope
  // (there all inter-node communication is exposed, so T grows linearly in s).
  size_t k = 1;
  while (k + 1 < s_grid.size() && s > s_grid[k]) ++k;
  const double f = (s - s_grid[k - 1]) / (s_grid[k] - s_grid[k - 1]);
  return std::max(t_rel.front(), t_rel[k - 1] + f * (t_rel[k] - t_rel[k - 1]));
}

double FabricSharing::probe(const std::vector<int>& nodes, const TrafficProfile& traffic, int gpus) const {
  JobNet j;
  j.traffic = &traffic;
  j.comm_share = std::clamp(traffic.comm_share, 0.0, 1.0);
  j.priority = static_cast<double>(gpus) * j.comm_share;
  j.uses = build_uses(nodes, traffic.pattern, false);
  j.s_self = 1;
  for (const Use& u : j.uses) {
    j.s_self = std::max(j.s_self, slowdown_on(-1, j, u, true));
    j.use_s.push_back(slowdown_on(-1, j, u, false));
  }
  set_sigma(j);
  return j.sigma;
}

void FabricSharing::add(int id, const std::vector<int>& nodes, const TrafficProfile& traffic, int gpus, double now,
                        const std::vector<int>& node_gpus) {
  changed_.clear();
  JobNet j;
  j.traffic = &traffic;
  j.comm_share = std::clamp(traffic.comm_share, 0.0, 1.0);
  j.weight = spec_.overlap == CommOverlap::Aligned ? 1.0 : j.comm_share;
  j.priority = static_cast<double>(gpus) * j.comm_share;
  j.gpus = gpus;
  j.uses = build_uses(nodes, traffic.pattern, true, node_gpus);
  int busy = 0;
  for (int k = 0; k < static_cast<int>(j.uses.size()); ++k) {
    Link& l = links_[j.uses[k].link];
    account(l, now);
    l.jobs.emplace_back(id, k);
    l.load += j.weight * j.uses[k].flows;
    add_cables(l, j.uses[k], j.weight, true);
    l.peak = std::max(l.peak, l.load / l.capacity);
    if (l.jobs.size() >= 2) {
      j.shared = true;
      ++busy;
      for (const auto& [other, ui] : l.jobs)
        if (other != id) jobs_[other].shared = true;
      if (l.jobs.size() == 2) mark_busy(jobs_.at(l.jobs.front().first), +1);  // it had the link alone
    }
  }
  JobNet& stored = jobs_[id] = std::move(j);
  mark_busy(stored, busy);
  stored.s_self = 1;
  stored.use_s.assign(stored.uses.size(), 1.0);
  for (size_t k = 0; k < stored.uses.size(); ++k) {
    stored.s_self = std::max(stored.s_self, slowdown_on(id, stored, stored.uses[k], true));
    stored.use_s[k] = slowdown_on(id, stored, stored.uses[k], false);
  }
  set_sigma(stored);
  touch_others(id, stored);
}

void FabricSharing::remove(int id, double now) {
  changed_.clear();
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return;
  mark_busy(it->second, -it->second.busy_links);
  JobNet j = std::move(it->second);
  jobs_.erase(it);
  for (const Use& u : j.uses) {
    Link& l = links_[u.link];
    account(l, now);
    l.jobs.erase(std::find_if(l.jobs.begin(), l.jobs.end(), [&](const auto& p) { return p.first == id; }));
    if (l.jobs.size() == 1) mark_busy(jobs_.at(l.jobs.front().first), -1);  // left with the link alone
    l.load = l.jobs.empty() ? 0.0 : std::max(0.0, l.load - j.weight * u.flows);
    add_cables(l, u, j.weight, false);
    if (l.jobs.empty()) {  // no drift left behind
      std::fill(l.cable_load.begin(), l.cable_load.end(), 0.0);
      l.hashed_load = 0;
    }
  }
  touch_others(id, j);
}

namespace {

// Max-min share of `capacity` among classes of flows (count, demand each), by water-filling: the
// level x with sum count min(demand, x) = capacity (Bertsekas & Gallager, Data Networks, 6.5.2).
// Returns the level (infinity when every demand fits).
double water_level(std::vector<std::pair<double, double>>& classes, double capacity) {
  double offered = 0;
  for (const auto& [count, demand] : classes) offered += count * demand;
  if (offered <= capacity * (1 + 1e-12)) return std::numeric_limits<double>::infinity();
  std::sort(classes.begin(), classes.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  double left = capacity, count_left = 0;
  for (const auto& c : classes) count_left += c.first;
  for (const auto& [count, demand] : classes) {
    if (count_left <= 0) break;
    const double level = left / count_left;
    if (demand >= level) return level;
    left -= count * demand;
    count_left -= count;
  }
  return count_left > 0 ? left / count_left : std::numeric_limits<double>::infinity();
}

}  // namespace

double FabricSharing::slowdown_on(int id, const JobNet& j, const Use& u, bool alone) const {
  const Link& l = links_[u.link];
  const bool priority = spec_.sharing == LinkSharing::CommPriority;
  // Under communication priority, higher-priority traffic takes capacity first and lower-priority
  // traffic yields; a floor of 10% keeps the lowest class moving (Crux: lowest-priority jobs lose
  // 55.5% of throughput, not all of it; data/validation/fabric_interference.csv I13).
  auto split = [&](int other) {  // +1 shares with us, 0 yields to us, -1 goes first
    if (!priority) return 1;
    const double p = jobs_.at(other).priority;
    return p > j.priority ? -1 : p < j.priority ? 0 : 1;
  };
  // The flows on one cable (or the whole bundle): ours count fully (we are communicating), the
  // others' with their weight (the chance they are communicating too).
  auto slowdown = [&](double own_count, double capacity, const auto& count_of) {
    std::vector<std::pair<double, double>>& classes = classes_;
    classes.assign(1, {own_count, u.demand});
    double higher = 0;
    if (!alone)
      for (const auto& [other, ui] : l.jobs) {
        if (other == id) continue;
        const JobNet& o = jobs_.at(other);
        const Use& ou = o.uses[ui];
        const double cnt = o.weight * count_of(ou);
        const int s = split(other);
        if (s > 0) classes.emplace_back(cnt, ou.demand);
        else if (s < 0) higher += cnt * ou.demand;
      }
    const double avail = std::max(0.1 * capacity, capacity - higher);
    const double level = water_level(classes, avail);
    return std::max(1.0, u.demand / std::min(u.demand, level));
  };
  // Fair sharing from the link's sums, O(demand classes) instead of O(jobs on the link); the same
  // classes as the scan below (equal demands merged: water-filling does not tell them apart).
  const bool sums = !priority && !alone;
  const bool on_link = id >= 0;  // probe() asks for a job not (yet) on the link
  auto add_unhashed = [&](double per_cable, const Use* own_use) {
    for (const auto& [demand, us] : l.unhashed) {
      double cnt = us.second;
      if (own_use && on_link && demand == own_use->demand) cnt -= j.weight * own_use->flows / own_use->demand;
      if (cnt > 1e-9) classes_.emplace_back(cnt / per_cable, demand);
    }
  };
  if (u.cables.empty()) {
    if (sums) {
      classes_.assign(1, {u.flows / u.demand, u.demand});
      if (l.hashed_load > 1e-9) classes_.emplace_back(l.hashed_load, 1.0);
      add_unhashed(1.0, &u);
      const double level = water_level(classes_, l.capacity);
      return std::max(1.0, u.demand / std::min(u.demand, level));
    }
    return slowdown(u.flows / u.demand, l.capacity, [](const Use& o) { return o.flows / o.demand; });
  }
  const double cable_cap = l.capacity / l.cables;
  double worst = 1.0;
  std::vector<std::uint16_t> mine = u.cables;
  std::sort(mine.begin(), mine.end());
  for (size_t a = 0; a < mine.size();) {
    size_t b = a;
    while (b < mine.size() && mine[b] == mine[a]) ++b;
    const std::uint16_t c = mine[a];
    const int cables = l.cables;
    const double own = static_cast<double>(b - a);
    if (sums && !l.cable_load.empty()) {
      // The other jobs' hashed flows on this cable (the cable's load less ours) form one class of
      // demand 1; the flows spread over the bundle put 1 / cables of theirs on it.
      const double others = std::max(0.0, l.cable_load[c] - (on_link ? j.weight * own : 0.0));
      classes_.assign(1, {own, u.demand});
      if (others > 1e-9) classes_.emplace_back(others, 1.0);
      add_unhashed(static_cast<double>(cables), nullptr);
      const double level = water_level(classes_, cable_cap);
      worst = std::max(worst, std::max(1.0, u.demand / std::min(u.demand, level)));
      a = b;
      continue;
    }
    worst = std::max(worst, slowdown(own, cable_cap, [c, cables](const Use& o) {
                       return o.cables.empty() ? o.flows / o.demand / cables
                                               : static_cast<double>(std::count(o.cables.begin(), o.cables.end(), c));
                     }));
    a = b;
  }
  return worst;
}

// Iteration time with the communication slowed by the others, over the iteration alone (both on
// this placement): T(s_all) / T(s_self).
void FabricSharing::set_sigma(JobNet& j) const {
  double all = 1;
  for (double x : j.use_s) all = std::max(all, x);
  j.s_all = all;
  j.sigma = all <= j.s_self ? 1.0 : j.traffic->relative_time(all) / j.traffic->relative_time(j.s_self);
}

void FabricSharing::mark_busy(JobNet& j, int delta) {
  if (delta == 0) return;
  const bool before = j.busy_links > 0;
  j.busy_links += delta;
  const bool after = j.busy_links > 0;
  if (before == after) return;
  sharing_jobs_now_ += after ? 1 : -1;
  sharing_gpus_now_ += after ? j.gpus : -j.gpus;
  if (sharing_jobs_now_ == 0) sharing_gpus_now_ = 0;  // no drift left behind
}

void FabricSharing::touch_others(int id, const JobNet& j) {
  std::vector<int> dirty;
  for (const Use& u : j.uses)
    for (const auto& [other, ui] : links_[u.link].jobs) {
      if (other == id) continue;
      JobNet& o = jobs_.at(other);
      o.use_s[ui] = slowdown_on(other, o, o.uses[ui], false);
      dirty.push_back(other);
    }
  std::sort(dirty.begin(), dirty.end());
  dirty.erase(std::unique(dirty.begin(), dirty.end()), dirty.end());
  for (int other : dirty) {
    JobNet& o = jobs_.at(other);
    const double before = o.sigma;
    set_sigma(o);
    if (std::abs(o.sigma - before) > 1e-12) changed_.push_back(other);
  }
}

double FabricSharing::sigma(int id) const {
  auto it = jobs_.find(id);
  return it == jobs_.end() ? 1.0 : it->second.sigma;
}
double FabricSharing::comm_self(int id) const {
  auto it = jobs_.find(id);
  return it == jobs_.end() ? 1.0 : it->second.s_self;
}
double FabricSharing::comm_all(int id) const {
  auto it = jobs_.find(id);
  return it == jobs_.end() ? 1.0 : it->second.s_all;
}
bool FabricSharing::shared(int id) const {
  auto it = jobs_.find(id);
  return it != jobs_.end() && it->second.shared;
}

FabricSharing::Sample FabricSharing::sample() const {
  Sample s;
  // Switch bundles only: host links are not fabric links the load figures speak of.
  const size_t bundles = host_link0_ >= 0 ? static_cast<size_t>(host_link0_) : links_.size();
  if (bundles == 0) return s;
  double sum = 0;
  for (size_t i = 0; i < bundles; ++i) {
    const Link& l = links_[i];
    const double u = l.load / l.capacity;
    sum += u;
    s.max = std::max(s.max, u);
    if (u > 1.0 + 1e-9) ++s.hot;
  }
  s.mean = sum / static_cast<double>(bundles);
  return s;
}

std::vector<LinkReport> FabricSharing::worst_links(double now, int count) {
  std::vector<LinkReport> out;
  const double span = now - measure_from_;
  if (span <= 0) return out;
  for (size_t i = 0; i < links_.size(); ++i) {
    Link& l = links_[i];
    account(l, now);
    if (l.load_int <= 0) continue;
    const int k = static_cast<int>(i);
    const bool leaf = k < leaf_links_, host = host_link0_ >= 0 && k >= host_link0_;
    out.push_back({host ? "host-" + std::to_string(k - host_link0_)
                        : (leaf ? "leaf-" : "pod-") + std::to_string(leaf ? k : k - leaf_links_),
                   l.capacity,
                   l.load_int / span, l.peak, l.shared_int / 3600.0});
  }
  std::stable_sort(out.begin(), out.end(), [](const LinkReport& a, const LinkReport& b) { return a.mean_load > b.mean_load; });
  if (static_cast<int>(out.size()) > count) out.resize(count);
  return out;
}

}  // namespace fleetsim::pool
