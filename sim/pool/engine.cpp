#include "sim/pool/engine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <queue>
#include <set>
#include <stdexcept>

#include "sim/pool/stragglers.hpp"
#include "sim/run/rng.hpp"

namespace fleetsim::pool {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::uint64_t kFailureStream = 1003, kRepairStream = 1004;

enum class State : std::uint8_t { Pending, Queued, Running, Done };
enum class Ev : std::uint8_t { Finish, NodeFail, NodeBack, InferenceTick, BackfillTick, ReclaimDue };

struct Job {
  JobSpec spec;
  double remaining = 0.0;     // s of run time at the requested size
  double run_start = 0.0, overhead = 0.0, end = kInf, first_start = -1.0;
  int alloc = 0;              // whole GPUs held (0 for a shared-GPU job)
  int node = -1;              // single-node jobs
  int shared = -1;            // shared GPU id
  std::vector<int> nodes;     // multi-node jobs
  std::vector<int> node_gpus; // GPUs held on each of `nodes` (placement same-switch); empty: all of each
  int service = -1;           // inference replicas: the service
  std::uint32_t epoch = 0;
  State state = State::Pending;
  bool interrupted = false, reclaiming = false;
  // Fabric interference (sim/pool/interference.hpp): the iteration slowdown now, and the job's
  // progress since its run started as (wall s since the work began, work s done, sigma after).
  double sigma = 1.0, sigma_max = 1.0;
  std::vector<std::array<double, 3>> marks;
  double net_wall = 0, net_ideal = 0;  // running time and what it would have been alone, over all runs
  int explicit_job = -1;               // index in pool.interference.jobs
  bool net_counted = false, net_shared = false;
};

struct Event {
  double t;
  std::uint64_t seq;
  Ev type;
  int a;
  std::uint32_t b;
  bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
};

struct Service {
  const InferenceGroup* group = nullptr;
  std::vector<int> replicas;  // running or queued replica job ids
  int running = 0, needed = 0;
};

class Sim {
 public:
  Sim(const PoolInputs& in, int rep)
      : in_(in), s_(in.spec), nodes_(in.topology), g_(in.topology.gpus_per_node), rep_(rep),
        fail_rng_(in.seed, static_cast<std::uint64_t>(rep), kFailureStream),
        repair_rng_(in.seed, static_cast<std::uint64_t>(rep), kRepairStream) {}

  PoolReplication run();

 private:
  // --- events and time ---
  void push(double t, Ev type, int a = 0, std::uint32_t b = 0) { heap_.push({t, seq_++, type, a, b}); }
  void advance(double t);
  // --- jobs ---
  int queue_key_priority(const Job& j) const {
    return s_.policy == QueuePolicy::Priority ? -static_cast<int>(j.spec.priority) : 0;
  }
  void enqueue(int id);
  bool try_start(int id);
  bool place(Job& j, int gpus);
  void release(Job& j);
  void start(int id, int gpus);
  void finish(int id);
  void interrupt(int id, Loss cause, bool graceful);
  void schedule();
  void backfill();
  // --- elastic jobs ---
  int elastic_min(const Job& j) const;
  int shrink_target(const Job& j) const;
  void resize(int id, int gpus);
  bool place_same_switch(Job& j, int gpus);
  void count_compactness(const Job& j);
  [[nodiscard]] int held_on(const Job& v, int node) const;
  void grow_elastic();
  bool preempt_for(int gpus, int priority_below, bool inference);
  // --- inference ---
  void inference_tick();
  void set_needed(Service& sv, int needed);
  void add_replica(int service);
  void remove_replica(int service);
  void update_short(Service& sv, int delta_running);
  // --- failures ---
  void node_fail(int node);
  void node_back(int node);
  void schedule_failure(int node);
  // --- accounting ---
  int choose_node(int gpus) const;
  void note_head();
  // --- fabric interference (pool.interference) ---
  double work_at(const Job& j, double wall, double speed) const;
  void net_attach(int id);
  void net_detach(int id);
  void net_rebase(const std::vector<int>& ids);
  void net_count_shared(Job& j);
  const TrafficProfile& net_profile(int id) const;
  void network_aware(Job& j);

  const PoolInputs& in_;
  const PoolSpec& s_;
  PoolNodes nodes_;
  const int g_;
  const int rep_;
  run::Rng fail_rng_, repair_rng_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> heap_;
  std::uint64_t seq_ = 0;
  double now_ = 0.0, horizon_ = 0.0, warmup_ = 0.0;
  std::vector<Job> jobs_;
  size_t next_arrival_ = 0, n_stream_ = 0;
  std::set<std::tuple<int, double, int>> queue_;  // (priority key, submit, id)
  std::set<int> inference_queue_;                 // replica ids, oldest first
  std::set<std::pair<double, int>> running_;      // (expected end, id) of training/dev jobs
  std::set<int> shrunk_;                          // running elastic jobs below their requested size
  long long grow_free_seen_ = -1;                 // free GPUs at the last growth pass that grew nothing
  std::vector<std::vector<int>> node_jobs_;
  std::vector<Service> services_;
  std::vector<double> p_single_;
  std::vector<std::uint8_t> node_state_;          // 0 schedulable, 1 down, 2 spare
  int spares_idle_ = 0, down_nodes_ = 0;
  double train_gpus_ = 0, dev_eighths_ = 0, infer_used_ = 0, infer_held_ = 0;
  int train_jobs_ = 0;  // training jobs running now
  // Straggler accounting (stragglers.hpp): GPUs of counted jobs running, and of those the share
  // 1 - 1/S each wastes.
  double straggler_gpus_ = 0, straggler_waste_gpus_ = 0;
  void track_straggler(const Job& j, int gpus) {
    if (!j.spec.straggler_counted) return;
    straggler_gpus_ += gpus;
    straggler_waste_gpus_ += gpus * static_cast<double>(j.spec.straggler_waste);
  }
  int short_services_ = 0;
  double frag_gpus_ = 0;       // free GPUs unusable by the blocked head (0 when not blocked)
  double queued_gpus_ = 0;
  double reclaiming_gpus_ = 0;
  int victim_cursor_ = 0;
  // A search for preemption victims that found none is not repeated before this time (it scans
  // nodes; every event would otherwise repeat it while nothing changed).
  double next_inference_preempt_ = 0.0, next_training_preempt_ = 0.0;
  double next_sample_ = 0;
  PoolReplication out_;
  double slo_ok_ = 0, slo_total_ = 0;
  // Requests beyond what the running replicas hold at the SLO (issue 39): the deficit
  // sum over services of max(0, needed - running) x requests per replica (1 per replica for groups
  // given by hand), the demand sum of needed x the same, and the GPUs the services' peaks reserve.
  double deficit_ = 0, demand_ = 0, deficit_time_ = 0, demand_time_ = 0, peak_infer_gpus_ = 0;
  std::optional<FabricSharing> fabric_;
  // Traffic profiles that live as long as the replication: explicit jobs' (by index), and the two
  // of the comm_share override (ring, all-to-all); stream jobs from the step model use in_.traffic.
  std::vector<TrafficProfile> explicit_traffic_, override_traffic_;
  double interf_rate_ = 0;     // GPUs' worth of running time lost to interference now: sum alloc (1 - 1/sigma)
};

void Sim::advance(double t) {
  t = std::min(t, horizon_);
  if (t <= warmup_) {
    now_ = std::max(now_, t);
    return;
  }
  const double dt = t - std::max(now_, warmup_);
  if (dt <= 0) return;
  const double h = dt / 3600.0;
  const double free = static_cast<double>(nodes_.free_whole_gpus()) + nodes_.free_shared_eighths() / 8.0;
  out_.allocated_gpu_hours[0] += train_gpus_ * h;
  out_.allocated_gpu_hours[1] += dev_eighths_ / 8.0 * h;
  out_.allocated_gpu_hours[2] += infer_used_ * h;
  out_.straggler_counted_gpu_hours += straggler_gpus_ * h;  // stragglers.hpp
  out_.straggler_wasted_gpu_hours += straggler_waste_gpus_ * h;
  auto& L = out_.lost_gpu_hours;
  L[static_cast<int>(Loss::Fragmentation)] += frag_gpus_ * h;
  L[static_cast<int>(Loss::Idle)] += (free - frag_gpus_) * h;
  L[static_cast<int>(Loss::InferenceIdle)] += (infer_held_ - infer_used_) * h;
  L[static_cast<int>(Loss::Failures)] += static_cast<double>(down_nodes_) * g_ * h;
  L[static_cast<int>(Loss::Spares)] += static_cast<double>(spares_idle_) * g_ * h;
  out_.interference.gpu_hours_lost += interf_rate_ * h;
  if (fabric_ && train_jobs_ > 0) {
    auto& in = out_.interference;
    in.running_s += dt;
    in.running_shared_jobs_s += fabric_->sharing_jobs_now() / static_cast<double>(train_jobs_) * dt;
    if (train_gpus_ > 0) in.running_shared_gpus_s += std::min(1.0, fabric_->sharing_gpus_now() / train_gpus_) * dt;
  }
  slo_ok_ += static_cast<double>(services_.size() - short_services_) * dt;
  slo_total_ += static_cast<double>(services_.size()) * dt;
  deficit_time_ += deficit_ * dt;
  demand_time_ += demand_ * dt;
  // Tidal co-location lends what the services' peak reservation does not hold now.
  if (s_.colocation == Colocation::Tidal) out_.inference_gpu_hours_lent += std::max(0.0, peak_infer_gpus_ - infer_held_) * h;
  now_ = t;
}

int Sim::choose_node(int gpus) const {
  switch (s_.placement) {
    // Topology: small jobs packed from the low end of the node order, so that high-numbered
    // leaves and pods stay whole for gangs (the leftmost node that holds the job).
    case PlacementPolicy::FirstFit:
    case PlacementPolicy::Topology:
    case PlacementPolicy::NetworkAware: return nodes_.first_fit(gpus);
    case PlacementPolicy::BestFit: return nodes_.best_fit(gpus);
    case PlacementPolicy::FragmentationAware: return nodes_.fragmentation_aware(gpus, p_single_);
    case PlacementPolicy::SameSwitch: return nodes_.best_fit(gpus);  // the same host: the fullest that holds it
  }
  return -1;
}

bool Sim::place(Job& j, int gpus) {
  if (j.spec.eighths > 0) {
    int id = nodes_.best_shared(j.spec.eighths);
    if (id < 0) {
      const int node = choose_node(1);
      if (node < 0) return false;
      id = nodes_.open_shared(node);
    }
    nodes_.use_shared(id, j.spec.eighths);
    j.shared = id;
    j.node = nodes_.shared_node(id);
    node_jobs_[j.node].push_back(static_cast<int>(&j - jobs_.data()));
    return true;
  }
  if (gpus > nodes_.free_whole_gpus()) return false;
  const int id = static_cast<int>(&j - jobs_.data());
  if (j.explicit_job >= 0) {
    // A job with a fixed placement (pool.interference.jobs) waits until all its nodes are free.
    const auto& e = s_.interference.jobs[j.explicit_job];
    for (int node : e.nodes)
      if (!nodes_.schedulable(node) || nodes_.whole_free(node) < std::min(g_, gpus)) return false;
    if (gpus <= g_) {
      j.node = e.nodes.front();
      nodes_.take(j.node, gpus);
      node_jobs_[j.node].push_back(id);
    } else {
      j.nodes = e.nodes;
      for (int node : j.nodes) {
        nodes_.take(node, g_);
        node_jobs_[node].push_back(id);
      }
    }
    j.alloc = gpus;
    return true;
  }
  if (s_.placement == PlacementPolicy::SameSwitch) return place_same_switch(j, gpus);
  if (gpus <= g_) {
    const int node = choose_node(gpus);
    if (node < 0) return false;
    nodes_.take(node, gpus);
    j.node = node;
    node_jobs_[node].push_back(id);
  } else {
    const int n = gpus / g_;
    j.nodes.clear();
    const bool ok = s_.placement == PlacementPolicy::FirstFit || s_.placement == PlacementPolicy::BestFit
                        ? nodes_.take_nodes_first_fit(n, j.nodes)
                        : nodes_.take_nodes_topology(n, j.nodes);
    if (!ok) return false;
    if (s_.placement == PlacementPolicy::NetworkAware && fabric_ && j.spec.cls == JobClass::Training) network_aware(j);
    for (int node : j.nodes) node_jobs_[node].push_back(id);
    count_compactness(j);
  }
  j.alloc = gpus;
  return true;
}

// Same host if one holds the job (the fullest that does), else GPUs over the hosts of the first
// leaf with room, else on the lowest free hosts (PoolNodes::take_gpus_same_leaf): a job may hold part of a host, next
// to other jobs, as Crux's example pair does (SIGCOMM'24 Sec 2.2: a 16-GPU job on four GPUs of
// each of four hosts).
bool Sim::place_same_switch(Job& j, int gpus) {
  const int id = static_cast<int>(&j - jobs_.data());
  if (gpus <= g_) {
    const int node = nodes_.best_fit(gpus);
    if (node >= 0) {
      nodes_.take(node, gpus);
      j.node = node;
      node_jobs_[node].push_back(id);
      j.alloc = gpus;
      return true;
    }
  }
  std::vector<std::pair<int, int>> parts;
  if (!nodes_.take_gpus_same_leaf(gpus, parts)) return false;
  j.nodes.clear();
  j.node_gpus.clear();
  for (const auto& [node, k] : parts) {
    j.nodes.push_back(node);
    j.node_gpus.push_back(k);
    node_jobs_[node].push_back(id);
  }
  count_compactness(j);
  j.alloc = gpus;
  return true;
}

// Compactness of a multi-node placement: on the fewest leaves its nodes can occupy.
void Sim::count_compactness(const Job& j) {
  const int leaf = in_.topology.leaf_nodes;
  std::vector<int> leaves;
  for (int node : j.nodes) leaves.push_back(node / leaf);
  std::sort(leaves.begin(), leaves.end());
  const long distinct = std::unique(leaves.begin(), leaves.end()) - leaves.begin();
  ++out_.multi_node_jobs;
  if (distinct <= (static_cast<long>(j.nodes.size()) + leaf - 1) / leaf) ++out_.compact_multi_node_jobs;
}

// GPUs job `v` holds on `node`.
int Sim::held_on(const Job& v, int node) const {
  if (v.nodes.empty()) return v.alloc;
  if (v.node_gpus.empty()) return g_;
  const auto it = std::find(v.nodes.begin(), v.nodes.end(), node);
  return it == v.nodes.end() ? 0 : v.node_gpus[static_cast<size_t>(it - v.nodes.begin())];
}

void Sim::release(Job& j) {
  const int id = static_cast<int>(&j - jobs_.data());
  if (fabric_) net_detach(id);
  auto drop = [&](int node) {
    auto& v = node_jobs_[node];
    v.erase(std::find(v.begin(), v.end(), id));
  };
  if (j.shared >= 0) {
    drop(j.node);
    nodes_.release_shared(j.shared, j.spec.eighths);
    j.shared = -1;
  } else if (!j.nodes.empty()) {
    for (size_t k = 0; k < j.nodes.size(); ++k) {
      drop(j.nodes[k]);
      nodes_.give(j.nodes[k], j.node_gpus.empty() ? g_ : j.node_gpus[k]);
    }
    j.nodes.clear();
    j.node_gpus.clear();
  } else if (j.node >= 0) {
    drop(j.node);
    nodes_.give(j.node, j.alloc);
  }
  j.node = -1;
  if (j.reclaiming) {
    reclaiming_gpus_ -= j.alloc;
    j.reclaiming = false;
  }
  if (j.spec.cls == JobClass::Training) {
    train_gpus_ -= j.alloc;
    --train_jobs_;
    track_straggler(j, -j.alloc);
  }
  if (j.spec.cls == JobClass::Development) dev_eighths_ -= j.spec.eighths > 0 ? j.spec.eighths : 8 * j.alloc;
  j.alloc = 0;
  running_.erase({j.end, id});
  shrunk_.erase(id);
  grow_free_seen_ = -1;  // GPUs freed somewhere: a growth pass may succeed again
}

void Sim::start(int id, int gpus) {
  Job& j = jobs_[id];
  j.state = State::Running;
  j.run_start = now_;
  if (j.first_start < 0) {
    j.first_start = now_;
    ++out_.started;
    if (fabric_ && j.spec.cls == JobClass::Training && j.spec.submit >= warmup_) {
      j.net_counted = true;
      ++out_.interference.jobs;
      out_.interference.gpus += j.spec.gpus;
    }
    if (j.spec.submit >= warmup_)
      out_.queue_delay_h[static_cast<int>(j.spec.cls)].push_back(static_cast<float>((now_ - j.spec.submit) / 3600.0));
  }
  if (j.spec.cls == JobClass::Inference) {
    Service& sv = services_[j.service];
    ++sv.running;
    infer_held_ += gpus;
    update_short(sv, +1);
    return;
  }
  j.overhead = j.interrupted ? s_.training.restart_time_s : 0.0;
  const double speed = j.spec.eighths > 0 ? 1.0 : static_cast<double>(gpus) / j.spec.gpus;
  if (fabric_) net_attach(id);
  j.end = now_ + j.overhead + j.remaining / speed * j.sigma;
  if (j.spec.cls == JobClass::Training) {
    train_gpus_ += gpus;
    ++train_jobs_;
    track_straggler(j, gpus);
  } else {
    dev_eighths_ += j.spec.eighths > 0 ? j.spec.eighths : 8 * gpus;
  }
  running_.insert({j.end, id});
  if (j.spec.elastic && j.alloc < j.spec.gpus && j.spec.eighths == 0) shrunk_.insert(id);
  push(j.end, Ev::Finish, id, j.epoch);
}

bool Sim::try_start(int id) {
  Job& j = jobs_[id];
  int gpus = j.spec.gpus;
  if (place(j, gpus)) {
    start(id, j.spec.eighths > 0 ? 0 : gpus);
    return true;
  }
  if (j.spec.elastic) {
    // Elastic jobs start on what the pool has, down to their minimum (halving keeps whole nodes).
    const int min_gpus = elastic_min(j);
    for (gpus = j.spec.gpus / 2; gpus >= min_gpus; gpus /= 2) {
      if (gpus > g_ && gpus % g_ != 0) continue;
      if (place(j, gpus)) {
        start(id, gpus);
        return true;
      }
    }
  }
  return false;
}

void Sim::enqueue(int id) {
  Job& j = jobs_[id];
  j.state = State::Queued;
  if (j.spec.cls == JobClass::Inference) {
    inference_queue_.insert(id);
  } else {
    queue_.insert({queue_key_priority(j), j.spec.submit, id});
    queued_gpus_ += j.spec.gpus;
  }
}

void Sim::finish(int id) {
  Job& j = jobs_[id];
  const int c = static_cast<int>(j.spec.cls);
  out_.lost_gpu_hours[static_cast<int>(Loss::Restart)] += j.overhead * j.alloc / 3600.0;
  release(j);
  j.state = State::Done;
  ++out_.finished;
  if (j.spec.submit >= warmup_) out_.slowdown[c].push_back(static_cast<float>((now_ - j.spec.submit) / std::max(j.spec.duration, 1.0)));
  if (fabric_ && j.spec.cls == JobClass::Training && j.spec.submit >= warmup_)
    out_.interference.slowdown.push_back(static_cast<float>(j.net_ideal > 0 ? j.net_wall / j.net_ideal : 1.0));
}

// Stops a running job. Training keeps the progress up to its last checkpoint (all of it when
// `graceful`: a reclaim gives notice to checkpoint); development jobs start over.
void Sim::interrupt(int id, Loss cause, bool graceful) {
  Job& j = jobs_[id];
  if (j.spec.cls == JobClass::Inference) {
    Service& sv = services_[j.service];
    infer_held_ -= j.alloc;
    --sv.running;
    update_short(sv, -1);
    release(j);
    ++j.epoch;
    enqueue(id);
    return;
  }
  const double elapsed = now_ - j.run_start;
  const double ran = std::max(0.0, elapsed - j.overhead);
  const double held = j.spec.eighths > 0 ? j.spec.eighths / 8.0 : j.alloc;
  const double speed = j.spec.eighths > 0 ? 1.0 : static_cast<double>(j.alloc) / j.spec.gpus;
  double kept = 0.0;
  if (j.spec.cls == JobClass::Training) {
    const double ci = s_.training.checkpoint_interval_s;
    kept = graceful ? ran : std::floor(ran / ci) * ci;
  }
  out_.lost_gpu_hours[static_cast<int>(cause)] += (ran - kept) * held / 3600.0;
  out_.lost_gpu_hours[static_cast<int>(Loss::Restart)] += std::min(elapsed, j.overhead) * held / 3600.0;
  j.remaining = std::max(0.0, j.remaining - work_at(j, kept, speed));
  release(j);
  ++j.epoch;
  j.interrupted = true;
  j.reclaiming = false;
  j.end = kInf;
  enqueue(id);
}

// Frees room for `gpus` by stopping running jobs below `priority_below` (training only): for a
// single-node request, the jobs of one node that then holds the request; for a gang, the jobs
// ending last until enough whole GPUs are free. Inference reclaims give notice (graceful, after
// pool.reclaim_time); priority preemption stops at once and loses work since the checkpoint.
bool Sim::preempt_for(int gpus, int priority_below, bool inference) {
  auto eligible = [&](int id) {
    const Job& v = jobs_[id];
    return v.state == State::Running && v.spec.cls == JobClass::Training && v.spec.priority < priority_below &&
           !v.reclaiming && now_ - v.run_start >= s_.min_runtime_before_preemption_s;
  };
  // An elastic job above its minimum shrinks instead of stopping (pool.training.elastic_resize).
  auto shrinkable = [&](int id) {
    const Job& v = jobs_[id];
    return s_.training.elastic_resize && v.spec.elastic && v.spec.eighths == 0 && v.alloc > shrink_target(v);
  };
  std::vector<int> victims;
  if (gpus <= g_) {
    const int n = in_.topology.nodes;
    // Scan from a rotating cursor so repeated reclaims spread over the pool.
    for (int k = 0, node = victim_cursor_ % n; k < n; ++k, node = (node + 1) % n) {
      if (!nodes_.schedulable(node)) continue;
      int room = nodes_.whole_free(node);
      victims.clear();
      for (int id : node_jobs_[node])
        if (eligible(id)) {
          victims.push_back(id);
          const Job& v = jobs_[id];
          room += !v.nodes.empty() ? held_on(v, node) : shrinkable(id) ? v.alloc - shrink_target(v) : v.alloc;
        }
      if (room >= gpus && !victims.empty()) {
        victim_cursor_ = node + 1;
        break;
      }
      victims.clear();
    }
  } else {
    double room = static_cast<double>(nodes_.free_nodes()) * g_;
    for (auto it = running_.rbegin(); it != running_.rend() && room < gpus; ++it)
      if (eligible(it->second)) {
        const Job& v = jobs_[it->second];
        victims.push_back(it->second);
        room += !v.nodes.empty() && shrinkable(it->second) ? v.alloc - shrink_target(v) : v.alloc;
      }
    if (room < gpus) victims.clear();
  }
  if (victims.empty()) return false;
  for (int id : victims) {
    if (shrinkable(id) && (gpus <= g_) == jobs_[id].nodes.empty()) {
      resize(id, shrink_target(jobs_[id]));
      continue;
    }
    ++out_.preemptions;
    if (inference && s_.reclaim_time_s > 0) {
      jobs_[id].reclaiming = true;
      reclaiming_gpus_ += jobs_[id].alloc;
      ++out_.reclaims;
      push(now_ + s_.reclaim_time_s, Ev::ReclaimDue, id, jobs_[id].epoch);
    } else {
      interrupt(id, Loss::PreemptionRollback, inference);
    }
  }
  return true;
}

void Sim::note_head() {
  frag_gpus_ = 0;
  if (queue_.empty()) return;
  const Job& head = jobs_[std::get<2>(*queue_.begin())];
  const double need = head.spec.eighths > 0 ? head.spec.eighths / 8.0 : head.spec.gpus;
  const double free = static_cast<double>(nodes_.free_whole_gpus()) + nodes_.free_shared_eighths() / 8.0;
  if (free >= need) frag_gpus_ = free;
}

void Sim::schedule() {
  // Inference replicas first: they hold the SLO. Reclaims are started only for the part of the
  // waiting replicas' GPUs that reclaims already under way do not cover.
  double waiting = 0;
  for (auto it = inference_queue_.begin(); it != inference_queue_.end();) {
    const int id = *it;
    if (try_start(id)) {
      it = inference_queue_.erase(it);
      continue;
    }
    const bool may_reclaim = s_.colocation == Colocation::Tidal || (s_.policy == QueuePolicy::Priority && s_.preemption);
    waiting += jobs_[id].spec.gpus;
    if (may_reclaim && reclaiming_gpus_ < waiting && now_ >= next_inference_preempt_) {
      if (!preempt_for(jobs_[id].spec.gpus, 2, true)) {
        next_inference_preempt_ = now_ + s_.backfill_interval_s;
      } else if (try_start(id)) {
        it = inference_queue_.erase(it);
        continue;
      }
    }
    ++it;
  }
  while (!queue_.empty()) {
    const int id = std::get<2>(*queue_.begin());
    Job& j = jobs_[id];
    bool ok = try_start(id);
    if (!ok && s_.policy == QueuePolicy::Priority && s_.preemption && j.spec.priority > 0 &&
        now_ >= next_training_preempt_) {
      if (preempt_for(j.spec.gpus, j.spec.priority, false)) ok = try_start(id);
      else next_training_preempt_ = now_ + s_.backfill_interval_s;
    }
    if (!ok) break;
    queue_.erase(queue_.begin());
    queued_gpus_ -= j.spec.gpus;
  }
  grow_elastic();
  note_head();
}

int Sim::elastic_min(const Job& j) const {
  const int m = std::max(1, static_cast<int>(std::ceil(j.spec.gpus * s_.training.elastic_min_fraction - 1e-9)));
  return m > g_ ? (m + g_ - 1) / g_ * g_ : m;  // gangs keep whole nodes
}

// The size a running elastic job shrinks to: its minimum, in whole nodes while it spans nodes.
int Sim::shrink_target(const Job& j) const {
  const int m = elastic_min(j);
  return j.nodes.empty() ? m : std::max(g_, (m + g_ - 1) / g_ * g_);
}

// An elastic job changes size while it runs: the work done so far at the old size is kept (the
// resize is a coordinated checkpoint, as in TorchElastic / Pollux), the job pays
// pool.training.elastic_resize_time and goes on at the new size's speed. GPUs are added on the
// job's own node (single-node jobs) or as whole free nodes (gangs); removed likewise.
void Sim::resize(int id, int gpus) {
  Job& j = jobs_[id];
  const int old = j.alloc;
  if (gpus == old) return;
  const double elapsed = now_ - j.run_start;
  const double ran = std::max(0.0, elapsed - j.overhead);
  out_.lost_gpu_hours[static_cast<int>(Loss::Restart)] += std::min(elapsed, j.overhead) * old / 3600.0;
  j.remaining = std::max(0.0, j.remaining - (j.marks.empty() ? ran * static_cast<double>(old) / j.spec.gpus
                                                              : work_at(j, ran, static_cast<double>(old) / j.spec.gpus)));
  if (fabric_) net_detach(id);
  if (gpus > old) {
    if (old <= g_ && gpus <= g_) {
      nodes_.take(j.node, gpus - old);
    } else {
      if (j.nodes.empty()) j.nodes.push_back(j.node), j.node = -1;  // a full node becomes a gang's first
      const size_t before = j.nodes.size();
      const int extra = (gpus - old) / g_;
      const bool ok = s_.placement == PlacementPolicy::FirstFit || s_.placement == PlacementPolicy::BestFit
                          ? nodes_.take_nodes_first_fit(extra, j.nodes)
                          : nodes_.take_nodes_topology(extra, j.nodes);
      if (!ok) throw std::logic_error("pool: elastic growth took fewer nodes than were free");
      for (size_t k = before; k < j.nodes.size(); ++k) node_jobs_[j.nodes[k]].push_back(id);
    }
  } else if (j.nodes.empty()) {
    nodes_.give(j.node, old - gpus);
  } else {
    for (int k = 0; k < (old - gpus) / g_; ++k) {
      const int node = j.nodes.back();
      j.nodes.pop_back();
      auto& v = node_jobs_[node];
      v.erase(std::find(v.begin(), v.end(), id));
      nodes_.give(node, g_);
    }
  }
  ++out_.elastic_resizes;
  train_gpus_ += gpus - old;
  track_straggler(j, gpus - old);
  if (j.reclaiming) reclaiming_gpus_ += gpus - old;
  running_.erase({j.end, id});
  j.alloc = gpus;
  j.run_start = now_;
  j.overhead = s_.training.elastic_resize_time_s;
  if (fabric_) net_attach(id);
  j.end = now_ + j.overhead + j.remaining * j.spec.gpus / gpus * j.sigma;
  ++j.epoch;
  running_.insert({j.end, id});
  if (gpus < j.spec.gpus) shrunk_.insert(id);
  else shrunk_.erase(id);
  push(j.end, Ev::Finish, id, j.epoch);
}

// Work (s at the requested size) a job has done `wall` s after its work began in this run: the
// marks hold where its slowdown changed (without interference: wall x speed).
double Sim::work_at(const Job& j, double wall, double speed) const {
  if (j.marks.empty()) return wall * speed;
  auto it = std::upper_bound(j.marks.begin(), j.marks.end(), wall,
                             [](double w, const std::array<double, 3>& m) { return w < m[0]; });
  const auto& m = it == j.marks.begin() ? j.marks.front() : *std::prev(it);
  return m[1] + std::max(0.0, wall - m[0]) * speed / m[2];
}

// The traffic of a running training job (sim/pool/interference.hpp): an explicit job's from its
// compute time and bytes; a stream job's from the step model of its size class (traffic.hpp), or
// the comm_share override. Whether a stream job runs the MoE representative (all-to-all under the
// override) is drawn from its id (no random stream is consumed).
const TrafficProfile& Sim::net_profile(int id) const {
  const Job& j = jobs_[id];
  const InterferenceSpec& is = s_.interference;
  if (j.explicit_job >= 0) return explicit_traffic_[j.explicit_job];
  bool moe = false;
  if (is.all_to_all_share > 0) {
    std::uint64_t x = in_.seed ^ (static_cast<std::uint64_t>(id) * 0x9E3779B97F4A7C15ULL + 0x28);
    moe = static_cast<double>(run::splitmix64(x) >> 11) * 0x1.0p-53 < is.all_to_all_share;
  }
  if (!is.traffic_from_step) return override_traffic_[moe ? 1 : 0];
  return traffic_for(in_.traffic, j.spec.gpus, moe).profile;
}

// Network-aware placement of a gang: the topology policy's nodes (fewest pods and leaves), unless
// the job's links there would be overloaded and the lowest free nodes would load them less (the
// slowdown the job would see, sim/pool/interference.hpp; ties keep the packed placement).
void Sim::network_aware(Job& j) {
  const int id = static_cast<int>(&j - jobs_.data());
  const TrafficProfile& traffic = net_profile(id);
  const double packed = fabric_->probe(j.nodes, traffic, j.spec.gpus);
  if (packed <= 1.0 + 1e-9) return;
  std::vector<int> alt;
  for (int node : j.nodes) nodes_.give(node, g_);
  nodes_.take_nodes_first_fit(static_cast<int>(j.nodes.size()), alt);
  if (fabric_->probe(alt, traffic, j.spec.gpus) < packed - 1e-9) {
    j.nodes = std::move(alt);
    return;
  }
  for (int node : alt) nodes_.give(node, g_);
  for (int node : j.nodes) nodes_.take(node, g_);
}

// A multi-node training job's traffic enters the fabric when it starts (or resizes): its own
// slowdown is set and the jobs sharing its links are re-based.
void Sim::net_attach(int id) {
  Job& j = jobs_[id];
  if (j.spec.cls != JobClass::Training || j.nodes.empty()) return;
  fabric_->add(id, j.nodes, net_profile(id), j.alloc, now_, j.node_gpus);
  j.sigma = fabric_->sigma(id);
  j.sigma_max = std::max(j.sigma_max, j.sigma);
  j.marks.assign(1, {0.0, 0.0, j.sigma});
  interf_rate_ += j.alloc * (1.0 - 1.0 / j.sigma);
  net_count_shared(j);
  net_rebase(fabric_->changed());
}

void Sim::net_detach(int id) {
  Job& j = jobs_[id];
  if (!fabric_->has(id)) return;
  const double speed = static_cast<double>(j.alloc) / j.spec.gpus;
  const double ran = std::max(0.0, now_ - j.run_start - j.overhead);
  j.net_wall += ran;
  j.net_ideal += work_at(j, ran, speed) / speed;
  net_count_shared(j);
  if (j.explicit_job >= 0) {
    const ExplicitJob& e = s_.interference.jobs[j.explicit_job];
    const double comm_s = e.comm_bytes / in_.fabric.nic_rate;
    const double alone = e.compute_time_s + comm_s * fabric_->comm_self(id);
    out_.interference.explicit_jobs.push_back({e.name, alone, alone * j.sigma_max,
                                               j.net_ideal > 0 ? j.net_wall / j.net_ideal : 1.0, fabric_->comm_self(id)});
  }
  interf_rate_ -= j.alloc * (1.0 - 1.0 / j.sigma);
  fabric_->remove(id, now_);
  j.sigma = 1.0;
  j.marks.clear();
  net_rebase(fabric_->changed());
}

void Sim::net_count_shared(Job& j) {
  const int id = static_cast<int>(&j - jobs_.data());
  if (j.net_counted && !j.net_shared && fabric_->shared(id)) {
    j.net_shared = true;
    ++out_.interference.shared_jobs;
    out_.interference.shared_gpus += j.spec.gpus;
  }
}

// Jobs whose slowdown changed: the work done so far is kept at the old rate, the rest runs at the
// new one, and the finish event moves.
void Sim::net_rebase(const std::vector<int>& ids) {
  const std::vector<int> changed = ids;  // the fabric's list is overwritten by the next add/remove
  for (int id : changed) {
    Job& k = jobs_[id];
    if (k.state != State::Running || k.marks.empty()) continue;
    const double speed = static_cast<double>(k.alloc) / k.spec.gpus;
    const double t0 = k.run_start + k.overhead;
    const double wall = std::max(0.0, now_ - t0);
    const double done = work_at(k, wall, speed);
    const double sigma = fabric_->sigma(id);
    interf_rate_ += k.alloc * (1.0 / k.sigma - 1.0 / sigma);
    k.sigma = sigma;
    k.sigma_max = std::max(k.sigma_max, sigma);
    if (k.marks.back()[0] >= wall) k.marks.back() = {wall, done, sigma};
    else k.marks.push_back({wall, done, sigma});
    net_count_shared(k);
    running_.erase({k.end, id});
    k.end = t0 + wall + std::max(0.0, k.remaining - done) * sigma / speed;
    running_.insert({k.end, id});
    push(k.end, Ev::Finish, id, k.epoch);
  }
}

// Elastic jobs below their requested size take freed GPUs, but only GPUs no queued job can use:
// growth waits while training or development jobs queue (the queue is served first, so growth
// never starves it), and a pass that grew nothing is not repeated until more GPUs are free.
void Sim::grow_elastic() {
  if (shrunk_.empty() || !queue_.empty() || !s_.training.elastic_resize) return;
  const long long free = nodes_.free_whole_gpus();
  if (free == 0 || free <= grow_free_seen_) return;
  bool grew = false;
  for (auto it = shrunk_.begin(); it != shrunk_.end();) {
    const int id = *it++;  // resize() may erase id from shrunk_
    const Job& j = jobs_[id];
    if (j.reclaiming) continue;
    int target = j.alloc;
    if (j.alloc < g_ || (j.alloc == g_ && j.spec.gpus <= g_)) {
      if (j.spec.gpus <= g_) target = std::min(j.spec.gpus, j.alloc + nodes_.whole_free(j.node));
    } else {
      target = std::min(j.spec.gpus, j.alloc + nodes_.free_nodes() * g_);
    }
    if (target > j.alloc) {
      resize(id, target);
      grew = true;
    }
  }
  grow_free_seen_ = grew ? -1 : free;
}

// EASY backfill (Lifka 1995; Mu'alem & Feitelson 2001): the head gets a reservation at the
// earliest time enough GPUs will be free (by count; run times are taken as known exactly); later
// jobs may start now if they end before it or fit in the GPUs the head will not need.
void Sim::backfill() {
  if (queue_.size() < 2) return;
  const Job& head = jobs_[std::get<2>(*queue_.begin())];
  const double need = head.spec.gpus;
  double free = static_cast<double>(nodes_.free_whole_gpus());
  double shadow = kInf, extra = 0;
  double acc = free;
  for (const auto& [end, id] : running_) {
    acc += jobs_[id].spec.eighths > 0 ? 0 : jobs_[id].alloc;
    if (acc >= need) {
      shadow = end;
      extra = acc - need;
      break;
    }
  }
  int examined = 0;
  for (auto it = std::next(queue_.begin()); it != queue_.end() && examined < s_.backfill_depth;) {
    ++examined;
    const int id = std::get<2>(*it);
    Job& j = jobs_[id];
    const double g = j.spec.eighths > 0 ? 0 : j.spec.gpus;
    const double runtime = (j.interrupted ? s_.training.restart_time_s : 0.0) + j.remaining;
    const bool ends_before = now_ + runtime <= shadow;
    if ((ends_before || g <= extra) && g <= free && try_start(id)) {
      if (!ends_before) extra -= j.alloc;
      free = static_cast<double>(nodes_.free_whole_gpus());
      queued_gpus_ -= j.spec.gpus;
      it = queue_.erase(it);
      continue;
    }
    ++it;
  }
  note_head();
}

// Keeps the count of services short of replicas and the GPUs of needed replicas current after
// sv.running changed by `delta_running`.
double request_weight(const Service& sv) {
  return sv.group->replica_requests_per_s > 0 ? sv.group->replica_requests_per_s : 1.0;
}

void Sim::update_short(Service& sv, int delta_running) {
  deficit_ += (std::max(0, sv.needed - sv.running) - std::max(0, sv.needed - (sv.running - delta_running))) * request_weight(sv);
  const bool was_short = sv.running - delta_running < sv.needed;
  const bool is_short = sv.running < sv.needed;
  short_services_ += static_cast<int>(is_short) - static_cast<int>(was_short);
  infer_used_ += static_cast<double>(std::min(sv.running, sv.needed) - std::min(sv.running - delta_running, sv.needed)) *
                 sv.group->replica_gpus;
}

void Sim::set_needed(Service& sv, int needed) {
  const double w = request_weight(sv);
  deficit_ += (std::max(0, needed - sv.running) - std::max(0, sv.needed - sv.running)) * w;
  demand_ += (needed - sv.needed) * w;
  const bool was_short = sv.running < sv.needed;
  infer_used_ -= static_cast<double>(std::min(sv.running, sv.needed)) * sv.group->replica_gpus;
  sv.needed = needed;
  infer_used_ += static_cast<double>(std::min(sv.running, sv.needed)) * sv.group->replica_gpus;
  short_services_ += static_cast<int>(sv.running < sv.needed) - static_cast<int>(was_short);
}

void Sim::add_replica(int service) {
  Job j;
  j.spec.cls = JobClass::Inference;
  j.spec.gpus = services_[service].group->replica_gpus;
  j.spec.submit = now_;
  j.spec.duration = kInf;
  j.service = service;
  jobs_.push_back(std::move(j));
  const int id = static_cast<int>(jobs_.size()) - 1;
  services_[service].replicas.push_back(id);
  enqueue(id);
}

void Sim::remove_replica(int service) {
  Service& sv = services_[service];
  const int id = sv.replicas.back();
  sv.replicas.pop_back();
  Job& j = jobs_[id];
  if (j.state == State::Running) {
    infer_held_ -= j.alloc;
    --sv.running;
    update_short(sv, -1);
    release(j);
  } else {
    inference_queue_.erase(id);
  }
  j.state = State::Done;
}

void Sim::inference_tick() {
  const bool tidal = s_.colocation == Colocation::Tidal;
  for (size_t i = 0; i < services_.size(); ++i) {
    Service& sv = services_[i];
    set_needed(sv, replicas_needed(*sv.group, now_));
    // Without co-location a service holds its peak replicas; with tidal co-location it holds
    // what the demand needs and lends the rest.
    const int target = tidal ? sv.needed : sv.group->peak_replicas;
    while (static_cast<int>(sv.replicas.size()) < target) add_replica(static_cast<int>(i));
    while (static_cast<int>(sv.replicas.size()) > target) remove_replica(static_cast<int>(i));
  }
  if (!services_.empty() && now_ + s_.inference_interval_s < horizon_) push(now_ + s_.inference_interval_s, Ev::InferenceTick);
}

void Sim::schedule_failure(int node) {
  if (in_.node_failure_rate <= 0) return;
  const double t = now_ + fail_rng_.exponential(1.0 / in_.node_failure_rate);
  if (t < horizon_) push(t, Ev::NodeFail, node);
}

void Sim::node_fail(int node) {
  ++out_.node_failures;
  const bool was_spare = node_state_[node] == 2;
  if (was_spare) {
    --spares_idle_;
  } else {
    const std::vector<int> victims = node_jobs_[node];
    for (int id : victims)
      if (jobs_[id].state == State::Running) interrupt(id, Loss::FailureRollback, false);
    nodes_.set_schedulable(node, false);
    if (spares_idle_ > 0) {
      // A hot spare takes the failed node's place.
      for (int k = 0; k < in_.topology.nodes; ++k)
        if (node_state_[k] == 2) {
          node_state_[k] = 0;
          --spares_idle_;
          nodes_.set_schedulable(k, true);
          break;
        }
    }
  }
  node_state_[node] = 1;
  ++down_nodes_;
  const bool repair = fail_rng_.uniform() < in_.repair_share;
  const double back = repair ? repair_rng_.lognormal(in_.repair_median_s, in_.repair_sigma) : s_.reset_time_s;
  push(now_ + back, Ev::NodeBack, node);
}

void Sim::node_back(int node) {
  --down_nodes_;
  // A repaired node refills the spare set first.
  if (spares_idle_ < s_.spare_nodes) {
    node_state_[node] = 2;
    ++spares_idle_;
  } else {
    node_state_[node] = 0;
    nodes_.set_schedulable(node, true);
  }
  schedule_failure(node);
}

PoolReplication Sim::run() {
  warmup_ = s_.warmup_s;
  horizon_ = warmup_ + s_.duration_s;
  next_sample_ = warmup_;
  const int n = in_.topology.nodes;
  node_jobs_.assign(n, {});
  node_state_.assign(n, 0);
  for (int k = 0; k < s_.spare_nodes && k < n; ++k) {
    const int node = n - 1 - k;
    node_state_[node] = 2;
    nodes_.set_schedulable(node, false);
    ++spares_idle_;
  }
  auto specs = generate_jobs(s_, g_, (n - s_.spare_nodes) * g_, horizon_, in_.seed, rep_, in_.file);
  const StragglerCounts straggler_counts = apply_stragglers(s_.stragglers, specs, in_.seed, rep_, warmup_);
  out_.straggler_jobs = straggler_counts.counted;
  out_.straggling_jobs = straggler_counts.straggling;
  out_.last_stage_majority_jobs = straggler_counts.last_stage_majority;
  out_.sequence_straggling_jobs = straggler_counts.sequence_straggling;
  out_.host_majority_straggling_jobs = straggler_counts.host_majority_straggling;
  if (in_.run_job_gpus > 0) {
    // The scenario's own training job: submitted first, high priority, running past the horizon.
    JobSpec own;
    own.gpus = in_.run_job_gpus;
    own.duration = 1e3 * horizon_;
    own.priority = 1;
    specs.insert(specs.begin(), own);
  }
  std::vector<int> explicit_index;  // per spec: index in pool.interference.jobs, or -1
  if (s_.interference.enabled) {
    fabric_.emplace(in_.fabric, s_.interference, in_.seed, rep_, warmup_);
    out_.interference.enabled = true;
    const InterferenceSpec& is = s_.interference;
    override_traffic_.assign(2, TrafficProfile{});
    override_traffic_[1].pattern = TrafficPattern::AllToAll;
    for (auto& t : override_traffic_) t.comm_share = is.comm_share;
    for (const ExplicitJob& e : is.jobs) {
      TrafficProfile t;
      t.pattern = e.traffic;
      const double comm_s = e.comm_bytes / in_.fabric.nic_rate;
      t.comm_share = comm_s / std::max(1e-30, e.compute_time_s + comm_s);
      explicit_traffic_.push_back(t);
    }
    if (!s_.interference.jobs.empty()) {
      std::vector<std::pair<JobSpec, int>> all;
      for (const auto& sp : specs) all.emplace_back(sp, -1);
      for (size_t k = 0; k < s_.interference.jobs.size(); ++k) {
        const ExplicitJob& e = s_.interference.jobs[k];
        JobSpec sp;
        sp.submit = e.start_s;
        sp.duration = e.duration_s;
        sp.gpus = e.gpus;
        sp.priority = 1;
        all.emplace_back(sp, static_cast<int>(k));
      }
      std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first.submit < b.first.submit; });
      specs.clear();
      for (const auto& [sp, k] : all) {
        specs.push_back(sp);
        explicit_index.push_back(k);
      }
    }
  }
  p_single_ = single_node_request_shares(specs, g_);
  jobs_.reserve(specs.size() + 4096);
  for (size_t k = 0; k < specs.size(); ++k) {
    Job j;
    j.spec = specs[k];
    j.remaining = specs[k].duration;
    if (!explicit_index.empty()) j.explicit_job = explicit_index[k];
    jobs_.push_back(std::move(j));
  }
  n_stream_ = jobs_.size();
  out_.submitted = static_cast<long long>(n_stream_);
  for (const auto& g : s_.inference)
    for (int k = 0; k < g.services; ++k) {
      services_.push_back({&g, {}, 0, 0});
      peak_infer_gpus_ += static_cast<double>(g.peak_replicas) * g.replica_gpus;
    }
  for (int node = 0; node < n; ++node) schedule_failure(node);
  if (!services_.empty()) push(0.0, Ev::InferenceTick);
  if (s_.policy == QueuePolicy::Backfill) push(s_.backfill_interval_s, Ev::BackfillTick);

  const double sample_dt = s_.inference_interval_s;
  const double pool_gpus = static_cast<double>(n) * g_;
  auto sample = [&] {
    while (next_sample_ <= now_ && next_sample_ < horizon_) {
      out_.t_h.push_back((next_sample_ - warmup_) / 3600.0);
      const double a = (train_gpus_ + dev_eighths_ / 8.0 + infer_used_) / pool_gpus;
      out_.alloc.push_back(a);
      out_.alloc_training.push_back(train_gpus_ / pool_gpus);
      out_.alloc_inference.push_back(infer_used_ / pool_gpus);
      out_.alloc_dev.push_back(dev_eighths_ / 8.0 / pool_gpus);
      out_.frag.push_back(frag_gpus_ / pool_gpus);
      out_.queued_gpus.push_back(queued_gpus_);
      if (fabric_) {
        const auto ls = fabric_->sample();
        out_.interference.link_load_mean.push_back(ls.mean);
        out_.interference.link_load_max.push_back(ls.max);
        out_.interference.hot_links.push_back(ls.hot);
      }
      next_sample_ += sample_dt;
    }
  };
  while (true) {
    const double t_arrival = next_arrival_ < n_stream_ ? jobs_[next_arrival_].spec.submit : kInf;
    const double t_event = heap_.empty() ? kInf : heap_.top().t;
    const double t = std::min(t_arrival, t_event);
    if (t >= horizon_) break;
    advance(t);
    ++out_.events;
    if (t_arrival <= t_event) {
      enqueue(static_cast<int>(next_arrival_++));
    } else {
      const Event e = heap_.top();
      heap_.pop();
      switch (e.type) {
        case Ev::Finish:
          if (jobs_[e.a].state == State::Running && jobs_[e.a].epoch == e.b && jobs_[e.a].end == e.t) finish(e.a);
          break;
        case Ev::ReclaimDue:
          if (jobs_[e.a].state == State::Running && jobs_[e.a].epoch == e.b)
            interrupt(e.a, Loss::PreemptionRollback, true);
          break;
        case Ev::NodeFail:
          if (node_state_[e.a] != 1) node_fail(e.a);
          break;
        case Ev::NodeBack: node_back(e.a); break;
        case Ev::InferenceTick: inference_tick(); break;
        case Ev::BackfillTick:
          backfill();
          push(now_ + s_.backfill_interval_s, Ev::BackfillTick);
          break;
      }
    }
    schedule();
    sample();
  }
  advance(horizon_);
  sample();
  if (fabric_) {
    for (auto& j : jobs_)
      if (j.state == State::Running && j.explicit_job >= 0) net_detach(static_cast<int>(&j - jobs_.data()));
      else if (j.state == State::Running) net_count_shared(j);
    out_.interference.worst_links = fabric_->worst_links(horizon_, 20);
  }
  out_.pool_gpu_hours = pool_gpus * s_.duration_s / 3600.0;
  double alloc = 0;
  for (double a : out_.allocated_gpu_hours) alloc += a;
  out_.allocation_share = alloc / out_.pool_gpu_hours;
  out_.fragmentation_share = out_.lost_gpu_hours[static_cast<int>(Loss::Fragmentation)] / out_.pool_gpu_hours;
  out_.slo_attainment = slo_total_ > 0 ? slo_ok_ / slo_total_ : 1.0;
  out_.inference_slo_violation_share = demand_time_ > 0 ? deficit_time_ / demand_time_ : 0.0;
  return std::move(out_);
}

}  // namespace

const char* loss_key(Loss l) {
  switch (l) {
    case Loss::Idle: return "idle";
    case Loss::Fragmentation: return "fragmentation";
    case Loss::InferenceIdle: return "inference_idle";
    case Loss::Failures: return "failures";
    case Loss::Spares: return "spares";
    case Loss::FailureRollback: return "failure_rollback";
    case Loss::PreemptionRollback: return "preemption_rollback";
    case Loss::Restart: return "restart";
  }
  return "?";
}

PoolReplication simulate_pool_replication(const PoolInputs& in, int replication) {
  Sim sim(in, replication);
  return sim.run();
}

}  // namespace fleetsim::pool
