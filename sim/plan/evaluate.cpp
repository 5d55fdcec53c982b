#include "sim/plan/evaluate.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "sim/config/scenario_tree.hpp"
#include "sim/core/error.hpp"
#include "sim/facility/power_model.hpp"
#include "sim/pipeline/run_pipeline.hpp"
#include "sim/search/search.hpp"

namespace fleetsim::plan {
namespace {

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Sizes of the candidate lists; an empty list is one "keep the base scenario's" choice.
struct Dims {
  size_t sys, gpus, fab, cool, spare, ckpt, fail;
  size_t per_group() const { return fab * cool * spare * ckpt * fail; }
  size_t total() const { return sys * gpus * per_group(); }
};

Dims dims_of(const PlanSpec& p) {
  auto n = [](size_t k) { return std::max<size_t>(1, k); };
  return {p.systems.size(), p.gpus.size(), n(p.fabrics.size()), n(p.cooling.size()), n(p.spares.size()),
          n(p.checkpoints.size()), n(p.failures.size())};
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

std::vector<std::string> system_sets(const SystemChoice& sys, int gpus) {
  return {"cluster.gpu=" + sys.gpu, "cluster.node=" + sys.node, "cluster.gpus=" + std::to_string(gpus)};
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
Scenario load_group_scenario(const config::ScenarioTree& tree, const std::vector<std::string>& sets) {
  std::optional<ConfigError> last;
  for (int tp = 8; tp >= 1; tp /= 2)
  for (int pp = 1; pp <= 64; ++pp) {
    std::vector<std::string> s = sets;
    append(s, placeholder_layout(tp, pp));
    try {
      return config::apply_sets(tree, s);
    } catch (const ConfigError& e) {
      if (e.key().rfind("workload.", 0) != 0) throw;
      last = e;
    }
  }
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
  for (size_t si = 0; si < d.sys; ++si)
    for (size_t gi = 0; gi < d.gpus; ++gi)
      for (size_t fi = 0; fi < d.fab; ++fi)
        for (size_t ci = 0; ci < d.cool; ++ci)
          for (size_t xi = 0; xi < d.spare; ++xi)
            for (size_t ki = 0; ki < d.ckpt; ++ki)
              for (size_t li = 0; li < d.fail; ++li) {
                Design x;
                x.gpu = p.systems[si].gpu;
                x.node = p.systems[si].node;
                x.gpus = p.gpus[gi];
                x.fabric = p.fabrics.empty() ? "" : p.fabrics[fi].fabric;
                x.oversubscription = p.fabrics.empty() ? 0 : p.fabrics[fi].oversubscription;
                x.cooling = p.cooling.empty() ? "" : p.cooling[ci].cooling;
                x.site = p.cooling.empty() ? "" : p.cooling[ci].site;
                x.spare_share = p.spares.empty() ? -1 : p.spares[xi];
                x.checkpoint = p.checkpoints.empty() ? "" : p.checkpoints[ki].name;
                x.failures = p.failures.empty() ? "" : p.failures[li].profile;
                x.sets = common;
                append(x.sets, system_sets(p.systems[si], p.gpus[gi]));
                append(x.sets, fabric_sets(p, fi));
                append(x.sets, cooling_sets(p, ci));
                if (!p.failures.empty()) {
                  x.sets.push_back("failures=" + p.failures[li].profile);
                  x.sets.push_back("failures.rate_scale=" + num(p.failures[li].rate_scale));
                }
                x.status = "not evaluated";
                out.push_back(std::move(x));
              }
  return out;
}

int design_group(const PlanSpec& plan, size_t i) {
  return static_cast<int>(i / dims_of(plan).per_group());
}

Evaluation evaluate_plan(const PlanSpec& p, const EvaluateOptions& options) {
  Evaluation ev;
  ev.designs = enumerate_designs(p);
  const Dims d = dims_of(p);
  const config::ScenarioTree tree = config::read_scenario_tree(p.base);
  const auto common = common_sets(p);
  const int threads = options.threads > 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());

  // Per group: the layout search, then per fabric the fastest of its best layouts. Then each
  // design's scenario (sets), built here, in order: scenario loading reads the catalog.
  std::vector<Scenario> scenarios(ev.designs.size());
  std::vector<char> to_run(ev.designs.size(), 0);
  const size_t per_group = d.per_group();
  for (size_t g = 0; g < d.sys * d.gpus; ++g) {
    const size_t first = g * per_group;
    if (static_cast<int>(g % static_cast<size_t>(options.parts)) != options.part) {
      for (size_t i = first; i < first + per_group; ++i) ev.designs[i].status = "elsewhere";
      continue;
    }
    const SystemChoice& sys = p.systems[g / d.gpus];
    const int gpus = p.gpus[g % d.gpus];
    std::vector<std::string> gsets = common;
    append(gsets, system_sets(sys, gpus));
    append(gsets, fabric_sets(p, 0));
    append(gsets, cooling_sets(p, 0));
    std::string why_not;
    std::vector<search::Evaluated> top;
    int gpn = 1;
    std::map<size_t, search::Candidate> best_for_fabric;
    std::map<std::string, Scenario> group_scenarios;
    try {
      if (!p.search_layout) {
        gpn = config::apply_sets(tree, gsets).cluster.node.gpus_per_node;  // the base's layout, checked
      } else {
        const Scenario gs = load_group_scenario(tree, gsets);
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
    for (size_t fi = 0; fi < d.fab && !top.empty(); ++fi) {
      std::vector<std::string> fs = common;
      append(fs, system_sets(sys, gpus));
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
    for (size_t i = first; i < first + per_group; ++i) {
      Design& x = ev.designs[i];
      x.gpus_per_node = gpn;
      if (!why_not.empty()) {
        x.status = why_not;
        continue;
      }
      const size_t local = i - first;
      const size_t li = local % d.fail, ki = (local / d.fail) % d.ckpt, xi = (local / d.fail / d.ckpt) % d.spare,
                   fi = local / d.fail / d.ckpt / d.spare / d.cool;
      if (p.search_layout) append(x.sets, search::to_sets(best_for_fabric.at(fi)));
      // The scenario of (fabric, cooling, failures) is resolved once per group (YAML resolution
      // is most of a design's cost otherwise); spares and checkpointing are then set on a copy,
      // field by field as the --set list below would (the re-run test checks the two agree).
      const size_t ci = (local / d.fail / d.ckpt / d.spare) % d.cool;
      const std::string key = std::to_string(fi) + "/" + std::to_string(ci) + "/" + std::to_string(li);
      auto cached = group_scenarios.find(key);
      if (cached == group_scenarios.end()) cached = group_scenarios.emplace(key, config::apply_sets(tree, x.sets)).first;
      Scenario sc = cached->second;
      const int nodes = gpus / gpn;
      if (!p.spares.empty()) {
        x.spare_nodes = static_cast<int>(std::ceil(p.spares[xi] * nodes - 1e-9));
        x.sets.push_back("recovery.policy=warm_spares");
        x.sets.push_back("recovery.spare_nodes=" + std::to_string(x.spare_nodes));
        sc.recovery.policy = RestartPolicy::WarmSpares;
        sc.recovery.spare_nodes = x.spare_nodes;
      }
      if (!p.checkpoints.empty()) {
        const CheckpointChoice& c = p.checkpoints[ki];
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
      scenarios[i] = std::move(sc);
      const Scenario& s = scenarios[i];
      x.layout = search::describe(search::from_workload(s.workload, s.cluster.gpus));
      x.oversubscription = s.cluster.fabric.oversubscription;
      if (x.fabric.empty()) x.fabric = s.cluster.fabric.name;
      if (x.cooling.empty()) x.cooling = s.facility.cooling.name;
      if (x.site.empty()) x.site = s.facility.site.name;
      if (p.spares.empty()) x.spare_nodes = s.recovery.spare_nodes;
      x.tokens = p.tokens.si();
      // A rack that is liquid-cooled by design is not paired with an air plant.
      const bool air = s.facility.cooling.kind == CoolingKind::AirChiller || s.facility.cooling.kind == CoolingKind::AirEconomizer;
      if (s.cluster.node.liquid_cooled_only && air) {
        x.status = "skipped: " + x.node + " is liquid-cooled only; " + x.cooling + " is an air plant";
        ++ev.pruned;
        continue;
      }
      // Pruning: limits known before the run model.
      if (p.gpus_max > 0 && x.gpus_bought() > p.gpus_max) {
        x.excess[static_cast<int>(Constraint::GpusMax)] = x.gpus_bought() - p.gpus_max;
        x.status = "pruned: buys " + std::to_string(x.gpus_bought()) + " GPUs > gpus_max " + std::to_string(p.gpus_max);
        ++ev.pruned;
        continue;
      }
      to_run[i] = 1;
    }
  }

  // Step time per design is cheap and known: the compute-only lower bound on days prunes designs
  // that cannot meet the deadline whatever their ETTR.
  std::vector<size_t> order;
  for (size_t i = 0; i < ev.designs.size(); ++i)
    if (to_run[i]) order.push_back(i);
  std::atomic<size_t> next{0};
  std::atomic<int> done{0}, runs{0};
  std::mutex progress_mutex;
  std::exception_ptr failure;
  auto work = [&] {
    for (;;) {
      const size_t k = next.fetch_add(1);
      if (k >= order.size()) return;
      const size_t i = order[k];
      Design& x = ev.designs[i];
      const Scenario& s = scenarios[i];
      try {
        const StepResult step = evaluate_scenario_step(s);
        const double tokens_per_s = static_cast<double>(s.workload.training.global_batch_size) *
                                    s.workload.model.seq_length / step.iteration_time.si();
        x.iteration_s = step.iteration_time.si();
        x.mfu = step.mfu;
        x.days_lower_bound = p.tokens.si() / tokens_per_s / 86400.0;
        // Designs whose compute alone misses the deadline still run: they are the cheaper
        // alternatives that tell whether the deadline binds (and by how much), and the run model
        // costs tens of milliseconds per design. Only gpus_max prunes (known exactly).
        {
          PipelineOptions po;
          po.threads = 1;
          const PipelineResult r = run_pipeline(s, po);
          ++runs;
          double days = 0, ettr = 0, pue = 0, pue_max = 0, fac_j = 0, co2 = 0, eu = 0, energy_usd = 0, peak_it = 0;
          const double n = static_cast<double>(r.run.replications.size());
          for (size_t k2 = 0; k2 < r.run.replications.size(); ++k2) {
            const auto& rep = r.run.replications[k2];
            const auto& f = r.facility[k2];
            days += rep.wall_clock_days / n;
            ettr += rep.ettr / n;
            pue += f.pue_mean / n;
            pue_max = std::max(pue_max, f.pue_max);
            fac_j += f.facility_energy.si() / n;
            co2 += f.co2.si() / n;
            eu += f.effective_utilization() / n;
            energy_usd += f.cost.si() / n;
            peak_it = std::max(peak_it, f.it_power_peak.si());
          }
          x.days = days;
          x.ettr = ettr;
          x.pue = pue;
          x.peak_it_mw = peak_it / 1e6;
          // At the meter: the job's IT peak (every GPU in its compute phase) times the worst PUE
          // of the run (the plant's overhead at that hour's load and weather).
          x.peak_facility_mw = peak_it * pue_max / 1e6;
          x.facility_mwh = fac_j / 3.6e9;
          x.mean_facility_mw = days > 0 ? x.facility_mwh / (days * 24.0) : 0;
          x.co2_t = co2 / 1e3;
          x.effective_utilization = eu;
          CostInputs ci;
          ci.nodes = s.cluster.nodes() + x.spare_nodes;
          ci.gpus = ci.nodes * s.cluster.node.gpus_per_node;
          ci.job_gpus = s.cluster.gpus;
          ci.nics = ci.nodes * s.cluster.node.nics_per_node;
          ci.switch_ports = facility::switch_count(s.cluster.fabric, ci.nics) * s.cluster.fabric.switch_radix;
          ci.design_it_power = Watts(peak_it);
          ci.cooling_kind = cooling_kind_name(s.facility.cooling.kind);
          ci.wall_clock = Seconds(days * 86400.0);
          ci.energy_cost = Dollars(energy_usd);
          ci.tokens = p.tokens.si();
          x.cost = cost_of(ci, p.prices.system(x.gpu, x.node), p.prices, p.rental_basis);
          x.evaluated = true;
          x.status = "ok";
          if (p.deadline.si() > 0) x.excess[0] = std::max(0.0, days - p.deadline.si() / 86400.0);
          if (p.facility_power_cap.si() > 0) x.excess[1] = std::max(0.0, x.peak_facility_mw - p.facility_power_cap.si() / 1e6);
          if (p.budget.si() > 0) x.excess[2] = std::max(0.0, x.cost.run_usd - p.budget.si());
        }
      } catch (const InfeasibleError& e) {
        x.status = std::string("does not run: ") + e.what();
      } catch (...) {
        std::lock_guard lock(progress_mutex);
        if (!failure) failure = std::current_exception();
        return;
      }
      const int n = ++done;
      if (options.progress) {
        std::lock_guard lock(progress_mutex);
        options.progress(n, static_cast<int>(order.size()));
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < std::min<int>(threads, static_cast<int>(order.size())); ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  ev.runs = runs;

  return ev;
}

}  // namespace fleetsim::plan
