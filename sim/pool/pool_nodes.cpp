#include "sim/pool/pool_nodes.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace fleetsim::pool {

Topology make_topology(int pool_gpus, int gpus_per_node, int nvlink_domain_gpus, int gpus_per_leaf, int pod_gpus) {
  Topology t;
  t.gpus_per_node = gpus_per_node;
  t.nodes = pool_gpus / gpus_per_node;
  t.domain_nodes = std::max(1, nvlink_domain_gpus / gpus_per_node);
  const int leaf = std::max(1, gpus_per_leaf / gpus_per_node);
  t.leaf_nodes = ((std::max(leaf, t.domain_nodes) + t.domain_nodes - 1) / t.domain_nodes) * t.domain_nodes;
  const int pod = pod_gpus > 0 ? std::max(1, pod_gpus / gpus_per_node) : t.nodes;
  t.pod_nodes = ((std::max(pod, t.leaf_nodes) + t.leaf_nodes - 1) / t.leaf_nodes) * t.leaf_nodes;
  return t;
}

PoolNodes::PoolNodes(const Topology& t) : t_(t) {
  const int n = t.nodes, g = t.gpus_per_node;
  if (n <= 0 || g <= 0 || g > 255) throw std::invalid_argument("PoolNodes: bad topology");
  whole_free_.assign(n, 0);
  up_.assign(n, 0);
  pos_.assign(n, -1);
  bucket_.assign(g + 1, {});
  leaves_ = 1;
  while (leaves_ < n) leaves_ *= 2;
  tree_.assign(2 * leaves_, -1);
  group_size_ = {t.domain_nodes, t.leaf_nodes, t.pod_nodes};
  for (int l = 0; l < 3; ++l) group_free_[l].assign((n + group_size_[l] - 1) / group_size_[l], 0);
  const int leaf_count = static_cast<int>(group_free_[1].size());
  while (leaf_slots_ < leaf_count) leaf_slots_ *= 2;
  leaf_tree_.assign(2 * static_cast<size_t>(leaf_slots_), 0);
  for (int i = 0; i < n; ++i) set_schedulable(i, true);
}

void PoolNodes::bucket_remove(int node) {
  auto& b = bucket_[whole_free_[node]];
  const int p = pos_[node];
  b[p] = b.back();
  pos_[b[p]] = p;
  b.pop_back();
  pos_[node] = -1;
}

void PoolNodes::bucket_add(int node) {
  auto& b = bucket_[whole_free_[node]];
  pos_[node] = static_cast<int>(b.size());
  b.push_back(node);
}

void PoolNodes::tree_set(int node, int value) {
  int i = node + leaves_;
  tree_[i] = value;
  for (i /= 2; i >= 1; i /= 2) tree_[i] = std::max(tree_[2 * i], tree_[2 * i + 1]);
}

void PoolNodes::leaf_add(int node, int delta) {
  if (delta == 0) return;
  int i = node / t_.leaf_nodes + leaf_slots_;
  leaf_tree_[i] += delta;
  for (i /= 2; i >= 1; i /= 2) leaf_tree_[i] = std::max(leaf_tree_[2 * i], leaf_tree_[2 * i + 1]);
}

void PoolNodes::group_add(int node, int delta) {
  for (int l = 0; l < 3; ++l) group_free_[l][node / group_size_[l]] += delta;
  free_nodes_total_ += delta;
}

void PoolNodes::set_count(int node, int value) {
  const int g = t_.gpus_per_node;
  if (value < 0 || value > g) throw std::logic_error("PoolNodes: GPU count out of range");
  if (up_[node]) {
    bucket_remove(node);
    if (whole_free_[node] == g) group_add(node, -1);
    free_whole_ += value - whole_free_[node];
    leaf_add(node, value - whole_free_[node]);
  }
  whole_free_[node] = static_cast<std::uint8_t>(value);
  if (up_[node]) {
    bucket_add(node);
    if (value == g) group_add(node, +1);
    tree_set(node, value);
  }
}

void PoolNodes::take(int node, int gpus) { set_count(node, whole_free_[node] - gpus); }
void PoolNodes::give(int node, int gpus) { set_count(node, whole_free_[node] + gpus); }

void PoolNodes::set_schedulable(int node, bool on) {
  const int g = t_.gpus_per_node;
  if (on == (up_[node] != 0)) return;
  if (on) {
    up_[node] = 1;
    whole_free_[node] = static_cast<std::uint8_t>(g);
    bucket_add(node);
    group_add(node, +1);
    free_whole_ += g;
    leaf_add(node, g);
    tree_set(node, g);
  } else {
    if (whole_free_[node] != g) throw std::logic_error("PoolNodes: node taken out while in use");
    bucket_remove(node);
    group_add(node, -1);
    free_whole_ -= g;
    leaf_add(node, -g);
    up_[node] = 0;
    tree_set(node, -1);
  }
}

int PoolNodes::first_fit(int gpus) const {
  if (tree_[1] < gpus) return -1;
  int i = 1;
  while (i < leaves_) i = tree_[2 * i] >= gpus ? 2 * i : 2 * i + 1;
  return i - leaves_;
}

int PoolNodes::best_fit(int gpus) const {
  for (int k = gpus; k <= t_.gpus_per_node; ++k)
    if (!bucket_[k].empty()) return bucket_[k].back();
  return -1;
}

int PoolNodes::fragmentation_aware(int gpus, const std::vector<double>& p) const {
  const int g = t_.gpus_per_node;
  // F(k): expected free GPUs of a node with k free that the next request cannot use.
  auto frag = [&](int k) {
    double f = 0.0;
    for (int m = 1; m < static_cast<int>(p.size()) && m <= g; ++m)
      if (k < m) f += p[m] * k;
    return f;
  };
  int best = -1;
  double best_delta = 0.0;
  for (int k = gpus; k <= g; ++k) {
    if (bucket_[k].empty()) continue;
    const double delta = frag(k - gpus) - frag(k);
    if (best < 0 || delta < best_delta - 1e-12) {
      best = bucket_[k].back();
      best_delta = delta;
    }
  }
  return best;
}

bool PoolNodes::take_nodes_first_fit(int n, std::vector<int>& out) {
  if (free_nodes_total_ < n) return false;
  for (int i = 0; i < n; ++i) {
    const int node = first_fit(t_.gpus_per_node);
    out.push_back(node);
    take(node, t_.gpus_per_node);
  }
  return true;
}

// Takes `need` entirely free nodes from group `group` of `level` (3 = the whole pool; 2 pods,
// 1 leaves, 0 NVLink domains): the child group with the fewest free nodes that still holds the
// rest (best fit), else the fullest children first.
int PoolNodes::take_in_group(int level, int group, int need, std::vector<int>& out) {
  const int g = t_.gpus_per_node;
  const int child_size = level > 0 ? group_size_[level - 1] : 1;
  const int size = level == 3 ? t_.nodes : group_size_[level];
  const int first = (group * size) / child_size;
  const int last = std::min(static_cast<int>((static_cast<long long>(group + 1) * size + child_size - 1) / child_size),
                            level > 0 ? static_cast<int>(group_free_[level - 1].size()) : t_.nodes);
  auto free_of = [&](int c) { return level > 0 ? group_free_[level - 1][c] : (up_[c] && whole_free_[c] == g ? 1 : 0); };
  int got = 0;
  while (got < need) {
    const int rest = need - got;
    int fit = -1, fit_free = 0, most = -1, most_free = 0;
    for (int c = first; c < last; ++c) {
      const int f = free_of(c);
      if (f >= rest && (fit < 0 || f < fit_free)) fit = c, fit_free = f;
      if (f > most_free) most = c, most_free = f;
    }
    const int c = fit >= 0 ? fit : most;
    if (c < 0) break;
    if (level == 0) {
      take(c, g);
      out.push_back(c);
      ++got;
    } else {
      const int took = take_in_group(level - 1, c, std::min(rest, free_of(c)), out);
      if (took == 0) break;
      got += took;
    }
  }
  return got;
}

bool PoolNodes::take_nodes_topology(int n, std::vector<int>& out) {
  if (free_nodes_total_ < n) return false;
  // Level 0 children are nodes: take_in_group(level 0) iterates a domain's nodes directly.
  const int got = take_in_group(3, 0, n, out);
  if (got != n) throw std::logic_error("PoolNodes: topology placement took fewer nodes than were free");
  return true;
}

bool PoolNodes::take_gpus_same_leaf(int gpus, std::vector<std::pair<int, int>>& out) {
  if (free_whole_ < gpus) return false;
  auto free_on = [&](int node) { return up_[node] ? static_cast<int>(whole_free_[node]) : 0; };
  int rest = gpus;
  auto take_on = [&](int node) {
    const int k = std::min(rest, free_on(node));
    take(node, k);
    out.emplace_back(node, k);
    rest -= k;
  };
  if (leaf_tree_[1] >= gpus) {
    // The first leaf with room (descend the max tree), its fullest hosts first (fewest hosts).
    int i = 1;
    while (i < leaf_slots_) i = leaf_tree_[2 * i] >= gpus ? 2 * i : 2 * i + 1;
    const int first = (i - leaf_slots_) * t_.leaf_nodes, end = std::min(t_.nodes, first + t_.leaf_nodes);
    std::vector<int> hosts;
    for (int node = first; node < end; ++node)
      if (free_on(node) > 0) hosts.push_back(node);
    std::stable_sort(hosts.begin(), hosts.end(), [&](int a, int b) { return free_on(a) > free_on(b); });
    for (size_t k = 0; k < hosts.size() && rest > 0; ++k) take_on(hosts[k]);
    return true;
  }
  // No leaf holds it: the lowest entirely free hosts (the fewest hosts), the rest on the fullest host
  // that holds it, else on the lowest hosts with free GPUs (first-fit on the node tree).
  const int g = t_.gpus_per_node;
  while (rest >= g && first_fit(g) >= 0) take_on(first_fit(g));
  if (rest > 0 && rest < g && best_fit(rest) >= 0) take_on(best_fit(rest));
  while (rest > 0) {
    const int node = first_fit(1);
    if (node < 0) throw std::logic_error("PoolNodes: same-switch placement found fewer GPUs than were free");
    take_on(node);
  }
  return true;
}

void PoolNodes::shared_index(int id, bool add) {
  Shared& s = shared_[id];
  if (s.free <= 0 || s.free >= kEighths) return;
  auto& b = shared_by_free_[s.free];
  if (add) {
    s.pos = static_cast<int>(b.size());
    b.push_back(id);
  } else {
    b[s.pos] = b.back();
    shared_[b[s.pos]].pos = s.pos;
    b.pop_back();
    s.pos = -1;
  }
}

int PoolNodes::best_shared(int eighths) const {
  for (int k = eighths; k < kEighths; ++k)
    if (!shared_by_free_[k].empty()) return shared_by_free_[k].back();
  return -1;
}

int PoolNodes::open_shared(int node) {
  take(node, 1);
  int id;
  if (!shared_unused_.empty()) {
    id = shared_unused_.back();
    shared_unused_.pop_back();
  } else {
    id = static_cast<int>(shared_.size());
    shared_.push_back({});
  }
  shared_[id] = {node, kEighths, -1};
  free_shared_eighths_ += kEighths;
  return id;
}

void PoolNodes::use_shared(int id, int eighths) {
  shared_index(id, false);
  shared_[id].free -= eighths;
  if (shared_[id].free < 0) throw std::logic_error("PoolNodes: shared GPU over-committed");
  free_shared_eighths_ -= eighths;
  shared_index(id, true);
}

void PoolNodes::release_shared(int id, int eighths) {
  shared_index(id, false);
  shared_[id].free += eighths;
  free_shared_eighths_ += eighths;
  if (shared_[id].free >= kEighths) {
    free_shared_eighths_ -= kEighths;
    give(shared_[id].node, 1);
    shared_[id].node = -1;
    shared_unused_.push_back(id);
    return;
  }
  shared_index(id, true);
}

}  // namespace fleetsim::pool
