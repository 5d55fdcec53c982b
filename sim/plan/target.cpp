#include "sim/plan/target.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <functional>
#include <mutex>
#include <thread>

#include "sim/config/scenario_tree.hpp"
#include "sim/core/error.hpp"
#include "sim/facility/power_model.hpp"
#include "sim/pipeline/run_pipeline.hpp"
#include "sim/plan/cost.hpp"
#include "sim/plan/plan_load.hpp"
#include "sim/search/search.hpp"

namespace fleetsim::plan {
namespace {

struct Lever {
  std::string name;
  // Choices: label ("" = the scenario's own) and the sets that make it.
  std::vector<std::pair<std::string, std::vector<std::string>>> choices;
};

std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::vector<Lever> ettr_levers(const Scenario& s, bool with_rate_scale) {
  const double nodes = s.cluster.nodes();
  char exact[40];
  std::snprintf(exact, sizeof exact, "%.17g B/s", 25e9 * nodes);
  const std::string mem_bw = exact;   // host-memory tier, 25 GB/s per node [U]
  std::vector<Lever> l = {
      {"checkpoint", {{"", {}},
                      {"daly + async", {"checkpoint.interval=daly", "checkpoint.async=true"}},
                      {"in-memory tier (Gemini), daly", {"checkpoint.interval=daly", "checkpoint.async=true",
                                                         "checkpoint.write_time=1 s", "checkpoint.storage_bandwidth=" + mem_bw,
                                                         "checkpoint.load_bandwidth=" + mem_bw}}}},
      {"spares", {{"", {}},
                  {"1% hot spares", {"recovery.policy=warm_spares", "recovery.spare_nodes=" + std::to_string(static_cast<int>(std::ceil(0.01 * nodes)))}},
                  {"4% hot spares", {"recovery.policy=warm_spares", "recovery.spare_nodes=" + std::to_string(static_cast<int>(std::ceil(0.04 * nodes)))}}}},
      {"detection and restart", {{"", {}},
                                 {"fast (10 s detect, 2 min watchdog, 30 s diagnosis and swap, 45 s init)",
                                  {"recovery.detect_crash=10 s", "recovery.detect_hang=2 min", "recovery.diagnosis=30 s",
                                   "recovery.reschedule_spare=30 s", "recovery.init_base=45 s"}}}},
  };
  if (with_rate_scale)
    l.push_back({"failure-rate scale", {{"", {}}, {"0.5x failure rates", {"failures.rate_scale=0.5"}},
                                        {"0.25x failure rates", {"failures.rate_scale=0.25"}}}});
  return l;
}

Lever cooling_lever() {
  return {"cooling", {{"", {}},
                      {"air economizer", {"cluster.cooling=air-economizer"}},
                      {"direct liquid", {"cluster.cooling=liquid-dlc"}},
                      {"immersion", {"cluster.cooling=immersion"}}}};
}

Lever site_lever() { return {"site", {{"", {}}, {"cold site", {"facility.site=cold"}}}}; }

}  // namespace

TargetResult what_it_takes(const std::string& scenario, const std::vector<std::string>& sets, const std::string& target,
                           const std::string& prices_name, int threads) {
  TargetResult r;
  r.scenario = scenario;
  const size_t eq = target.find('=');
  const std::vector<std::string> keys = {"ettr", "mfu", "pue", "effective_utilization"};
  if (eq == std::string::npos) throw ConfigError("", "--target", "expected K=V such as ettr=0.99; K is one of ettr, mfu, pue, effective_utilization");
  r.key = target.substr(0, eq);
  if (std::find(keys.begin(), keys.end(), r.key) == keys.end())
    throw ConfigError("", "--target", "unknown factor '" + r.key + "'; choose ettr, mfu, pue or effective_utilization");
  try {
    size_t used = 0;
    r.target = std::stod(target.substr(eq + 1), &used);
    if (used != target.size() - eq - 1) throw std::invalid_argument("trailing");
  } catch (const std::exception&) {
    throw ConfigError("", "--target", "'" + target.substr(eq + 1) + "' is not a number");
  }
  const bool pue = r.key == "pue";
  if (!std::isfinite(r.target) || (pue ? r.target < 1.0 : (r.target <= 0 || r.target > 1)))
    throw ConfigError("", "--target", pue ? "a PUE target is 1 or more" : "a " + r.key + " target is in (0, 1]");
  const Prices prices = load_prices(prices_name);

  const config::ScenarioTree tree = config::read_scenario_tree(scenario);
  const Scenario base = config::apply_sets(tree, sets);
  std::vector<Lever> levers;
  if (r.key == "ettr") levers = ettr_levers(base, true);
  if (r.key == "effective_utilization") levers = ettr_levers(base, false);
  if (r.key == "mfu" || r.key == "effective_utilization") {
    search::SearchOptions so;
    so.objective = base.workload.training.train_tokens.si() > 0 ? search::Objective::TimeToTrain : search::Objective::Mfu;
    so.top = 1;
    so.threads = threads;
    so.progress = false;
    search::Space space = search::default_space(base);
    search::override_dimension(space, "chunked_loss=false");
    so.space = space;
    const search::SearchResult sr = search::run_search(base, so);
    if (!sr.top.empty()) levers.push_back({"layout", {{"", {}}, {search::describe(sr.top.front().layout), search::to_sets(sr.top.front().layout)}}});
  }
  if (r.key == "pue" || r.key == "effective_utilization") {
    levers.push_back(cooling_lever());
    levers.push_back(site_lever());
  }
  // Every combination, the scenario's own first.
  std::vector<std::vector<size_t>> combos = {{}};
  for (const auto& l : levers) {
    std::vector<std::vector<size_t>> next;
    for (const auto& c : combos)
      for (size_t k = 0; k < l.choices.size(); ++k) {
        auto n = c;
        n.push_back(k);
        next.push_back(n);
      }
    combos = next;
  }
  r.tried.resize(combos.size());
  std::vector<Scenario> scenarios(combos.size());
  for (size_t i = 0; i < combos.size(); ++i) {
    TargetCombination& t = r.tried[i];
    t.sets = sets;
    for (size_t li = 0; li < levers.size(); ++li) {
      const auto& choice = levers[li].choices[combos[i][li]];
      if (choice.first.empty()) continue;
      t.levers.push_back(levers[li].name + ": " + choice.first);
      t.sets.insert(t.sets.end(), choice.second.begin(), choice.second.end());
    }
    scenarios[i] = config::apply_sets(tree, t.sets);
  }
  const int nthreads = threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
  std::atomic<size_t> next{0};
  std::mutex m;
  std::exception_ptr failure;
  auto work = [&] {
    for (;;) {
      const size_t i = next.fetch_add(1);
      if (i >= combos.size()) return;
      try {
        const Scenario& s = scenarios[i];
        PipelineOptions po;
        po.threads = 1;
        const PipelineResult pr = run_pipeline(s, po);
        TargetCombination& t = r.tried[i];
        const double n = static_cast<double>(pr.run.replications.size());
        double days = 0, energy = 0, peak = 0;
        std::map<std::string, double> lost;
        for (size_t k = 0; k < pr.run.replications.size(); ++k) {
          t.ettr += pr.run.replications[k].ettr / n;
          days += pr.run.replications[k].wall_clock_days / n;
          for (const auto& [name, h] : pr.run.replications[k].lost_hours) lost[name] += h / n;
          t.pue += pr.facility[k].pue_mean / n;
          t.effective_utilization += pr.facility[k].effective_utilization() / n;
          energy += pr.facility[k].cost.si() / n;
          peak = std::max(peak, pr.facility[k].it_power_peak.si());
        }
        t.mfu = pr.step.mfu;
        t.value = r.key == "ettr" ? t.ettr : r.key == "mfu" ? t.mfu : r.key == "pue" ? t.pue : t.effective_utilization;
        auto worst = std::max_element(lost.begin(), lost.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
        if (worst != lost.end())
          t.largest_loss = worst->first + " " + num(worst->second) + " h of " + num(days * 24) + " h wall-clock";
        CostInputs ci;
        ci.nodes = s.cluster.nodes() + s.recovery.spare_nodes;
        ci.gpus = ci.nodes * s.cluster.node.gpus_per_node;
        ci.job_gpus = s.cluster.gpus;
        ci.nics = ci.nodes * s.cluster.node.nics_per_node;
        ci.switch_ports = facility::switch_count(s.cluster.fabric, ci.nics) * s.cluster.fabric.switch_radix;
        ci.design_it_power = Watts(peak);
        ci.cooling_kind = cooling_kind_name(s.facility.cooling.kind);
        ci.wall_clock = Seconds(days * 86400.0);
        ci.energy_cost = Dollars(energy);
        const Cost c = cost_of(ci, prices.system(s.cluster.gpu.name, s.cluster.node.name), prices, false);
        t.cost_usd = c.owned();
        t.capex_usd = c.capex();
      } catch (...) {
        std::lock_guard lock(m);
        if (!failure) failure = std::current_exception();
        return;
      }
    }
  };
  std::vector<std::thread> pool;
  for (int k = 1; k < std::min<int>(nthreads, static_cast<int>(combos.size())); ++k) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);

  r.baseline = r.tried.front();
  auto reaches = [&](const TargetCombination& t) { return pue ? t.value <= r.target : t.value >= r.target; };
  std::optional<size_t> best;
  for (size_t i = 0; i < r.tried.size(); ++i) {
    if (!reaches(r.tried[i])) continue;
    const auto& a = r.tried[i];
    if (!best || a.cost_usd < r.tried[*best].cost_usd ||
        (a.cost_usd == r.tried[*best].cost_usd && a.levers.size() < r.tried[*best].levers.size()))
      best = i;
  }
  r.reached = best.has_value();
  if (!best) {
    size_t closest = 0;
    for (size_t i = 1; i < r.tried.size(); ++i)
      if (pue ? r.tried[i].value < r.tried[closest].value : r.tried[i].value > r.tried[closest].value) closest = i;
    best = closest;
    const auto& c = r.tried[closest];
    r.why_not = "no combination of the levers reaches " + r.key + " " + num(r.target) + "; the closest reaches " +
                num(c.value) + " (" + num(std::abs(r.target - c.value)) + " short)";
    if (r.key == "ettr" || r.key == "effective_utilization")
      r.why_not += "; its largest remaining loss is " + c.largest_loss;
    if (r.key == "mfu") r.why_not += "; the layout search's best layout is the ceiling of the step model on this cluster";
    if (r.key == "pue") r.why_not += "; the plant's fixed, proportional and fan/pump losses remain at any weather";
  }
  r.best = *best;
  return r;
}

Json to_json(const TargetResult& r) {
  auto combo = [](const TargetCombination& t) {
    Json j = Json::object();
    Json l = Json::array();
    for (const auto& s : t.levers) l.push_back(s);
    j["levers"] = l;
    Json sets = Json::array();
    for (const auto& s : t.sets) sets.push_back(s);
    j["sets"] = sets;
    j["value"] = t.value;
    j["ettr"] = t.ettr;
    j["mfu"] = t.mfu;
    j["pue"] = t.pue;
    j["effective_utilization"] = t.effective_utilization;
    j["cost_usd"] = t.cost_usd;
    j["capex_usd"] = t.capex_usd;
    j["largest_loss"] = t.largest_loss;
    return j;
  };
  Json j = Json::object();
  j["scenario"] = r.scenario;
  j["key"] = r.key;
  j["target"] = r.target;
  j["reached"] = r.reached;
  j["baseline"] = combo(r.baseline);
  j["best"] = combo(r.tried[r.best]);
  j["why_not"] = r.why_not;
  j["combinations"] = static_cast<long long>(r.tried.size());
  Json root = Json::object();
  root["target"] = j;
  return root;
}

void print_target(const TargetResult& r, std::ostream& out) {
  const auto& b = r.tried[r.best];
  out << "fleetsim plan --target " << r.key << "=" << num(r.target) << " " << r.scenario << ": " << r.tried.size()
      << " combinations of the levers through the whole pipeline\n";
  out << "  the scenario as it is: " << r.key << " " << num(r.baseline.value) << ", run cost " << num(r.baseline.cost_usd / 1e6)
      << " MUSD (owned)\n";
  out << (r.reached ? "  cheapest combination that reaches it: " : "  NOT REACHED; closest combination: ") << r.key << " "
      << num(b.value) << ", run cost " << num(b.cost_usd / 1e6) << " MUSD, capex " << num(b.capex_usd / 1e6) << " MUSD\n";
  if (b.levers.empty()) out << "    (no lever changed)\n";
  for (const auto& l : b.levers) out << "    " << l << "\n";
  out << "  ETTR " << num(b.ettr) << ", MFU " << num(b.mfu) << ", PUE " << num(b.pue) << ", effective utilization "
      << num(b.effective_utilization) << "\n";
  if (!r.reached) out << "  why not: " << r.why_not << "\n";
  out << "  reproduce: fleetsim run " << r.scenario;
  for (const auto& s : b.sets) out << " --set '" << s << "'";
  out << "\n";
}

}  // namespace fleetsim::plan
