// The pool's free capacity, kept as counts per node (never one object per GPU): free whole GPUs
// per node, the nodes grouped by that count (best-fit in O(GPUs per node)), a max-segment tree
// over the node order (first-fit in O(log nodes)), and the number of entirely free nodes in each
// NVLink domain, leaf and pod (topology-aware placement of gang jobs). GPUs shared by fractional
// jobs are objects only while shared, indexed by their free eighths.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace fleetsim::pool {

struct Topology {
  int nodes = 0;
  int gpus_per_node = 8;
  int domain_nodes = 1;   // nodes per NVLink domain
  int leaf_nodes = 1;     // nodes per leaf switch (a multiple of domain_nodes)
  int pod_nodes = 1;      // nodes per pod (a multiple of leaf_nodes)
};

// Nested group sizes from the catalog's node and fabric figures: a domain is
// nvlink_domain_gpus / gpus_per_node nodes, a leaf gpus_per_leaf / gpus_per_node nodes (at least
// one domain), a pod pod_gpus / gpus_per_node nodes (0 = the whole pool).
Topology make_topology(int pool_gpus, int gpus_per_node, int nvlink_domain_gpus, int gpus_per_leaf, int pod_gpus);

class PoolNodes {
 public:
  static constexpr int kEighths = 8;  // fractional requests are rounded up to eighths of a GPU

  explicit PoolNodes(const Topology& t);

  [[nodiscard]] const Topology& topology() const { return t_; }
  [[nodiscard]] int whole_free(int n) const { return whole_free_[n]; }
  [[nodiscard]] bool schedulable(int n) const { return up_[n] != 0; }
  [[nodiscard]] long long free_whole_gpus() const { return free_whole_; }
  [[nodiscard]] int free_nodes() const { return free_nodes_total_; }
  [[nodiscard]] long long free_shared_eighths() const { return free_shared_eighths_; }

  // Whole GPUs on one node.
  void take(int node, int gpus);
  void give(int node, int gpus);
  // A node leaves or rejoins the schedulable set (failure, repair, spare); it must be empty.
  void set_schedulable(int node, bool on);

  // Single-node candidates for `gpus` whole GPUs; -1 when none.
  [[nodiscard]] int first_fit(int gpus) const;
  [[nodiscard]] int best_fit(int gpus) const;
  // FGD over node classes: every node with the same free count is equivalent, so the choice is
  // the count k minimizing the growth of expected fragmentation sum_m p_m [k < g_m] k (Weng et
  // al., ATC'23, eq. 1-3, with whole-GPU requests); `p[g]` is the share of requests of g GPUs.
  [[nodiscard]] int fragmentation_aware(int gpus, const std::vector<double>& p) const;

  // Gang jobs of whole nodes: `n` entirely free nodes, lowest index first, or packed into as few
  // pods, leaves and NVLink domains as possible (best-fit group at each level). False (and
  // nothing taken) when fewer than n nodes are free.
  bool take_nodes_first_fit(int n, std::vector<int>& out);
  bool take_nodes_topology(int n, std::vector<int>& out);
  // GPUs over hosts, not whole nodes (placement same-switch): the first leaf with `gpus` free GPUs,
  // its hosts with the most free GPUs first (the fewest hosts), else the lowest entirely free hosts
  // anywhere and the rest on the fullest host that holds it (else the lowest with free GPUs). Appends (node, GPUs taken); false (nothing taken) when fewer GPUs are free.
  // O(leaf nodes + log leaves), plus O(log nodes) per host taken when no leaf holds the job.
  bool take_gpus_same_leaf(int gpus, std::vector<std::pair<int, int>>& out);

  // Shared GPUs (fractional jobs). A shared GPU is opened on a node (one whole GPU taken), filled
  // in eighths, and closed when its last user leaves.
  [[nodiscard]] int best_shared(int eighths) const;   // shared GPU id with the least room >= eighths; -1
  int open_shared(int node);                          // returns its id
  void use_shared(int id, int eighths);
  void release_shared(int id, int eighths);           // closes it (gives the GPU back) when empty
  [[nodiscard]] int shared_node(int id) const { return shared_[id].node; }

 private:
  void set_count(int node, int value);     // whole_free_ change with index upkeep
  void bucket_remove(int node);
  void bucket_add(int node);
  void tree_set(int node, int value);
  void group_add(int node, int delta);     // entirely-free node counts per domain/leaf/pod
  int take_in_group(int level, int group, int need, std::vector<int>& out);

  Topology t_;
  std::vector<std::uint8_t> whole_free_, up_;
  std::vector<std::vector<int>> bucket_;   // schedulable nodes by free whole GPUs
  std::vector<int> pos_;                   // position in its bucket, -1 when not schedulable
  std::vector<int> tree_;                  // max of whole_free over schedulable nodes (-1 otherwise)
  int leaves_ = 1;
  std::array<std::vector<int>, 3> group_free_;  // [domain, leaf, pod] entirely free nodes
  // Free whole GPUs per leaf (schedulable nodes) in a max segment tree over leaves (same-switch).
  void leaf_add(int node, int delta);
  std::vector<int> leaf_tree_;
  int leaf_slots_ = 1;
  std::array<int, 3> group_size_{};
  long long free_whole_ = 0, free_shared_eighths_ = 0;
  int free_nodes_total_ = 0;

  struct Shared { int node = -1; int free = 0; int pos = -1; };
  std::vector<Shared> shared_;
  std::vector<int> shared_unused_;
  std::array<std::vector<int>, kEighths> shared_by_free_;  // [1..7] open shared GPUs by free eighths
  void shared_index(int id, bool add);
};

}  // namespace fleetsim::pool
