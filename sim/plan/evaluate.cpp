#include "sim/plan/evaluate.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "sim/config/schema.hpp"
#include "sim/config/scenario_tree.hpp"
#include "sim/core/error.hpp"
#include "sim/core/workers.hpp"
#include "sim/plan/design_run.hpp"
#include "sim/search/search.hpp"
#include "sim/uncertainty/features.hpp"

namespace fleetsim::plan {
namespace {

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Sizes of the candidate lists; an empty list is one "keep the base scenario's" choice.
// A group is one system x GPU count x precision: one layout search.
struct Dims {
  size_t sys, gpus, prec, fab, cool, spare, ckpt, fail;
  size_t groups() const { return sys * gpus * prec; }
  size_t per_group() const { return fab * cool * spare * ckpt * fail; }
  size_t total() const { return groups() * per_group(); }
};

Dims dims_of(const PlanSpec& p) {
  auto n = [](size_t k) { return std::max<size_t>(1, k); };
  return {p.systems.size(), p.gpus.size(), n(p.precisions.size()), n(p.fabrics.size()), n(p.cooling.size()),
          n(p.spares.size()), n(p.checkpoints.size()), n(p.failures.size())};
}

// The choices of design `local` inside its group (the enumeration's inner order).
struct Local {
  size_t fi, ci, xi, ki, li;
};
Local local_of(const Dims& d, size_t local) {
  return {local / d.fail / d.ckpt / d.spare / d.cool, (local / d.fail / d.ckpt / d.spare) % d.cool,
          (local / d.fail / d.ckpt) % d.spare, (local / d.fail) % d.ckpt, local % d.fail};
}

// Sets every design shares: the model, the tokens, the replications and the seed.
std::vector<std::string> common_sets(const PlanSpec& p) {
  std::vector<std::string> s;
  if (!p.model.empty()) s.push_back("workload.model=" + p.model);
  s.push_back("workload.training.train_tokens=" + num(p.tokens.si()) + " tokens");
  s.push_back("run.replications=" + std::to_string(p.replications));
  s.push_back("run.seed=" + std::to_string(p.seed));
  return s;
}

// The sets of a group: system, count and (when the plan lists precisions) precision.
std::vector<std::string> system_sets(const PlanSpec& p, size_t g) {
  const Dims d = dims_of(p);
  const SystemChoice& sys = p.systems[g / d.prec / d.gpus];
  std::vector<std::string> s = {"cluster.gpu=" + sys.gpu, "cluster.node=" + sys.node,
                                "cluster.gpus=" + std::to_string(p.gpus[(g / d.prec) % d.gpus])};
  if (!p.precisions.empty()) s.push_back("workload.training.precision=" + p.precisions[g % d.prec].precision);
  return s;
}

std::vector<std::string> fabric_sets(const PlanSpec& p, size_t i) {
  if (p.fabrics.empty()) return {};
  const auto& f = p.fabrics[i];
  std::vector<std::string> s = {"cluster.fabric=" + f.fabric};
  if (f.oversubscription > 0) s.push_back("cluster.fabric.oversubscription=" + num(f.oversubscription));
  return s;
}

std::vector<std::string> cooling_sets(const PlanSpec& p, size_t i) {
  if (p.cooling.empty()) return {};
  return {"cluster.cooling=" + p.cooling[i].cooling, "facility.site=" + p.cooling[i].site};
}

void append(std::vector<std::string>& a, const std::vector<std::string>& b) { a.insert(a.end(), b.begin(), b.end()); }

// A layout that passes the scenario checks, for loading a system x count before its search:
// TP `tp`, PP `pp`, everything else off. The search replaces it.
std::vector<std::string> placeholder_layout(int tp, int pp) {
  const std::string P = "workload.parallel.";
  return {P + "tensor_model_parallel_size=" + std::to_string(tp), P + "pipeline_model_parallel_size=" + std::to_string(pp),
          P + "virtual_pipeline_model_parallel_size=1", P + "context_parallel_size=1", P + "expert_model_parallel_size=1",
          P + "pipeline_layer_split=[]", P + "zero_stage=1", P + "use_distributed_optimizer=true",
          "workload.training.micro_batch_size=1"};
}

// Loads the scenario of a system x count with a placeholder layout, trying TP = 8, 4, 2, 1 and for
// each PP = 1, 2, 3, ... up to 64 until the layout rules accept one. Throws the ConfigError of the last try when none does, and at once
// when the problem is not the layout (an unknown preset, a count the node does not divide).
// Only (TP, PP) that divide the GPU count are tried: any other is refused by the layout rules, and
// each try is a whole scenario resolution (~10 ms).
Scenario load_group_scenario(const config::ScenarioTree& tree, const std::vector<std::string>& sets, int gpus) {
  std::optional<ConfigError> last;
  for (int tp = 8; tp >= 1; tp /= 2)
  for (int pp = 1; pp <= 64; ++pp) {
    if (gpus % (tp * pp) != 0) continue;
    std::vector<std::string> s = sets;
    append(s, placeholder_layout(tp, pp));
    try {
      return config::apply_sets(tree, s);
    } catch (const ConfigError& e) {
      if (e.key().rfind("workload.", 0) != 0) throw;
      last = e;
    }
  }
  if (!last) throw ConfigError("", "cluster.gpus", std::to_string(gpus) + " GPUs are not divisible by any TP x PP of 1-8 x 1-64");
  throw *last;
}

}  // namespace

const char* constraint_name(Constraint c) {
  switch (c) {
    case Constraint::Deadline: return "deadline";
    case Constraint::FacilityPower: return "facility_power_cap";
    case Constraint::Budget: return "budget";
    case Constraint::GpusMax: return "gpus_max";
  }
  return "?";
}


std::vector<Design> enumerate_designs(const PlanSpec& p) {
  const Dims d = dims_of(p);
  std::vector<Design> out;
  out.reserve(d.total());
  const auto common = common_sets(p);
  for (size_t g = 0; g < d.groups(); ++g)
    for (size_t local = 0; local < d.per_group(); ++local) {
      const Local l = local_of(d, local);
      const SystemChoice& sys = p.systems[g / d.prec / d.gpus];
      Design x;
      x.gpu = sys.gpu;
      x.node = sys.node;
      x.gpus = p.gpus[(g / d.prec) % d.gpus];
      x.precision = p.precisions.empty() ? "" : p.precisions[g % d.prec].precision;
      x.fabric = p.fabrics.empty() ? "" : p.fabrics[l.fi].fabric;
      x.oversubscription = p.fabrics.empty() ? 0 : p.fabrics[l.fi].oversubscription;
      x.cooling = p.cooling.empty() ? "" : p.cooling[l.ci].cooling;
      x.site = p.cooling.empty() ? "" : p.cooling[l.ci].site;
      x.spare_share = p.spares.empty() ? -1 : p.spares[l.xi];
      x.checkpoint = p.checkpoints.empty() ? "" : p.checkpoints[l.ki].name;
      x.failures = p.failures.empty() ? "" : p.failures[l.li].profile;
      x.sets = common;
      append(x.sets, system_sets(p, g));
      append(x.sets, fabric_sets(p, l.fi));
      append(x.sets, cooling_sets(p, l.ci));
      if (!p.failures.empty()) {
        x.sets.push_back("failures=" + p.failures[l.li].profile);
        x.sets.push_back("failures.rate_scale=" + num(p.failures[l.li].rate_scale));
      }
      x.status = "not evaluated";
      out.push_back(std::move(x));
    }
  return out;
}

int design_group(const PlanSpec& plan, size_t i) { return static_cast<int>(i / dims_of(plan).per_group()); }

namespace {

// Inputs every design shares must be valid before any design runs: an unknown model or precision
// is the plan's error (exit 2), not a status repeated on every design.
void check_shared_inputs(const PlanSpec& p, const config::ScenarioTree& tree) {
  if (!p.model.empty()) {
    try {
      (void)config::apply_sets(tree, {"workload.model=" + p.model});
    } catch (const ConfigError& e) {
      // The base's layout may not suit the new model (the search replaces it): only the model's own key.
      if (e.key().rfind("workload.model", 0) == 0) {
        std::string why = e.message();
        if (const size_t cut = why.find(" (after --set "); cut != std::string::npos) why.resize(cut);
        throw ConfigError(p.file, "workload.model", why);
      }
    }
  }
  if (p.precisions.empty()) return;
  const config::Field* f = nullptr;
  if (const auto* w = config::scenario_schema()->find("workload"); w && w->section)
    if (const auto* t = w->section->find("training"); t && t->section) f = t->section->find("precision");
  if (!f) return;
  for (const auto& c : p.precisions)
    if (std::find(f->choices.begin(), f->choices.end(), c.precision) == f->choices.end()) {
      std::string have;
      for (const auto& x : f->choices) have += (have.empty() ? "" : ", ") + x;
      throw ConfigError(p.file, "candidates.precision", "'" + c.precision + "' is not a workload.training.precision value; choose " + have);
    }
}

// Runs fn(k) for k in [0, n) on `threads` threads (an atomic counter hands out k, so the result
// does not depend on the thread count); the first exception is rethrown after every thread stops.
template <class Fn>
void parallel_for(size_t n, int threads, Fn&& fn) {
  std::atomic<size_t> next{0};
  std::mutex m;
  std::exception_ptr failure;
  core::run_workers(std::max(1, std::min<int>(threads, static_cast<int>(n))), [&] {
    for (size_t k = next++; k < n; k = next++) {
      try {
        fn(k);
      } catch (...) {
        std::lock_guard lock(m);
        if (!failure) failure = std::current_exception();
        next = n;
      }
    }
  });
  if (failure) std::rethrow_exception(failure);
}

}  // namespace

Evaluation evaluate_plan(const PlanSpec& p, const EvaluateOptions& options) {
  Evaluation ev;
  ev.designs = enumerate_designs(p);
  const Dims d = dims_of(p);
  const config::ScenarioTree tree = config::read_scenario_tree(p.base);
  check_shared_inputs(p, tree);
  const auto common = common_sets(p);
  const int threads = options.threads > 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  const size_t per_group = d.per_group();
  Progress progress;
  progress.groups = static_cast<int>(d.groups());
  progress.designs = static_cast<int>(ev.designs.size());
  std::mutex progress_mutex;
  auto report = [&](int groups_done, int designs_done) {
    if (!options.progress) return;
    std::lock_guard lock(progress_mutex);
    progress.groups_done += groups_done;
    progress.designs_done += designs_done;
    options.progress(progress);
  };
  std::atomic<int> runs{0};

  // One group (system x count x precision) at a time: its layout search, then per fabric the
  // fastest of its best layouts, then its designs on threads. What a group shares lives only
  // while it runs (memory stays one group's).
  for (size_t g = 0; g < d.groups(); ++g) {
    const size_t first = g * per_group;
    if (static_cast<int>(g % static_cast<size_t>(options.parts)) != options.part) {
      for (size_t i = first; i < first + per_group; ++i) ev.designs[i].status = "elsewhere";
      report(1, static_cast<int>(per_group));
      continue;
    }
    std::vector<std::string> gsets = common;
    append(gsets, system_sets(p, g));
    append(gsets, fabric_sets(p, 0));
    append(gsets, cooling_sets(p, 0));
    std::string why_not;
    std::vector<search::Evaluated> top;
    int gpn = 1;
    try {
      if (!p.search_layout) {
        gpn = config::apply_sets(tree, gsets).cluster.node.gpus_per_node;  // the base's layout, checked
      } else {
        const Scenario gs = load_group_scenario(tree, gsets, p.gpus[(g / d.prec) % d.gpus]);
        gpn = gs.cluster.node.gpus_per_node;
        search::SearchOptions so;
        so.objective = search::Objective::TimeToTrain;
        so.top = p.search_top;
        so.threads = threads;
        so.progress = false;
        search::Space space = search::default_space(gs);
        // Chunked loss is a search-side memory bound the run pipeline does not apply: keep the
        // layouts `fleetsim run` accepts as they are.
        search::override_dimension(space, "chunked_loss=false");
        so.space = space;
        const search::SearchResult sr = search::run_search(gs, so);
        ++ev.layout_searches;
        top = sr.top;
        if (top.empty())
          why_not = "no layout fits in memory (" + std::to_string(sr.feasible) + " feasible of " +
                    std::to_string(sr.candidates_evaluated) + " candidates)";
      }
    } catch (const ConfigError& e) {
      // A count the node does not divide, or no layout the rules accept: this group has no design.
      if (e.key().rfind("workload.", 0) != 0 && e.key().rfind("cluster.gpus", 0) != 0) throw;
      // The key and the reason; the scenario loader's "(after --set ...)" list is the plan's own.
      std::string why = e.message();
      if (const size_t cut = why.find(" (after --set "); cut != std::string::npos) why.resize(cut);
      why_not = "no layout: " + e.key() + ": " + why;
    }
    // Best layout per fabric (re-timed on that fabric).
    std::map<size_t, search::Candidate> best_for_fabric;
    for (size_t fi = 0; fi < d.fab && !top.empty(); ++fi) {
      std::vector<std::string> fs = common;
      append(fs, system_sets(p, g));
      append(fs, fabric_sets(p, fi));
      append(fs, search::to_sets(top.front().layout));
      const Scenario s = config::apply_sets(tree, fs);
      double best = 0;
      for (const auto& e : top) {
        const search::Evaluated t = search::evaluate_candidate(s, e.layout);
        if (best_for_fabric.count(fi) == 0 || t.step.iteration_time.si() < best) {
          best = t.step.iteration_time.si();
          best_for_fabric[fi] = e.layout;
        }
      }
    }
    if (!why_not.empty()) {
      for (size_t i = first; i < first + per_group; ++i) ev.designs[i].gpus_per_node = gpn, ev.designs[i].status = why_not;
      report(1, static_cast<int>(per_group));
      continue;
    }
    // The scenario of each (fabric, cooling, failures), in order: scenario loading reads the
    // catalog. YAML resolution costs ~10 ms, more than a design's run, so with sharing on only
    // one scenario per fabric, cooling and failure profile is resolved: cooling and site make
    // `facility` and failures make `failures` (scenario_builder.cpp builds each from its own
    // section), copied into the fabric's scenario; not when the base declares uncertain inputs
    // (their draws re-build the whole scenario). Spares and checkpointing are set on a copy per
    // design, field by field as its --set list says (the re-run test checks the two agree).
    const size_t keys = d.fab * d.cool * d.fail;
    std::vector<Scenario> scenarios(keys);
    auto resolve = [&](size_t fi, size_t ci, size_t li) {
      std::vector<std::string> sets = ev.designs[first + ((fi * d.cool + ci) * d.spare * d.ckpt) * d.fail + li].sets;
      if (p.search_layout) append(sets, search::to_sets(best_for_fabric.at(fi)));
      return config::apply_sets(tree, sets);
    };
    const Scenario first_scenario = resolve(0, 0, 0);
    const bool splice = options.share_stages && !first_scenario.declared_inputs;
    for (size_t k = 0; k < keys; ++k) {
      const size_t fi = k / d.fail / d.cool, ci = (k / d.fail) % d.cool, li = k % d.fail;
      if (k == 0) scenarios[k] = first_scenario;
      else if (!splice) scenarios[k] = resolve(fi, ci, li);
      else if (ci == 0 && li == 0) scenarios[k] = resolve(fi, 0, 0);
      else {
        scenarios[k] = scenarios[fi * d.cool * d.fail];
        if (ci > 0) scenarios[k].facility = (fi == 0 && li == 0 ? resolve(0, ci, 0) : scenarios[ci * d.fail]).facility;
        if (li > 0) scenarios[k].failures = (fi == 0 && ci == 0 ? resolve(0, 0, li) : scenarios[li]).failures;
      }
    }
    // Stages shared by the designs of one fabric and cooling (design_run.hpp), on threads.
    std::vector<SharedStages> stages(options.share_stages ? d.fab * d.cool : 0);
    parallel_for(stages.size(), threads, [&](size_t k) { stages[k] = shared_stages(scenarios[k * d.fail]); });

    parallel_for(per_group, threads, [&](size_t local) {
      const size_t i = first + local;
      Design& x = ev.designs[i];
      x.gpus_per_node = gpn;
      const Local l = local_of(d, local);
      if (p.search_layout) append(x.sets, search::to_sets(best_for_fabric.at(l.fi)));
      Scenario sc = scenarios[(l.fi * d.cool + l.ci) * d.fail + l.li];
      const int nodes = sc.cluster.gpus / gpn;
      if (!p.spares.empty()) {
        x.spare_nodes = static_cast<int>(std::ceil(p.spares[l.xi] * nodes - 1e-9));
        x.sets.push_back("recovery.policy=warm_spares");
        x.sets.push_back("recovery.spare_nodes=" + std::to_string(x.spare_nodes));
        sc.recovery.policy = RestartPolicy::WarmSpares;
        sc.recovery.spare_nodes = x.spare_nodes;
      }
      if (!p.checkpoints.empty()) {
        const CheckpointChoice& c = p.checkpoints[l.ki];
        const std::string C = "checkpoint.";
        x.sets.push_back(C + "interval=" + (c.daly ? std::string("daly") : num(c.interval.si()) + " s"));
        x.sets.push_back(C + "async=" + (c.async ? "true" : "false"));
        x.sets.push_back(C + "write_time=" + num(c.write_time.si()) + " s");
        const double bw = c.in_memory ? c.in_memory_bandwidth_per_node.si() * nodes : c.storage_bandwidth.si();
        const double lbw = c.in_memory ? c.in_memory_bandwidth_per_node.si() * nodes : c.load_bandwidth.si();
        x.sets.push_back(C + "storage_bandwidth=" + num(bw) + " B/s");
        x.sets.push_back(C + "load_bandwidth=" + num(lbw) + " B/s");
        sc.checkpoint.interval_kind = c.daly ? CheckpointIntervalKind::Daly : CheckpointIntervalKind::Fixed;
        if (!c.daly) sc.checkpoint.interval = c.interval;
        sc.checkpoint.async = c.async;
        sc.checkpoint.write_time = c.write_time;
        sc.checkpoint.storage_bandwidth = BytesPerSecond(bw);
        sc.checkpoint.load_bandwidth = BytesPerSecond(lbw);
      }
      x.layout = search::describe(search::from_workload(sc.workload, sc.cluster.gpus));
      x.oversubscription = sc.cluster.fabric.oversubscription;
      if (x.fabric.empty()) x.fabric = sc.cluster.fabric.name;
      if (x.cooling.empty()) x.cooling = sc.facility.cooling.name;
      if (x.site.empty()) x.site = sc.facility.site.name;
      if (x.precision.empty()) x.precision = uncertainty::precision_name(sc.workload.training.precision);
      if (p.spares.empty()) x.spare_nodes = sc.recovery.spare_nodes;
      x.tokens = p.tokens.si();
      const bool air = sc.facility.cooling.kind == CoolingKind::AirChiller || sc.facility.cooling.kind == CoolingKind::AirEconomizer;
      if (sc.cluster.node.liquid_cooled_only && air) {
        // A rack that is liquid-cooled by design is not paired with an air plant.
        x.status = "skipped: " + x.node + " is liquid-cooled only; " + x.cooling + " is an air plant";
      } else if (p.gpus_max > 0 && x.gpus_bought() > p.gpus_max) {
        // The one limit known exactly before the run model.
        x.excess[static_cast<int>(Constraint::GpusMax)] = x.gpus_bought() - p.gpus_max;
        x.status = "pruned: buys " + std::to_string(x.gpus_bought()) + " GPUs > gpus_max " + std::to_string(p.gpus_max);
      } else {
        // Designs whose compute alone misses the deadline still run: they are the cheaper
        // alternatives that tell whether the deadline binds (and by how much).
        run_design(p, sc, options.share_stages ? &stages[l.fi * d.cool + l.ci] : nullptr, x);
        ++runs;
      }
      report(0, 1);
    });
    report(1, 0);
  }
  ev.runs = runs;
  for (const auto& x : ev.designs)
    if (x.status.rfind("skipped:", 0) == 0 || x.status.rfind("pruned:", 0) == 0) ++ev.pruned;
  return ev;
}

void require_some_valid_design(const PlanSpec& p, const Evaluation& ev) {
  std::vector<std::pair<std::string, int>> reasons;
  for (const auto& x : ev.designs) {
    // Evaluated, or pruned by gpus_max: a valid design (it answers, or misses a constraint).
    if (x.evaluated || x.status.rfind("pruned:", 0) == 0) return;
    const std::string r = x.gpu + " x " + std::to_string(x.gpus) + ": " + x.status;
    auto it = std::find_if(reasons.begin(), reasons.end(), [&](const auto& y) { return y.first == r; });
    if (it == reasons.end()) reasons.emplace_back(r, 1);
    else ++it->second;
  }
  std::string why;
  for (size_t k = 0; k < reasons.size() && k < 3; ++k)
    why += (k ? "; " : "") + std::to_string(reasons[k].second) + " design(s) " + reasons[k].first;
  if (reasons.size() > 3) why += "; and " + std::to_string(reasons.size() - 3) + " more reasons";
  throw ConfigError(p.file, "candidates", "none of the " + std::to_string(ev.designs.size()) +
                                              " designs can be evaluated (invalid input, not an unmet constraint): " + why);
}

}  // namespace fleetsim::plan
