// The event loop of one replication.
//
// Time is a 64-bit count of microseconds. Discrete events (failure arrivals, planned maintenance,
// fail-slow onsets and evictions, replica rejoins, the end of an outage, the end of the run) are
// found as the earliest of a handful of pending times; between two events the job advances in
// closed form: checkpoint cycles (compute interval, blocking stall, background persist) are
// deterministic once the job is running, so they are walked inside advance() instead of being
// queued, and work accrues at the iteration rate of the current state (healthy or with a
// fail-slow node, times the share of data-parallel replicas present, times the throughput hook).
//
// Wall-clock accounting: every microsecond is productive (compute whose work is kept), lost work
// (compute rolled back by an interruption), a checkpoint stall, or an outage phase (detection,
// diagnosis, rescheduling, waiting for spares, restart, planned maintenance); under
// replica_restart the missing replicas' share of compute time is "degraded". ETTR = productive /
// wall (Kokolis et al. HPCA'25 definition: productive runtime over wall time).
#include "sim/run/run_engine.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <queue>
#include <string>
#include <string_view>


namespace fleetsim::run {
namespace {

constexpr Time kNever = std::numeric_limits<Time>::max();

enum Acc { kLostWork, kDetection, kDiagnosis, kRescheduling, kWaiting, kRestart, kStalls, kPlanned, kDegraded, kNumAcc };
constexpr std::array<const char*, kNumAcc> kAccNames = {
    phase::kLostWork, phase::kDetection, phase::kDiagnosis, phase::kRescheduling,
    phase::kWaitingForSpares, phase::kRestart, phase::kCheckpointStalls,
    phase::kPlannedMaintenance, phase::kDegraded};

class Replication {
 public:
  Replication(const Prepared& p, const RunInputs& in, int rep, ReplicationResult& out)
      : p_(p), in_(in), out_(out), log_(rep == 0 && in.record_events), trace_(rep == 0 && in.record_timeline),
        arrivals_(in.run.seed, rep, Stream::FailureArrivals),
        pick_(in.run.seed, rep, Stream::FailurePick),
        planned_rng_(in.run.seed, rep, Stream::Planned),
        slow_rng_(in.run.seed, rep, Stream::FailSlow),
        repair_rng_(in.run.seed, rep, Stream::Repair),
        frailty_rng_(in.run.seed, rep, Stream::Frailty),
        pool_(in.recovery, in.failures, repair_rng_) {
    for (size_t k = 0; k < p.failures.weibull.size(); ++k)
      weibull_rngs_.emplace_back(in.run.seed, rep, static_cast<std::uint64_t>(Stream::WeibullBase) + k);
    if (p.failures.per_node) draw_nodes();
    class_failures_.assign(p.failures.classes.size(), 0);
  }

  void run() {
    Time now = 0;
    next_exp_ = draw_after(arrivals_, 0, fm_->exp_rate);
    for (const auto& table : p_.weibull_tables) weibull_cum_.push_back(table.cumulative(in_.failures.fleet_age.si()));
    for (size_t k = 0; k < p_.failures.weibull.size(); ++k) next_weibull_.push_back(weibull_after(k, 0));
    next_planned_ = draw_after(planned_rng_, 0, p_.planned_rate);
    next_slow_ = draw_after(slow_rng_, 0, p_.fail_slow_rate);
    next_stall_ = p_.interval;

    while (true) {
      // The earliest pending event; ties resolve in this order.
      Time t = p_.end;
      int what = 0;
      auto consider = [&](Time c, int w) { if (c < t) { t = c; what = w; } };
      if (down_) consider(outage_end_, 1);
      if (!rejoins_.empty()) consider(rejoins_.top(), 2);
      consider(next_exp_, 3);
      size_t wk = 0;
      for (size_t k = 0; k < next_weibull_.size(); ++k)
        if (next_weibull_[k] < t) { t = next_weibull_[k]; what = 4; wk = k; }
      consider(next_planned_, 5);
      consider(next_slow_, 6);
      // The fail-slow episode of the next detection (7) or end (8), cached between changes.
      const size_t se = next_episode_;
      if (se < episodes_.size()) consider(next_episode_time_, next_episode_what_);

      const Time reached = advance(now, t);
      now = reached;
      if (finished_ || what == 0) break;
      switch (what) {
        case 1: end_outage(now); break;
        case 2: rejoins_.pop(); log(now, EventKind::ReplicaRejoin, "replica", 0); break;
        case 3: {
          const int c = pick_exponential(*fm_, pick_.uniform());
          next_exp_ = draw_after(arrivals_, now, fm_->exp_rate);
          failure(now, fm_->classes[static_cast<size_t>(c)]);
          break;
        }
        case 4:
          next_weibull_[wk] = weibull_after(wk, now);
          failure(now, fm_->classes[static_cast<size_t>(fm_->weibull[wk])]);
          break;
        case 5: next_planned_ = draw_after(planned_rng_, now, p_.planned_rate); planned(now); break;
        case 6: {
          next_slow_ = draw_after(slow_rng_, now, p_.fail_slow_rate);
          ++out_.fail_slow;
          // An episode ends by itself after an exponential time of mean fail_slow_duration (0:
          // only mitigation or a restart ends it); `ignore` never acts on the detection.
          const Time end = p_.fail_slow_duration_s > 0 ? draw_after(slow_rng_, now, 1.0 / p_.fail_slow_duration_s) : kNever;
          const Time detect = p_.fail_slow_policy == FailSlowPolicy::Ignore ? kNever : now + p_.fail_slow_detect;
          episodes_.push_back({detect, end, false});
          episodes_changed();
          log(now, EventKind::FailSlow, "fail_slow", p_.fail_slow_detect);
          break;
        }
        case 7: detect_slow(now, se); break;
        case 8:
          episodes_.erase(episodes_.begin() + static_cast<long>(se));
          episodes_changed();
          break;
      }
    }
    finish(now);
  }

 private:
  // ---- random arrivals ----
  static Time draw_after(Rng& rng, Time now, double rate) {
    if (rate <= 0) return kNever;
    return now + std::max<Time>(1, static_cast<Time>(rng.exponential(1.0 / rate) * kTicksPerSecond));
  }
  Time weibull_after(size_t k, Time now) {
    const double age = in_.failures.fleet_age.si();
    const double t = p_.weibull_tables[k].next(seconds_of(now) + age, weibull_cum_[k],
                                                weibull_rngs_[k].exponential(1.0), &weibull_cum_[k]) - age;
    return std::max(now + 1, static_cast<Time>(t * kTicksPerSecond));
  }

  // ---- lemon nodes, per_node model (sim/run/README.md, "Lemon nodes") ----
  // Each node's frailty bin is drawn from the fleet's distribution: the job's placement.
  int draw_bin() {
    const double u = frailty_rng_.uniform();
    const auto& bins = p_.failures.bins;
    double acc = 0;
    for (size_t b = 0; b + 1 < bins.size(); ++b)
      if (u < (acc += bins[b].mass)) return static_cast<int>(b);
    return static_cast<int>(bins.size()) - 1;
  }
  void draw_nodes() {
    local_ = p_.failures;
    fm_ = &local_;
    const auto n = static_cast<size_t>(local_.nodes);
    members_.assign(local_.bins.size(), {});
    bin_of_.resize(n);
    pos_.resize(n);
    for (size_t i = 0; i < n; ++i) add_node(static_cast<int>(i), draw_bin());
    keep_ = std::max(0, in_.failures.lemon_retirement.after_failures);
    window_ = ticks(in_.failures.lemon_retirement.window);
    history_.assign(n * static_cast<size_t>(keep_), kNoFailure);
    out_.lemon_nodes_start = lemon_nodes();
    recount();
  }
  void add_node(int node, int bin) {
    bin_of_[static_cast<size_t>(node)] = bin;
    pos_[static_cast<size_t>(node)] = static_cast<int>(members_[static_cast<size_t>(bin)].size());
    members_[static_cast<size_t>(bin)].push_back(node);
  }
  [[nodiscard]] int lemon_nodes() const {
    int n = 0;
    for (size_t b = 0; b < members_.size(); ++b)
      if (p_.failures.bins[b].lemon) n += static_cast<int>(members_[b].size());
    return n;
  }
  // Class counts from the nodes now in each bin, then the summed rates.
  void recount() {
    for (auto& c : local_.classes)
      if (c.bin >= 0) c.count = static_cast<double>(members_[static_cast<size_t>(c.bin)].size()) * c.per_node;
    sum_rates(local_);
  }
  // A failure of a split class: which node of its bin failed (uniform: equal hazards within a
  // bin), and its retirement after `after_failures` failures within `window`.
  void node_failed(Time now, int bin) {
    const auto& mem = members_[static_cast<size_t>(bin)];
    if (mem.empty() || keep_ == 0) return;
    const auto j = std::min(mem.size() - 1, static_cast<size_t>(frailty_rng_.uniform() * static_cast<double>(mem.size())));
    const int node = mem[j];
    Time* h = &history_[static_cast<size_t>(node) * static_cast<size_t>(keep_)];
    std::move(h + 1, h + keep_, h);  // the last `keep_` failure times, oldest first
    h[keep_ - 1] = now;
    if (h[0] != kNoFailure && now - h[0] <= window_) retire(now, node);
  }
  void retire(Time now, int node) {
    const auto n = static_cast<size_t>(node);
    auto& mem = members_[static_cast<size_t>(bin_of_[n])];
    const int last = mem.back();
    mem[static_cast<size_t>(pos_[n])] = last;
    pos_[static_cast<size_t>(last)] = pos_[n];
    mem.pop_back();
    ++out_.retired_nodes;
    if (p_.failures.bins[static_cast<size_t>(bin_of_[n])].lemon) ++out_.retired_lemon_nodes;
    retired_at_sum_ += seconds_of(now);
    add_node(node, draw_bin());  // the replacement: a node from the fleet, with its own frailty
    std::fill_n(&history_[n * static_cast<size_t>(keep_)], keep_, kNoFailure);
    recount();
    next_exp_ = draw_after(arrivals_, now, fm_->exp_rate);  // memoryless: only the rate changed
  }

  // ---- progress ----
  [[nodiscard]] double capacity() const {
    if (!p_.replica_mode) return 1.0;
    return static_cast<double>(p_.dp - static_cast<int>(rejoins_.size())) / p_.dp;
  }
  [[nodiscard]] bool unmitigated_slow() const { return unmitigated_ > 0; }
  // After any change to episodes_: the count of unmitigated ones and the next episode event (a
  // scan over the episodes in the job, instead of one at every event).
  void episodes_changed() {
    unmitigated_ = 0;
    next_episode_ = episodes_.size();
    next_episode_time_ = kNever;
    for (size_t k = 0; k < episodes_.size(); ++k) {
      if (!episodes_[k].rebalanced) ++unmitigated_;
      if (episodes_[k].detect < next_episode_time_) {
        next_episode_time_ = episodes_[k].detect;
        next_episode_ = k;
        next_episode_what_ = 7;
      }
      if (episodes_[k].end < next_episode_time_) {
        next_episode_time_ = episodes_[k].end;
        next_episode_ = k;
        next_episode_what_ = 8;
      }
    }
  }
  [[nodiscard]] double rate() const {
    if (episodes_.empty()) return p_.iter_rate;
    return unmitigated_slow() ? p_.iter_rate_slow : p_.iter_rate_rebalanced;
  }
  // Integral of the throughput hook from 0 to t, in seconds (t without a hook).
  [[nodiscard]] double hook_integral(double t) const {
    if (!in_.throughput_factor) return t;
    static const std::vector<double> kNone;
    const auto& g = p_.hook_integral ? *p_.hook_integral : kNone;
    const double h = Prepared::kHookStep;
    if (!(t > 0.0)) return 0.0;  // times are never negative; never index with one
    const double cells = t / h;
    const size_t last = g.empty() ? 0 : g.size() - 1;
    if (cells < static_cast<double>(last)) {
      const auto i = static_cast<size_t>(cells);
      return g[i] + (g[i + 1] - g[i]) * (cells - static_cast<double>(i));
    }
    double sum = g.empty() ? 0.0 : g[last];  // past the table: call the hook step by step
    for (double x = static_cast<double>(last) * h; x < t;) {
      const double y = std::min(t, x + h);
      sum += (y - x) * in_.throughput_factor(Seconds(0.5 * (x + y)));
      x = y;
    }
    return sum;
  }
  [[nodiscard]] double factor_integral(Time a, Time b) const {
    if (!in_.throughput_factor) return seconds_of(b - a);
    return hook_integral(seconds_of(b)) - hook_integral(seconds_of(a));
  }
  // First time after a at which factor_integral(a, .) * r reaches `need` (need > 0, r > 0).
  [[nodiscard]] Time solve_work(Time a, Time b, double need, double r) const {
    if (!in_.throughput_factor) {
      const double dt = std::ceil(need / r * kTicksPerSecond);
      if (!(dt < static_cast<double>(b - a))) return b;  // also when dt is not finite
      return a + std::max<Time>(0, static_cast<Time>(dt));
    }
    const double target = hook_integral(seconds_of(a)) + need / r;
    Time lo = a, hi = b;  // the integral is nondecreasing: bisect on microseconds
    while (hi - lo > 1) {
      const Time mid = lo + (hi - lo) / 2;
      (hook_integral(seconds_of(mid)) < target ? lo : hi) = mid;
    }
    return hi;
  }
  [[nodiscard]] double done_work() const {
    return durable_ + pending_work_ + (has_inflight_ ? inflight_work_ : 0.0);
  }

  // Moves the job from a to b; returns b, or earlier when the token target is reached.
  Time advance(Time a, Time b) {
    if (down_) {
      account_outage(a, b);
      return b;
    }
    while (a < b) {
      if (has_inflight_ && durable_at_ <= a) commit_inflight(durable_at_);
      if (in_stall_) {
        const Time e = std::min(b, stall_end_);
        acc_[kStalls] += seconds_of(e - a);
        state(a, e, "checkpoint_write");
        a = e;
        if (a == stall_end_) end_stall(a);
        continue;
      }
      Time e = std::min(b, next_stall_);
      if (has_inflight_) e = std::min(e, durable_at_);
      const double cap = capacity();
      const double r = rate() * cap;
      double w = r > 0 ? factor_integral(a, e) * r : 0.0;
      bool reached = false;
      if (p_.target_iterations > 0 && r > 0 && done_work() + w >= p_.target_iterations) {
        e = std::max(a, solve_work(a, e, p_.target_iterations - done_work(), r));
        w = p_.target_iterations - done_work();
        reached = true;
      }
      const double dt = seconds_of(e - a);
      pending_work_ += w;
      pending_compute_ += dt * cap;
      acc_[kDegraded] += dt * (1.0 - cap);
      if (!episodes_.empty()) {
        if (unmitigated_slow()) out_.slow_hours += dt / 3600.0;
        out_.fail_slow_lost_hours += dt * cap * (1.0 - rate() / p_.iter_rate) / 3600.0;
      }
      state(a, e, "training");
      a = e;
      if (reached) {
        finished_ = true;
        return a;
      }
      if (has_inflight_ && a == durable_at_) commit_inflight(a);
      if (a == next_stall_) {
        in_stall_ = true;
        stall_end_ = a + p_.stall;
      }
    }
    return a;
  }

  void end_stall(Time t) {
    in_stall_ = false;
    if (has_inflight_) commit_inflight(t);
    if (p_.persist == 0) {
      durable_ += pending_work_;
      productive_ += pending_compute_;
      pending_work_ = pending_compute_ = 0;
      log(t, EventKind::CheckpointDurable, "checkpoint", p_.stall);
      next_stall_ = t + p_.interval;
    } else {
      has_inflight_ = true;
      inflight_work_ = pending_work_;
      inflight_compute_ = pending_compute_;
      pending_work_ = pending_compute_ = 0;
      durable_at_ = t + p_.persist;
      next_stall_ = std::max(t + p_.interval, durable_at_);
    }
  }
  void commit_inflight(Time t) {
    durable_ += inflight_work_;
    productive_ += inflight_compute_;
    inflight_work_ = inflight_compute_ = 0;
    has_inflight_ = false;
    log(t, EventKind::CheckpointDurable, "checkpoint", p_.stall);
  }
  void commit_all() {
    if (has_inflight_) {
      durable_ += inflight_work_;
      productive_ += inflight_compute_;
      has_inflight_ = false;
      inflight_work_ = inflight_compute_ = 0;
    }
    durable_ += pending_work_;
    productive_ += pending_compute_;
    pending_work_ = pending_compute_ = 0;
  }
  void lose_work() {
    acc_[kLostWork] += pending_compute_ + (has_inflight_ ? inflight_compute_ : 0.0);
    pending_work_ = pending_compute_ = inflight_work_ = inflight_compute_ = 0;
    has_inflight_ = false;
    commit_at_ = kNever;
  }

  // ---- outages ----
  struct Phase { Acc acc; Time end; };
  // Starts an outage at `now` made of (phase, duration) steps.
  Time start_outage(Time now, std::initializer_list<std::pair<Acc, Time>> steps, bool pause) {
    down_ = true;
    pause_ = pause;
    in_stall_ = false;
    outage_.clear();
    Time t = now;
    for (const auto& [acc, d] : steps) {
      t += std::max<Time>(0, d);
      outage_.push_back({acc, t});
    }
    outage_start_ = now;
    outage_end_ = t;
    return t - now;
  }
  void account_outage(Time a, Time b) {
    Time start = outage_start_;
    for (const auto& ph : outage_) {
      const Time lo = std::max(a, start), hi = std::min(b, ph.end);
      if (hi > lo) acc_[ph.acc] += seconds_of(hi - lo);
      state(lo, hi, kAccNames[static_cast<size_t>(ph.acc)], outage_cause_);
      start = ph.end;
    }
    if (commit_at_ <= b) {
      commit_all();
      commit_at_ = kNever;
    }
  }
  void end_outage(Time now) {
    down_ = false;
    if (pause_) {
      next_stall_ = now + remaining_to_stall_;
      if (has_inflight_) next_stall_ = std::max(next_stall_, durable_at_);
    } else {
      next_stall_ = now + p_.interval;
      log(now, EventKind::Restart, "restart", 0);
    }
    pause_ = false;
    if (pending_planned_) {
      pending_planned_ = false;
      start_planned(now);
    }
  }

  // A full restart clears replica and fail-slow state: health checks on restart catch slow nodes.
  void reset_job_state() {
    while (!rejoins_.empty()) rejoins_.pop();
    episodes_.clear();
    episodes_changed();
  }

  void failure(Time now, const FailureClass& c) {
    ++out_.unexpected;
    ++class_failures_[static_cast<size_t>(&c - fm_->classes.data())];  // by_cause at finish()
    if (c.lemon) ++out_.lemon_failures;
    if (c.bin >= 0 && fm_ == &local_) node_failed(now, c.bin);
    const Time detect = c.mode == FailureMode::Hang ? p_.detect_hang : p_.detect_crash;
    const bool replica = p_.replica_mode && c.scope != ComponentScope::Job && (!down_ || pause_);
    if (replica) {
      replica_failure(now, c, detect);
      return;
    }
    if (trace_) {  // the compute about to be rolled back, drawn back from the interruption
      const double lost = pending_compute_ + (has_inflight_ ? inflight_compute_ : 0.0);
      if (lost > 0)
        out_.timeline.push_back({Seconds(seconds_of(now) - lost), Seconds(seconds_of(now)), phase::kLostWork, c.name});
    }
    lose_work();
    reset_job_state();
    const Time ready = now + detect + p_.diagnosis;
    Time resched = 0, wait = 0;
    if (in_.recovery.policy == RestartPolicy::FullRestart) {
      resched = p_.resched_wait;
    } else if (c.nodes_lost > 0) {
      if (pool_.has_pool()) {
        wait = pool_.acquire(c.nodes_lost, now, ready, ready + p_.resched_wait - p_.resched_spare) - ready;
        resched = p_.resched_spare;
      } else {
        resched = p_.resched_wait;
      }
    }
    const Time d = start_outage(now, {{kDetection, detect}, {kDiagnosis, p_.diagnosis}, {kWaiting, wait},
                                      {kRescheduling, resched}, {kRestart, p_.restart_full}}, false);
    log(now, EventKind::Failure, c.name, d);
  }

  // FT-HSDP (Salpekar et al., arXiv 2602.00277): the failed data-parallel replica drops out; the
  // others pause for detection + reconfiguration, keep their state (no rollback), and continue
  // at (dp - out)/dp of the throughput until the replica rejoins with its state from its peers.
  void replica_failure(Time now, const FailureClass& c, Time detect) {
    if (!down_) {
      remaining_to_stall_ = in_stall_ ? 0 : next_stall_ - now;  // an interrupted stall is redone
    }
    const Time ready = now + detect + p_.diagnosis;
    Time back = ready;
    if (c.nodes_lost > 0)
      back = pool_.has_pool() ? pool_.acquire(c.nodes_lost, now, ready, ready + p_.resched_wait - p_.resched_spare) +
                                    p_.resched_spare
                              : ready + p_.resched_wait;
    if (static_cast<int>(rejoins_.size()) < p_.dp) rejoins_.push(back + p_.restart_replica);
    const Time d = start_outage(now, {{kDetection, detect}, {kRestart, p_.replica_reconfigure}}, true);
    log(now, EventKind::Failure, c.name, d);
  }

  void planned(Time now) {
    ++out_.planned;
    if (down_) {
      pending_planned_ = true;  // done when the job is back: one more restart
      return;
    }
    start_planned(now);
  }
  // Planned maintenance: a synchronous checkpoint first (no lost work), then the downtime, then a
  // restart (research note §1.6 item 5).
  void start_planned(Time now) {
    reset_job_state();
    commit_at_ = now + p_.sync_stall;
    const Time d = start_outage(now, {{kStalls, p_.sync_stall}, {kPlanned, p_.planned_downtime},
                                      {kRestart, p_.restart_full}}, false);
    log(now, EventKind::Planned, "planned", d);
  }

  // A fail-slow node detected: the policy's mitigation (sim/run/README.md, "Fail-slow episodes").
  void detect_slow(Time now, size_t k) {
    if (p_.fail_slow_policy == FailSlowPolicy::Rebalance) {
      episodes_[k].rebalanced = true;
      episodes_[k].detect = kNever;
      episodes_changed();
      log(now, EventKind::FailSlow, "fail_slow_rebalanced", 0);
      return;
    }
    episodes_.erase(episodes_.begin() + static_cast<long>(k));
    episodes_changed();
    if (down_) return;  // swapped out or cleared during the outage that is already under way
    reset_job_state();
    if (p_.fail_slow_policy == FailSlowPolicy::CheckpointRestart) {
      // Checkpoint and restart in place: no spare, the restart's health checks clear the cause.
      commit_at_ = now + p_.sync_stall;
      const Time d = start_outage(now, {{kStalls, p_.sync_stall}, {kRestart, p_.restart_full}}, false);
      out_.fail_slow_outage_hours += seconds_of(d) / 3600.0;
      log(now, EventKind::Eviction, "fail_slow", d);
      return;
    }
    evict_slow(now);
  }

  // Swap: checkpoint, swap the slow node for a spare, restart.
  void evict_slow(Time now) {
    commit_at_ = now + p_.sync_stall;
    const Time ready = now + p_.sync_stall;
    const Time wait =
        pool_.has_pool() ? pool_.acquire(1, now, ready, ready + p_.resched_wait - p_.resched_spare) - ready : 0;
    const Time resched = pool_.has_pool() ? p_.resched_spare : p_.resched_wait;
    const Time d = start_outage(now, {{kStalls, p_.sync_stall}, {kWaiting, wait}, {kRescheduling, resched},
                                      {kRestart, p_.restart_full}}, false);
    out_.fail_slow_outage_hours += seconds_of(d) / 3600.0;
    log(now, EventKind::Eviction, "fail_slow", d);
  }

  void finish(Time now) {
    // The work of the last, unsaved stretch exists at the end of the run.
    productive_ += pending_compute_ + (has_inflight_ ? inflight_compute_ : 0.0);
    const double wall = seconds_of(now);
    out_.wall_clock_days = wall / 86400.0;
    out_.tokens_trained = done_work() * in_.tokens_per_iteration;
    out_.productive_hours = productive_ / 3600.0;
    out_.ettr = wall > 0 ? productive_ / wall : 0.0;
    for (int i = 0; i < kNumAcc; ++i) out_.lost_hours[kAccNames[static_cast<size_t>(i)]] = acc_[static_cast<size_t>(i)] / 3600.0;
    out_.compute_hours = (productive_ + acc_[kLostWork]) / 3600.0;
    out_.stalled_hours = wall / 3600.0 - out_.compute_hours;
    if (fm_ == &local_) {
      out_.lemon_nodes_end = lemon_nodes();
      out_.retirement_gpu_hours = in_.gpus_per_node * (out_.retired_nodes * wall - retired_at_sum_) / 3600.0;
    }
    // Interruptions by component name, counted per class during the run (split classes share a name).
    for (size_t i = 0; i < class_failures_.size(); ++i)
      if (class_failures_[i] > 0) out_.by_cause[fm_->classes[i].name] += class_failures_[i];
    log(now, EventKind::End, "end", 0);
  }

  // A string_view: most calls pass a literal, and only replication 0 keeps the text.
  void log(Time t, EventKind k, std::string_view cause, Time duration) {
    if (log_) out_.events.push_back({Seconds(seconds_of(t)), k, std::string(cause), Seconds(seconds_of(duration))});
    if (k == EventKind::Failure || k == EventKind::Planned || k == EventKind::Eviction) outage_cause_.assign(cause);
  }
  // Timeline of replication 0 (`run --trace`): contiguous stretches in one state are merged.
  void state(Time a, Time b, const char* name, const std::string& cause = std::string()) {
    if (!trace_ || b <= a) return;
    auto& tl = out_.timeline;
    const double s = seconds_of(a), e = seconds_of(b);
    if (!tl.empty() && tl.back().end.si() == s && tl.back().state == name && tl.back().cause == cause) {
      tl.back().end = Seconds(e);
      return;
    }
    tl.push_back({Seconds(s), Seconds(e), name, cause});
  }

  const Prepared& p_;
  const RunInputs& in_;
  ReplicationResult& out_;
  bool log_, trace_;
  std::string outage_cause_;
  Rng arrivals_, pick_, planned_rng_, slow_rng_, repair_rng_, frailty_rng_;
  std::vector<Rng> weibull_rngs_;
  SparePool pool_;
  // The failure classes this replication draws from: the shared ones, or under lemon_model
  // per_node its own copy whose split classes count the nodes now in each frailty bin.
  FailureModel local_;
  const FailureModel* fm_ = &p_.failures;
  static constexpr Time kNoFailure = std::numeric_limits<Time>::min() / 2;
  std::vector<std::vector<int>> members_;  // nodes of each frailty bin
  std::vector<int> bin_of_, pos_;          // a node's bin and its index in members_
  std::vector<Time> history_;              // per node, its last keep_ failure times
  int keep_ = 0;
  Time window_ = 0;
  double retired_at_sum_ = 0;              // sum of retirement times, seconds
  std::vector<int> class_failures_;        // unexpected interruptions per failure class

  Time next_exp_ = kNever, next_planned_ = kNever, next_slow_ = kNever;
  std::vector<Time> next_weibull_;
  std::vector<double> weibull_cum_;  // cumulative intensity of each Weibull class at its last arrival
  struct Episode {
    Time detect, end;      // pending detection (kNever once acted on, or under `ignore`); its own end
    bool rebalanced;       // policy rebalance: detected and worked around
  };
  std::vector<Episode> episodes_;  // fail-slow nodes in the job
  int unmitigated_ = 0;            // of which not re-balanced
  size_t next_episode_ = 0;        // index of the next detection or end (episodes_.size() if none)
  Time next_episode_time_ = kNever;
  int next_episode_what_ = 7;
  std::priority_queue<Time, std::vector<Time>, std::greater<>> rejoins_;

  // running state
  bool in_stall_ = false, has_inflight_ = false, finished_ = false;
  Time stall_end_ = 0, next_stall_ = 0, durable_at_ = 0;
  double durable_ = 0, pending_work_ = 0, pending_compute_ = 0, inflight_work_ = 0, inflight_compute_ = 0;
  double productive_ = 0;
  std::array<double, kNumAcc> acc_{};

  // outage state
  bool down_ = false, pause_ = false, pending_planned_ = false;
  std::vector<Phase> outage_;
  Time outage_start_ = 0, outage_end_ = 0, commit_at_ = kNever, remaining_to_stall_ = 0;
};

}  // namespace

const char* to_string(EventKind k) {
  switch (k) {
    case EventKind::Failure: return "failure";
    case EventKind::CheckpointDurable: return "checkpoint";
    case EventKind::Restart: return "restart";
    case EventKind::Planned: return "planned";
    case EventKind::FailSlow: return "fail_slow";
    case EventKind::Eviction: return "eviction";
    case EventKind::ReplicaRejoin: return "replica_rejoin";
    case EventKind::End: return "end";
  }
  return "?";
}

ReplicationResult simulate_replication(const Prepared& p, const RunInputs& in, int replication) {
  ReplicationResult out;
  Replication(p, in, replication, out).run();
  return out;
}

}  // namespace fleetsim::run

namespace fleetsim {
// The public name declared in run_model.hpp.
const char* to_string(EventKind k) { return run::to_string(k); }
}  // namespace fleetsim
