// Jobs that slow each other on a shared fabric (issue 28): the pool's running multi-node jobs put
// flows on the switch bundles their placement crosses, and where jobs share a bundle each job's
// inter-node communication, hence its iteration, is slowed.
//
// Model (approximations stated; measured against the SimGrid tier in
// tests/unit/pool_interference_test.cpp):
// - Links are aggregated per link class, never per GPU: one uplink bundle per leaf group and one
//   per pod, of capacity (endpoints x port rate / oversubscription), counted in NIC line rates.
//   Down and up directions carry the same load for these patterns (a ring enters a leaf as often as
//   it leaves it; all-to-all is symmetric), so one direction is tracked. NIC cables are a job's own
//   (gangs take whole nodes), NVLink stays inside the node: neither is shared between jobs.
// - Rail-optimized fabrics: one rail's tree is tracked (rails are symmetric under whole-node
//   placement); with ECMP the other rails draw their own hashes, which this does not model.
// - Host links (shape.host_links, placement same-switch): a job holding part of a host sends
//   nics x its GPUs there / G flows, spread over the host's NICs (GPUs use their nearest NIC); two
//   jobs on one host both sending across hosts share that host's link (Crux counts it at risk).
// - Traffic: a ring job sends one flow per NIC (per rail) from each node to the next node of its
//   allocation in node order (NCCL orders ranks by topology); an all-to-all job sends from each node
//   to every other node evenly (many small flows: spread evenly over cables even under ECMP).
// - Routing: ECMP hashes every ring flow onto one cable of each bundle it crosses (seeded draw per
//   flow and start); adaptive spreads over the bundle. Sharing: per cable (ECMP) or per bundle,
//   max-min by water-filling over the flows there, each flow wanting its demand (a ring flow the
//   NIC's line rate, an all-to-all flow its share of the NIC): flows are fair per flow, so a job
//   with more flows on a link gets more of it, as on the SimGrid tier. Each link is filled on its
//   own: a flow held back elsewhere does not return its unused share (so the slowdown can be
//   above network-wide max-min's). A job's communication is as slow as its slowest flow.
// - Time: jobs' communication phases overlap at random (each other job counts with its
//   communication share, the probability it is communicating) or all at once ("aligned").
// - Iteration slowdown: sigma = T(s_all) / T(s_self), T(s) the job's iteration time when its
//   inter-node communication runs s times slower than at line rate (TrafficProfile: from the step
//   model, sim/pool/traffic.hpp, which lets overlapped communication hide until it cannot; or the
//   closed form 1 - c + c s of an exposed share c), s_self its communication slowdown on the fabric
//   alone (its own ECMP collisions and an oversubscribed fabric are part of "alone"), s_all with the
//   other jobs.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/pool/interference_spec.hpp"

namespace fleetsim {
struct ClusterSpec;
}

namespace fleetsim::pool {

// The fabric as the interference model sees it.
struct FabricShape {
  int nodes = 0;
  int leaf_nodes = 1;          // nodes under one leaf group (one rail's leaf on rail-optimized fabrics)
  int pod_nodes = 0;           // nodes per pod with a pod uplink bundle (0: two tiers, no pod links)
  double leaf_capacity = 1.0;  // leaf uplink bundle, in NIC line rates
  double pod_capacity = 1.0;
  int flows_per_node = 1;      // ring flows a node sends to the next (NICs; 1 per rail on rail-optimized)
  double nic_rate = 0.0;       // achievable bytes/s of one NIC (explicit jobs' communication time)
  // A link per host (its NICs' cables to the leaf), for placements that give jobs part of a host
  // (same-switch): two jobs on one host both sending across hosts share it.
  bool host_links = false;
  int gpus_per_node = 8;
};
FabricShape fabric_shape(const ClusterSpec& cluster, int pool_nodes);

// A job's traffic as the sharing model needs it: its pattern, the share of an uncontended
// iteration its traffic is on the fabric (the chance another job finds it communicating; its
// weight under communication priority) and its iteration time against its communication slowdown.
struct TrafficProfile {
  TrafficPattern pattern = TrafficPattern::Ring;
  double comm_share = 0.2;
  // T(s) / T(1) at slowdowns s_grid (ascending from 1; linear between points and past the last);
  // empty: the closed form 1 - c + c s with c = comm_share (all communication exposed).
  std::vector<double> s_grid, t_rel;
  [[nodiscard]] double relative_time(double s) const;
};

struct LinkReport {
  std::string name;         // "leaf-12", "pod-3"
  double capacity = 0;      // NIC line rates
  double mean_load = 0;     // time-averaged offered load / capacity
  double peak_load = 0;     // highest offered load / capacity seen
  double shared_hours = 0;  // hours with more than one job on it
};

// What a replication reports about interference (pool.interference_* outputs).
struct InterferenceOut {
  bool enabled = false;
  double gpu_hours_lost = 0;           // allocated GPU-hours that ran slower because of other jobs: alloc x (1 - 1/sigma)
  std::vector<float> slowdown;         // per finished training job submitted after the warm-up: mean sigma over its run
  long long jobs = 0, shared_jobs = 0; // training jobs started after the warm-up; those that shared a link with another job
  double gpus = 0, shared_gpus = 0;    // their requested GPUs
  // Snapshot shares (Crux SIGCOMM'24 Fig 6 plots these over time): integrals over the measured span
  // of the share of running training jobs, and of their allocated GPUs, that are on a fabric link
  // with another job at that moment; `running_s` is the time with at least one training job running.
  double running_s = 0, running_shared_jobs_s = 0, running_shared_gpus_s = 0;
  // The shares the outputs report (0 when nothing was counted).
  [[nodiscard]] double shared_jobs_share() const { return jobs > 0 ? static_cast<double>(shared_jobs) / jobs : 0.0; }
  [[nodiscard]] double shared_gpus_share() const { return gpus > 0 ? shared_gpus / gpus : 0.0; }
  [[nodiscard]] double running_shared_jobs_share() const { return running_s > 0 ? running_shared_jobs_s / running_s : 0.0; }
  [[nodiscard]] double running_shared_gpus_share() const { return running_s > 0 ? running_shared_gpus_s / running_s : 0.0; }
  std::vector<double> link_load_mean, link_load_max, hot_links;  // sampled with the pool time series
  std::vector<LinkReport> worst_links;
  // pool.interference.jobs: iteration time alone and at the most contended moment of the run (for
  // a pair that runs at once: together), the mean slowdown over the run, the communication
  // slowdown on the fabric alone (oversubscription, own ECMP collisions).
  struct JobTimes { std::string name; double alone_s = 0, together_s = 0, mean_slowdown = 1, comm_self = 1; };
  std::vector<JobTimes> explicit_jobs;
};

class FabricSharing {
 public:
  FabricSharing(const FabricShape& shape, const InterferenceSpec& spec, std::uint64_t seed, int replication,
                double measure_from);

  // A running job's traffic enters the fabric (nodes: its whole nodes). `traffic` must outlive the
  // job's stay (the engine keeps one per job-size class); `gpus` weighs its priority under
  // communication priority.
  // `node_gpus`: the job's GPUs on each of `nodes` when it holds part of a host (empty: whole nodes);
  // a node's flows scale with its share of the host's NICs.
  void add(int id, const std::vector<int>& nodes, const TrafficProfile& traffic, int gpus, double now,
           const std::vector<int>& node_gpus = {});
  void remove(int id, double now);
  // The iteration slowdown a job would see on these nodes now (nothing is changed; ECMP flows are
  // taken as spread: the hash is not known before the job starts).
  [[nodiscard]] double probe(const std::vector<int>& nodes, const TrafficProfile& traffic, int gpus) const;
  // Jobs (other than the one just added or removed) whose slowdown changed in the last add/remove.
  [[nodiscard]] const std::vector<int>& changed() const { return changed_; }
  [[nodiscard]] double sigma(int id) const;        // iteration slowdown from other jobs (1 when alone)
  [[nodiscard]] double comm_self(int id) const;    // communication slowdown on the fabric alone
  [[nodiscard]] double comm_all(int id) const;     // communication slowdown with the other jobs
  [[nodiscard]] bool shared(int id) const;         // has shared a link with another job since added
  // Jobs (and their GPUs) on at least one link with another job now.
  [[nodiscard]] int sharing_jobs_now() const { return sharing_jobs_now_; }
  [[nodiscard]] double sharing_gpus_now() const { return sharing_gpus_now_; }
  [[nodiscard]] bool has(int id) const { return jobs_.count(id) != 0; }

  // Offered load / capacity over links that carry traffic: mean over all links, max, and links above 1.
  struct Sample { double mean = 0, max = 0; int hot = 0; };
  [[nodiscard]] Sample sample() const;
  // The links with the highest mean load over [measure_from, now].
  std::vector<LinkReport> worst_links(double now, int count);

 private:
  struct Use {
    int link = 0;
    double flows = 0;                    // NIC line rates this job offers the link while communicating
    double demand = 1;                   // line rate each of its flows wants (all-to-all: 1 / (n - 1) per peer)
    std::vector<std::uint16_t> cables;   // ECMP: the cable of each ring flow (empty: spread evenly)
  };
  struct JobNet {
    std::vector<Use> uses;
    std::vector<double> use_s;           // communication slowdown on each use's link, with the others
    const TrafficProfile* traffic = nullptr;
    double comm_share = 0, weight = 1, priority = 0;
    double s_self = 1, s_all = 1, sigma = 1;
    bool shared = false;
    int gpus = 0;
    int busy_links = 0;                  // its links that carry another job now
  };
  struct Link {
    double capacity = 1;
    int cables = 1;
    std::vector<std::pair<int, int>> jobs;  // (job id, index of its Use)
    double load = 0;                        // sum of weight x flows
    // Fair sharing reads the other jobs' load from these sums instead of scanning every job on the
    // link (first-fit at 100k GPUs puts hundreds of jobs on one pod bundle): weight x hashed (ECMP
    // ring) flows per cable and in all; the flows not hashed (all-to-all, spread over the bundle)
    // by their demand: demand -> (uses, weight x flows / demand).
    std::vector<double> cable_load;
    double hashed_load = 0;
    std::map<double, std::pair<int, double>> unhashed;
    double t_last = 0, load_int = 0, shared_int = 0, peak = 0;
  };

  void account(Link& l, double now);
  // Adds or takes away a use's hashed flows (times the job's weight) on the link's cable loads.
  static void add_cables(Link& l, const Use& u, double weight, bool adding);
  // The job's flows per link (ECMP: hashed onto cables when `hash`).
  std::vector<Use> build_uses(const std::vector<int>& nodes, TrafficPattern traffic, bool hash,
                              const std::vector<int>& node_gpus = {}) const;
  static int order_flows(const std::vector<std::pair<int, int>>& order, int node);  // a node's flows
  double slowdown_on(int id, const JobNet& j, const Use& u, bool alone) const;
  void set_sigma(JobNet& j) const;
  // Re-evaluates the other jobs on the links of `j` (only their uses of those links) after j came
  // or went: O(jobs on those links), not O(their links).
  void touch_others(int id, const JobNet& j);
  // A job's count of links shared now moves by `delta`; the totals follow when it crosses zero.
  void mark_busy(JobNet& j, int delta);

  FabricShape shape_;
  InterferenceSpec spec_;
  std::uint64_t seed_ = 1;
  double measure_from_ = 0;
  mutable std::uint64_t draws_ = 0;  // ECMP draws made so far (each start hashes anew)
  std::vector<Link> links_;
  int leaf_links_ = 0;
  int host_link0_ = -1;  // index of host 0's link (-1: no host links)
  std::unordered_map<int, JobNet> jobs_;
  std::vector<int> changed_;
  int sharing_jobs_now_ = 0;
  double sharing_gpus_now_ = 0;
  mutable std::vector<std::pair<double, double>> classes_;  // scratch for the water-filling
};

}  // namespace fleetsim::pool
