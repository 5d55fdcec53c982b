#include "sim/search/search.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <thread>

#include "sim/core/error.hpp"
#include "sim/results/progress.hpp"
#include "sim/search/explain.hpp"
#include "sim/search/feasibility.hpp"
#include "sim/step/dualpipe.hpp"
#include "sim/search/uneven_split.hpp"
#include "sim/step/memory.hpp"
#include "sim/step/pipeline_schedule.hpp"

namespace fleetsim::search {

Objective parse_objective(const std::string& name) {
  if (name == "mfu") return Objective::Mfu;
  if (name == "time-to-train") return Objective::TimeToTrain;
  throw ConfigError("", "--objective", "unknown objective '" + name + "'; choose mfu or time-to-train");
}

const char* objective_name(Objective o) { return o == Objective::Mfu ? "mfu" : "time-to-train"; }

namespace {

constexpr double kBoundSlack = 1e-9;   // relative: a bound this close to the threshold is not pruned
constexpr size_t kBatch = 64;          // candidates timed between two threshold updates

// Activations in flight depend only on (p, v, m, chunk layers); many candidates share them.
const step::InFlight& in_flight(int pp, int vpp, int m, const std::vector<int>& chunk_layers) {
  thread_local std::map<std::vector<int>, step::InFlight> cache;
  std::vector<int> key{pp, vpp, m};
  key.insert(key.end(), chunk_layers.begin(), chunk_layers.end());
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  if (cache.size() > 4096) cache.clear();
  return cache.emplace(std::move(key), step::activations_in_flight(step::PipelineSchedule(pp, vpp, m), chunk_layers))
      .first->second;
}

// The bound a candidate is pruned by: DualPipe hides communication behind compute, never
// compute, so its bound is the compute alone (sim/step/dualpipe.hpp).
double lower_bound(const WorkloadSpec& w, const step::StageCosts& sc) {
  if (w.parallel.pipeline_schedule == PipelineScheduleKind::DualPipe) return step::dualpipe_lower_bound(sc);
  return iteration_time_lower_bound(sc).si();
}

std::vector<step::StageMemory> memory_of(WorkloadSpec& w, const step::StageCosts& sc, const step::InFlight& f,
                                         int zero, bool chunked) {
  w.parallel.zero_stage = zero;
  w.parallel.use_distributed_optimizer = zero >= 1;
  // DualPipe holds two stages and PP + 1 microbatches per rank (sim/step/dualpipe.hpp).
  auto mem = w.parallel.pipeline_schedule == PipelineScheduleKind::DualPipe ? step::dualpipe_memory(w, sc)
                                                                            : step::stage_memory(w, sc, f);
  if (chunked) apply_chunked_loss(w, mem);
  return mem;
}

// Per-microbatch work of each pipeline rank (forward + backward + recomputation of its chunks).
std::vector<double> rank_work(const step::StageCosts& sc) {
  const auto& l = sc.layout;
  std::vector<double> t(static_cast<size_t>(l.pp), 0.0);
  for (int j = 0; j < l.chunks(); ++j) {
    const auto& c = sc.chunks[static_cast<size_t>(j)];
    t[static_cast<size_t>(l.rank_of_chunk(j))] += c.forward_time().si() + c.backward_time().si();
  }
  return t;
}

void set_memory(StepResult& r, const std::vector<step::StageMemory>& mem, const GpuSpec& gpu) {
  const MemoryPeak peak = peak_memory(mem);
  r.stage_memory.clear();
  for (const auto& m : mem) r.stage_memory.push_back(m.total());
  r.peak_memory_stage = peak.stage;
  r.peak_memory = mem[static_cast<size_t>(peak.stage)];
  r.memory_per_gpu = peak.bytes;
  r.usable_memory = usable_memory(gpu);
  r.fits_in_memory = r.memory_per_gpu <= r.usable_memory;
  r.memory_message = r.fits_in_memory ? std::string() : step::memory_error_message(r.peak_memory, peak.stage, gpu);
}

// Runs fn(i) for i in [0, n) on `threads` threads, indices handed out dynamically.
void parallel_for(size_t n, int threads, const std::function<void(size_t)>& fn) {
  const size_t workers = std::min(n, static_cast<size_t>(std::max(1, threads)));
  if (workers <= 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::atomic<bool> failed{false};
  auto body = [&] {
    try {
      for (size_t i = next++; i < n && !failed; i = next++) fn(i);
    } catch (...) {
      if (!failed.exchange(true)) error = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < workers; ++t) pool.emplace_back(body);
  body();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

struct Pending {
  Candidate c;
  double bound = 0;  // seconds
};

struct GroupOutcome {
  std::vector<Pending> pending;
  RejectionCounts rejected;
  long long candidates = 0, feasible = 0, dominated = 0;
};

struct Variant {
  int zero = 0;
  bool chunked = false;
};

class GroupEvaluator {
 public:
  GroupEvaluator(const Scenario& s, const Space& space)
      : s_(s), space_(space), gpu_(s.cluster.gpu), net_(s.cluster), usable_(usable_memory(s.cluster.gpu).si()) {
    // Simplest first: within one timing class the first variant that fits dominates the rest.
    for (bool chunked : space.chunked_loss)
      for (int zero : space.zero_stage) variants_.push_back({zero, chunked});
    std::stable_sort(variants_.begin(), variants_.end(), [](const Variant& a, const Variant& b) {
      return std::tie(a.chunked, a.zero) < std::tie(b.chunked, b.zero);
    });
  }

  GroupOutcome operator()(const Group& g) const {
    GroupOutcome out;
    const int kinds = (space_.balanced_splits && g.pp > 1) ? 2 : 1;
    const long long per_kind = static_cast<long long>(variants_.size());
    out.candidates = per_kind * kinds;
    if (auto reason = check_divisibility(s_, g)) {
      out.rejected.add(*reason, out.candidates);
      return out;
    }
    const int L = s_.workload.model.num_layers;
    Candidate proto;
    proto.tp = g.tp; proto.pp = g.pp; proto.vpp = g.vpp; proto.cp = g.cp; proto.ep = g.ep;
    proto.dp = s_.cluster.gpus / (g.tp * g.cp * g.pp);
    proto.micro_batch = g.micro_batch;
    proto.sequence_parallel = g.sequence_parallel;
    proto.recompute = g.recompute;
    proto.layer_split = default_split(L, g.pp, g.vpp);
    const int m = s_.workload.training.global_batch_size / (g.micro_batch * proto.dp);

    WorkloadSpec w0 = apply(proto, s_.workload);
    step::StageCosts sc0;
    try {
      sc0 = step::stage_costs(s_.cluster, w0, gpu_, net_);
    } catch (const std::exception&) {
      out.rejected.add(Reason::StepModelRejected, out.candidates);
      return out;
    }
    const step::InFlight& f0 = in_flight(g.pp, g.vpp, m, sc0.layout.chunk_layers);
    std::vector<std::vector<step::StageMemory>> mem0;
    for (const Variant& v : variants_) mem0.push_back(memory_of(w0, sc0, f0, v.zero, v.chunked));
    std::vector<size_t> all(variants_.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    emit(proto, lower_bound(w0, sc0), all, mem0, out);
    if (kinds == 1) return out;

    // Memory-balanced split: per-stage time and memory are linear in the stage's layers; the
    // slopes come from the same layout with one more layer on every stage.
    const std::vector<int> s0 = explicit_split(proto.layer_split, L, g.pp);
    Candidate plus = proto;
    plus.layer_split = s0;
    for (int& n : plus.layer_split) ++n;
    WorkloadSpec w1 = apply(plus, s_.workload);
    w1.model.num_layers = L + g.pp;
    step::StageCosts sc1;
    try {
      sc1 = step::stage_costs(s_.cluster, w1, gpu_, net_);
    } catch (const std::exception&) {
      out.rejected.add(Reason::StepModelRejected, per_kind);
      return out;
    }
    const step::InFlight& f1 = in_flight(g.pp, g.vpp, m, sc1.layout.chunk_layers);
    const auto t0 = rank_work(sc0), t1 = rank_work(sc1);
    std::vector<StageLine> time(static_cast<size_t>(g.pp)), memory(static_cast<size_t>(g.pp));
    for (size_t r = 0; r < time.size(); ++r) {
      time[r].per_layer = t1[r] - t0[r];
      time[r].fixed = t0[r] - time[r].per_layer * s0[r];
    }
    std::vector<std::pair<std::vector<int>, std::vector<size_t>>> splits;  // split -> its variants
    for (size_t i = 0; i < variants_.size(); ++i) {
      const auto mem1 = memory_of(w1, sc1, f1, variants_[i].zero, variants_[i].chunked);
      for (size_t r = 0; r < memory.size(); ++r) {
        memory[r].per_layer = mem1[r].total().si() - mem0[i][r].total().si();
        memory[r].fixed = mem0[i][r].total().si() - memory[r].per_layer * s0[r];
      }
      auto split = balanced_split(L, g.vpp, time, memory, usable_);
      if (!split) { out.rejected.add(Reason::OutOfMemory); continue; }
      if (*split == s0) { out.rejected.add(Reason::BalancedSplitSameAsEven); continue; }
      auto it = std::find_if(splits.begin(), splits.end(), [&](const auto& e) { return e.first == *split; });
      if (it == splits.end()) splits.push_back({*split, {i}});
      else it->second.push_back(i);
    }
    for (const auto& [split, members] : splits) {
      Candidate c = proto;
      c.layer_split = split;
      c.balanced_split = true;
      WorkloadSpec wb = apply(c, s_.workload);
      step::StageCosts scb;
      try {
        scb = step::stage_costs(s_.cluster, wb, gpu_, net_);
      } catch (const std::exception&) {
        out.rejected.add(Reason::StepModelRejected, static_cast<long long>(members.size()));
        continue;
      }
      const step::InFlight& fb = in_flight(g.pp, g.vpp, m, scb.layout.chunk_layers);
      std::vector<std::vector<step::StageMemory>> memb(variants_.size());
      for (size_t i : members) memb[i] = memory_of(wb, scb, fb, variants_[i].zero, variants_[i].chunked);
      emit(c, lower_bound(wb, scb), members, memb, out);
    }
    return out;
  }

 private:
  // The variants `members` of one layout (same split): those that do not fit are rejected; of
  // those that fit, the first of each timing class (no sharding / sharded optimizer: ZeRO 1-2 and
  // chunked loss do not change the step model's time, and ZeRO-3's extra gathers never make it
  // faster, so the lowest stage that fits is the fastest) is timed, the others are dominated.
  void emit(const Candidate& proto, double bound, const std::vector<size_t>& members,
            const std::vector<std::vector<step::StageMemory>>& mem, GroupOutcome& out) const {
    bool taken[2] = {false, false};
    for (size_t i : members) {
      const Variant& v = variants_[i];
      const double peak = peak_memory(mem[i]).bytes.si();
      // A NaN or infinity from the step model is its bug; never rank (or sort by) it.
      if (!std::isfinite(peak) || !std::isfinite(bound) || bound < 0) {
        out.rejected.add(Reason::StepModelRejected);
        continue;
      }
      if (peak > usable_) { out.rejected.add(Reason::OutOfMemory); continue; }
      ++out.feasible;
      const int cls = v.zero >= 1 ? 1 : 0;
      if (taken[cls]) { ++out.dominated; continue; }
      taken[cls] = true;
      Candidate c = proto;
      c.zero_stage = v.zero;
      c.chunked_loss = v.chunked;
      out.pending.push_back({std::move(c), bound});
    }
  }

  const Scenario& s_;
  const Space& space_;
  step::GpuCompute gpu_;
  step::CollectiveModel net_;
  double usable_;
  std::vector<Variant> variants_;
};

bool in_space(const Space& sp, const Candidate& c, int layers) {
  auto has = [](const auto& v, auto x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  return has(sp.tp, c.tp) && has(sp.cp, c.cp) && has(sp.pp, c.pp) && (has(sp.vpp, c.vpp) && (c.pp > 1 || c.vpp == 1)) &&
         has(sp.ep, c.ep) && has(sp.micro_batch, c.micro_batch) && has(sp.sequence_parallel, c.sequence_parallel) &&
         !(c.tp == 1 && c.sequence_parallel) && has(sp.recompute, c.recompute) && has(sp.zero_stage, c.zero_stage) &&
         !c.chunked_loss && c.layer_split == default_split(layers, c.pp, c.vpp);
}

bool ranks_before(const Evaluated& a, const Evaluated& b) {
  if (a.step.iteration_time != b.step.iteration_time) return a.step.iteration_time < b.step.iteration_time;
  return simpler(a.layout, b.layout);
}

}  // namespace

Evaluated evaluate_candidate(const Scenario& s, const Candidate& c) {
  WorkloadSpec w = apply(c, s.workload);
  Evaluated e;
  e.layout = c;
  e.step = evaluate_step(s.cluster, w);
  if (c.chunked_loss) {
    const step::GpuCompute gpu(s.cluster.gpu);
    const step::CollectiveModel net(s.cluster);
    const auto sc = step::stage_costs(s.cluster, w, gpu, net);
    const auto& l = sc.layout;
    auto mem = step::stage_memory(w, sc, in_flight(l.pp, l.vpp, l.microbatches, l.chunk_layers));
    apply_chunked_loss(w, mem);
    set_memory(e.step, mem, s.cluster.gpu);
  }
  const double tokens = s.workload.training.train_tokens.si();
  if (tokens > 0 && e.step.tokens_per_iteration.si() > 0)
    e.time_to_train = e.step.iteration_time * (tokens / e.step.tokens_per_iteration.si());
  return e;
}

Seconds iteration_time_lower_bound(const step::StageCosts& sc) {
  const auto& l = sc.layout;
  const auto work = rank_work(sc);
  const double p2p = l.pp > 1 ? sc.p2p_time.si() : 0.0;
  double fill = 0, drain = 0, best = 0;
  for (int r = 0; r < l.pp; ++r) {
    best = std::max(best, fill + l.microbatches * work[static_cast<size_t>(r)] + drain);
    // Rank r + 1's first op (chunk r + 1) waits for chunks 0..r forward; its last op (the
    // backward of chunk r + 1) is followed by the backward of chunks r..0.
    const auto& c = sc.chunks[static_cast<size_t>(r)];
    fill += c.forward_time().si() + p2p;
    drain += c.backward_time().si() + p2p;
  }
  return Seconds(best);
}

std::vector<Evaluated> merge_top(std::vector<Evaluated> all, int top) {
  std::stable_sort(all.begin(), all.end(), ranks_before);
  std::vector<Evaluated> out;
  for (auto& e : all) {
    if (out.size() >= static_cast<size_t>(std::max(0, top))) break;
    if (std::none_of(out.begin(), out.end(), [&](const Evaluated& o) { return o.layout == e.layout; }))
      out.push_back(std::move(e));
  }
  return out;
}

SearchResult run_search(const Scenario& s, const SearchOptions& opt) {
  const auto start = std::chrono::steady_clock::now();
  if (opt.top < 1) throw ConfigError("", "--top", "must be at least 1, got " + std::to_string(opt.top));
  if (opt.objective == Objective::TimeToTrain && s.workload.training.train_tokens.si() <= 0)
    throw ConfigError(s.file, "workload.training.train_tokens",
                      "the time-to-train objective needs the tokens to train, e.g. "
                      "--set workload.training.train_tokens=15.6T");
  const Space space = opt.space ? *opt.space : default_space(s);
  SearchResult res;
  res.objective = opt.objective;
  res.threads = opt.threads > 0 ? opt.threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  res.usable_memory = usable_memory(s.cluster.gpu);
  res.space = space;
  res.dualpipe = s.workload.parallel.pipeline_schedule == PipelineScheduleKind::DualPipe;

  // Phase 1: divisibility and memory of every group, in parallel, kept in group order.
  const std::vector<Group> groups = enumerate_groups(space, s.cluster.gpus);
  const GroupEvaluator evaluate_group(s, space);
  std::vector<GroupOutcome> outcomes(groups.size());
  {
    std::unique_ptr<Progress> progress;
    if (opt.progress) progress = std::make_unique<Progress>("search: feasibility", static_cast<long long>(groups.size()));
    const size_t parts = static_cast<size_t>(std::max(1, opt.parts)), part = static_cast<size_t>(std::max(0, opt.part));
    parallel_for(groups.size(), res.threads, [&](size_t i) {
      if (i % parts == part) outcomes[i] = evaluate_group(groups[i]);
      if (progress) progress->advance();
    });
  }
  RejectionCounts rejected;
  std::vector<Pending> pending;
  for (auto& o : outcomes) {
    res.candidates_evaluated += o.candidates;
    res.feasible += o.feasible;
    res.dominated += o.dominated;
    rejected.merge(o.rejected);
    for (auto& p : o.pending) pending.push_back(std::move(p));
  }
  outcomes.clear();

  // Phase 2: best-first by the bound, in fixed batches; the K-th best time prunes the rest.
  std::stable_sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) {
    if (a.bound != b.bound) return a.bound < b.bound;
    return simpler(a.c, b.c);
  });
  const size_t K = static_cast<size_t>(opt.top);
  std::vector<Evaluated> best;
  double threshold = std::numeric_limits<double>::infinity();
  {
    std::unique_ptr<Progress> progress;
    if (opt.progress) progress = std::make_unique<Progress>("search: timing", static_cast<long long>(pending.size()));
    for (size_t i = 0; i < pending.size(); i += kBatch) {
      const size_t end = std::min(pending.size(), i + kBatch);
      std::vector<size_t> todo;
      for (size_t j = i; j < end; ++j) {
        if (pending[j].bound > threshold * (1 + kBoundSlack)) ++res.pruned_by_bound;
        else todo.push_back(j);
      }
      if (todo.empty()) {  // sorted by bound: everything after is pruned too
        res.pruned_by_bound += static_cast<long long>(pending.size() - end);
        break;
      }
      std::vector<std::optional<Evaluated>> done(todo.size());
      parallel_for(todo.size(), res.threads, [&](size_t k) {
        try {
          done[k] = evaluate_candidate(s, pending[todo[k]].c);
        } catch (const ConfigError&) {
        } catch (const InfeasibleError&) {
        }
        if (progress) progress->advance();
      });
      for (auto& d : done) {
        if (d && !(std::isfinite(d->step.iteration_time.si()) && d->step.iteration_time.si() > 0)) d.reset();
        if (d) {
          ++res.timed;
          best.push_back(std::move(*d));
        } else {  // a rule of the step model the feasibility check does not mirror, or a bad number
          --res.feasible;
          rejected.add(Reason::StepModelRejected);
        }
      }
      std::stable_sort(best.begin(), best.end(), ranks_before);
      if (best.size() > K) best.resize(K);
      if (best.size() == K && opt.prune) threshold = best.back().step.iteration_time.si();
    }
  }

  // The scenario's own layout, for comparison (and ranked when the space does not contain it).
  const Candidate own = from_workload(s.workload, s.cluster.gpus);
  res.baseline_in_space = in_space(space, own, s.workload.model.num_layers);
  try {
    res.baseline = evaluate_candidate(s, own);
  } catch (const ConfigError& e) {
    res.baseline_error = e.what();
  } catch (const InfeasibleError& e) {
    res.baseline_error = e.what();
  }
  if (res.baseline && !(std::isfinite(res.baseline->step.iteration_time.si()) && res.baseline->step.iteration_time.si() > 0)) {
    res.baseline.reset();
    res.baseline_error = "the step model returned no valid iteration time for this layout";
  }
  if (res.baseline && res.baseline->step.fits_in_memory && !res.baseline_in_space) {
    bool present = std::any_of(best.begin(), best.end(), [&](const Evaluated& e) { return e.layout == own; });
    if (!present) {
      best.push_back(*res.baseline);
      std::stable_sort(best.begin(), best.end(), ranks_before);
      if (best.size() > K) best.resize(K);
    }
  }
  res.rejected = rejected.by_key();
  res.top = std::move(best);
  res.explanation = explain(res);
  res.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return res;
}

}  // namespace fleetsim::search
