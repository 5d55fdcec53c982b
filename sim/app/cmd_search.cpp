// `fleetsim search [SCENARIO]`: the best parallel layouts for the scenario's model on its cluster
// (analytical tier), the scenario's own layout for comparison, and why the pick differs.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <memory>
#include <thread>

#include "sim/app/command.hpp"
#include "sim/core/cli_guards.hpp"
#include "sim/config/load.hpp"
#include "sim/core/error.hpp"
#include "sim/mpi/search.hpp"
#include "sim/mpi/world.hpp"
#include "sim/pipeline/tier.hpp"
#include "sim/search/report.hpp"
#include "sim/search/search.hpp"
#include "sim/uncertainty/annotate.hpp"
#include "sim/uncertainty/compare.hpp"
#include "sim/uncertainty/inputs.hpp"

namespace fleetsim::app {
namespace {

struct SearchArgs {
  std::string scenario;
  std::vector<std::string> sets;
  std::vector<std::string> space;
  int top = 5;
  std::string objective = "mfu";
  std::string verify;
  int threads = 0;
  bool json = false;
  double level = 0.8;           // of the intervals (sim/uncertainty)
  std::string rank_by = "point";  // or pNN: re-rank the top K by the NN-th percentile of the time
};

// "point" -> 0; "p90" -> 0.9; anything else is a ConfigError naming --rank-by.
double parse_rank_by(const std::string& v) {
  if (v == "point") return 0;
  if (v.size() >= 2 && v[0] == 'p') {
    char* end = nullptr;
    const double pct = std::strtod(v.c_str() + 1, &end);
    if (end && *end == '\0' && pct >= 50 && pct < 100) return pct / 100;
  }
  throw ConfigError("", "--rank-by", "'" + v + "' is not valid; use point or a pessimistic percentile p50..p99 (e.g. p90)");
}

// The model-form uncertainty of one layout's step time (sim/uncertainty).
uncertainty::StepUncertainty layout_uncertainty(const Scenario& s, const search::Candidate& c, double level) {
  const auto f = uncertainty::with_layout(uncertainty::step_features(s), c.tp, c.pp, c.cp);
  return uncertainty::step_uncertainty(f, uncertainty::shipped_step_residuals(), level);
}

// Draws of the declared uncertain inputs per reported layout: the iteration's spread over them is
// stable to a few percent of its width at this count (the step command's default is 1000 for one
// scenario; a search reports up to --top layouts plus the scenario's own).
constexpr int kSearchInputDraws = 200;

// Beside each layout's iteration_time_s and mfu: <key>_interval, its provenance, and (top
// layouts) the probability it is truly faster than the scenario's own layout.
Json annotate_layout(const Json& obj, const search::Evaluated& e, const uncertainty::StepUncertainty& u,
                     const search::SearchResult& r, const uncertainty::StepUncertainty* base_u) {
  Json j = uncertainty::with_intervals(obj, {{"iteration_time_s", uncertainty::time_interval(e.step.iteration_time.si(), u)},
                                             {"mfu", uncertainty::rate_interval(e.step.mfu, u)}});
  j["provenance"] = uncertainty::provenance_json(u.provenance);
  if (base_u)
    j["probability_beats_baseline"] = uncertainty::probability_faster(
        e.step.iteration_time.si(), u, r.baseline->step.iteration_time.si(), *base_u);
  return j;
}

void run(const SearchArgs& a) {
  // Arguments first: a bad flag is reported before any work.
  if (a.top < 1) throw ConfigError("", "--top", "must be at least 1, got " + std::to_string(a.top));
  // Every reported layout is timed again on each rank's merge and, with --verify, on SimGrid.
  guards::count(a.top, "--top", 1, 1000, "layouts to report");
  const search::Objective objective = search::parse_objective(a.objective);
  if (!a.verify.empty()) {
    if (a.verify != "simgrid")
      throw ConfigError("", "--verify", "unknown tier '" + a.verify + "'; the only tier to verify on is simgrid");
    if (!simgrid_tier_available())
      throw ConfigError("", "--verify", "the SimGrid tier is not available in this build; drop --verify");
  }
  if (a.threads < 0) throw ConfigError("", "--threads", "must be 0 (all cores) or more");
  guards::count(a.threads, "--threads", 0, 1024, "worker threads");  // as run, pool and sweep
  uncertainty::check_level(a.level, "--level");
  const double rank_q = parse_rank_by(a.rank_by);
  search::Space checked;
  for (const auto& spec : a.space) search::override_dimension(checked, spec);
  const Scenario s = config::load_scenario(a.scenario, a.sets);
  search::Space space = search::default_space(s);
  for (const auto& spec : a.space) search::override_dimension(space, spec);

  search::SearchOptions opt;
  opt.top = a.top;
  opt.objective = objective;
  opt.threads = a.threads;
  opt.space = space;
  // Under mpirun the layout groups are split over the ranks; rank 0 merges and reports.
  const mpi::World world = mpi::init();
  if (world.size > 1 && opt.threads <= 0)
    opt.threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / world.local_size);
  search::SearchResult r = mpi::run_search_on_ranks(s, opt);
  if (!world.root()) return;
  if (!a.verify.empty()) search::verify_on_simgrid(s, r);
  // Model-form intervals (sim/uncertainty): with --rank-by pNN the reported top K are re-ranked
  // by that percentile of their true time (a stable sort: ties keep the search's order).
  // Declared uncertain inputs (sim/uncertainty/inputs.hpp), as `step` and `run` draw them: each
  // reported layout's iteration is re-evaluated on kSearchInputDraws draws, and the drawn range's
  // log half-width joins the model-form one in quadrature (independent errors, first order), so
  // the intervals, probability_beats_baseline and --rank-by include them.
  std::map<std::string, double> input_half_width;
  auto inputs_of = [&](const search::Candidate& c) {
    const std::string key = search::describe(c);
    if (auto it = input_half_width.find(key); it != input_half_width.end()) return it->second;
    std::vector<std::string> sets = a.sets;
    for (const auto& x : search::to_sets(c)) sets.push_back(x);
    const Scenario ls = config::load_scenario(a.scenario, sets);
    auto eval = [](const Scenario& x) {
      StepResult rx = evaluate_step_on_tier(x, StepOptions{});
      if (!rx.fits_in_memory) throw InfeasibleError("does not fit");
      return rx;
    };
    const int threads = a.threads > 0 ? a.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    double h = 0;
    try {
      const auto spread = uncertainty::step_input_spread(ls, layout_uncertainty(s, c, a.level), eval, kSearchInputDraws, threads);
      h = std::log(spread.iteration_time.hi / spread.iteration_time.lo) / 2;
    } catch (const InfeasibleError&) {
      h = 0;  // no draw fits: the point's interval alone (the layout fits at the values)
    }
    input_half_width[key] = h;
    return h;
  };
  auto unc = [&](const search::Evaluated& e) {
    uncertainty::StepUncertainty u = layout_uncertainty(s, e.layout, a.level);
    if (s.declared_inputs) u.half_width = std::hypot(u.half_width, inputs_of(e.layout));
    return u;
  };
  if (rank_q > 0)
    std::stable_sort(r.top.begin(), r.top.end(), [&](const search::Evaluated& x, const search::Evaluated& y) {
      return uncertainty::time_quantile(x.step.iteration_time.si(), unc(x), rank_q) <
             uncertainty::time_quantile(y.step.iteration_time.si(), unc(y), rank_q);
    });
  std::optional<uncertainty::StepUncertainty> base_u;
  if (r.baseline && r.baseline->step.fits_in_memory) base_u = unc(*r.baseline);
  if (a.json) {
    Json j = search::to_json(r, s);
    j["ranked_by"] = a.rank_by;
    if (s.declared_inputs) {
      j["uncertain_inputs"] = Json::object();
      j["uncertain_inputs"]["draws"] = kSearchInputDraws;
      j["uncertain_inputs"]["inputs"] = uncertainty::declared_inputs_json(s);
    }
    if (r.baseline) j["baseline"] = annotate_layout(j["baseline"], *r.baseline, unc(*r.baseline), r, nullptr);
    auto& top = j["top"].as_array();
    for (size_t i = 0; i < top.size() && i < r.top.size(); ++i)
      top[i] = annotate_layout(top[i], r.top[i], unc(r.top[i]), r, base_u ? &*base_u : nullptr);
    std::cout << j.dump(2) << "\n";
    return;
  }
  search::print_table(r, s, a.scenario, std::cout);
  char buf[256];
  std::snprintf(buf, sizeof buf, "\n%.0f%% intervals of the iteration time (sim/uncertainty)%s%s\n", 100 * a.level,
                rank_q > 0 ? (", top layouts ranked by " + a.rank_by + " of the time").c_str() : "",
                s.declared_inputs ? ", with the declared uncertain inputs drawn" : "");
  std::cout << buf;
  auto line = [&](const std::string& name, const search::Evaluated& e, const uncertainty::StepUncertainty& u,
                  const char* p) {
    const auto t = uncertainty::time_interval(e.step.iteration_time.si(), u);
    std::snprintf(buf, sizeof buf, "  %-10s %8.4g s  [%.4g, %.4g]  %-12s %s\n", name.c_str(),
                  e.step.iteration_time.si(), t.lo, t.hi, uncertainty::grade_name(u.provenance.grade), p);
    std::cout << buf;
  };
  if (r.baseline) line("scenario", *r.baseline, unc(*r.baseline), "");
  for (size_t i = 0; i < r.top.size(); ++i) {
    const auto u = unc(r.top[i]);
    char p[64] = "";
    if (base_u)
      std::snprintf(p, sizeof p, "P(faster than the scenario's) %.2f",
                    uncertainty::probability_faster(r.top[i].step.iteration_time.si(), u,
                                                    r.baseline->step.iteration_time.si(), *base_u));
    line("#" + std::to_string(i + 1), r.top[i], u, p);
  }
}

}  // namespace

void add_search_command(CLI::App& app) {
  auto args = std::make_shared<SearchArgs>();
  auto* c = app.add_subcommand("search", "best parallel layouts for the scenario's model and cluster, and why");
  c->add_option("SCENARIO", args->scenario, "scenario file or name (default: llama3-405b-16k)");
  c->add_option("--set", args->sets, "override a key: --set cluster.gpus=8192 (repeatable)");
  c->add_option("--top", args->top, "how many layouts to report (default 5)");
  c->add_option("--objective", args->objective, "mfu (default) or time-to-train (needs workload.training.train_tokens)");
  c->add_option("--verify", args->verify, "re-rank the top layouts on another tier: simgrid");
  c->add_option("--space", args->space,
                "replace the values of one searched dimension: --space tp=4,8 --space zero_stage=0,1 (repeatable)");
  c->add_option("--threads", args->threads, "worker threads (default: all cores)");
  c->add_flag("--json", args->json, "print the result as JSON");
  c->add_option("--level", args->level, "level of the intervals, in (0, 1) (default 0.8)");
  c->add_option("--rank-by", args->rank_by,
                "point (default) or a pessimistic percentile of the time, e.g. p90: re-ranks the reported top layouts");
  c->callback([args] { run(*args); });
}

}  // namespace fleetsim::app
