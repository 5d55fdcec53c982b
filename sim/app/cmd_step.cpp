// `fleetsim step [SCENARIO] [--set K=V]... [--tier analytical|simgrid] [--json] [--trace FILE.json]`:
// one training iteration: time, MFU, HFU, the breakdown of the critical path, memory per GPU;
// with --trace, its timeline as a Chrome trace-event / Perfetto JSON (sim/step/trace.hpp; on the
// SimGrid tier with a track per fabric level, sim/simgrid/trace.cpp).
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "sim/app/command.hpp"
#include "sim/core/cli_guards.hpp"
#include "sim/core/error.hpp"
#include "sim/config/load.hpp"
#include "sim/pipeline/tier.hpp"
#include "sim/results/report.hpp"
#include "sim/step/slowdown.hpp"
#include "sim/step/step_model.hpp"
#include "sim/step/trace.hpp"
#include "sim/uncertainty/annotate.hpp"
#include "sim/uncertainty/user_calibration.hpp"
#include "sim/uncertainty/inputs.hpp"

namespace fleetsim::app {
namespace {

struct StepArgs {
  std::string scenario;
  std::vector<std::string> sets;
  std::string tier;
  std::string trace;
  bool json = false;
  double level = 0.8;  // of the intervals beside the headline numbers (sim/uncertainty)
  int draws = uncertainty::kDefaultInputDraws;  // of the declared uncertain inputs, if any
};

// The model-form intervals of the headline numbers and the grade (sim/uncertainty/README.md).
void print_uncertainty(const StepResult& r, const uncertainty::StepUncertainty& u,
                       const std::optional<uncertainty::StepInputSpread>& spread, std::ostream& out) {
  auto t = uncertainty::time_interval(r.iteration_time.si(), u);
  auto m = uncertainty::rate_interval(r.mfu, u);
  if (spread) {
    t = spread->combined_time;
    m = spread->combined_mfu;
  }
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "\n%.0f%% intervals (model-form error of %s%s, sim/uncertainty)\n"
                "  time of one training iteration  %.4g s  [%.4g, %.4g]\n"
                "  model FLOPs utilization         %.4f  [%.4f, %.4f]\n",
                100 * u.level, uncertainty::grade_label(u.provenance) == "calibrated (user data)" || u.provenance.why.rfind("outside the software file", 0) == 0 ? "the software file's held-out rows" : "judged published cases",
                spread ? " and the declared uncertain inputs" : "", r.iteration_time.si(), t.lo, t.hi,
                r.mfu, m.lo, m.hi);
  out << buf << "  provenance: " << uncertainty::grade_label(u.provenance) << " - " << u.provenance.why << "\n";
  out << "  judged by:";
  for (size_t i = 0; i < u.provenance.sources.size(); ++i) out << (i ? "; " : " ") << u.provenance.sources[i];
  out << "\n";
  // The fitted parameters this GPU inherits and their bootstrap spread (sim/uncertainty/README.md).
  for (const auto& p : u.parameters) {
    std::snprintf(buf, sizeof buf, "  fitted %s %.4g [%.4g, %.4g] (bootstrap of %d calibration rows, %s)\n",
                  p.name.c_str(), p.value, p.lo, p.hi, p.rows, p.family.c_str());
    out << buf;
  }
  if (!u.parameters.empty()) {
    std::snprintf(buf, sizeof buf, "  parameter term +-%.1f%% of the time, %s\n", 100 * (std::exp(u.parameter_half_width) - 1),
                  u.parameter_term_added ? "added in quadrature"
                                         : "not added: the calibrated group's residuals already hold it");
    out << buf;
  }
  if (!spread) return;
  std::snprintf(buf, sizeof buf, "  declared uncertain inputs (%d draws, seed %llu%s): iteration time [%.4g, %.4g] s from them alone\n",
                spread->draws, static_cast<unsigned long long>(spread->seed),
                spread->infeasible ? (", " + std::to_string(spread->infeasible) + " did not fit in memory").c_str() : "",
                spread->iteration_time.lo, spread->iteration_time.hi);
  out << buf;
  for (const auto& c : spread->inputs) {
    std::snprintf(buf, sizeof buf, "    %-40s %5.1f%% of the width  (%s)\n", c.key.c_str(), 100 * c.share, c.shown.c_str());
    out << buf;
  }
  std::snprintf(buf, sizeof buf, "    %-40s %5.1f%% of the width\n", u.parameter_term_added ? "model-form and parameter error" : "model-form error", 100 * spread->model_form_share);
  out << buf;
}

void print_header(const Scenario& s, const StepResult& r, std::ostream& out) {
  const auto& p = s.workload.parallel;
  const auto& t = s.workload.training;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "fleetsim step: %s\n  %s on %d x %s; TP %d, PP %d (VPP %d), CP %d, EP %d, DP %d; "
                "micro-batch %d, %d microbatches per replica; %s tier\n\n",
                s.description.c_str(), s.workload.model.name.c_str(), s.cluster.gpus,
                s.cluster.gpu.name.c_str(), p.tensor_model_parallel_size,
                p.pipeline_model_parallel_size, p.virtual_pipeline_model_parallel_size,
                p.context_parallel_size, p.expert_model_parallel_size, r.data_parallel_size,
                t.micro_batch_size, r.microbatches, r.tier.c_str());
  out << buf;
}

void step(const StepArgs& a) {
  uncertainty::check_level(a.level, "--level");
  std::vector<std::string> sets = a.sets;
  if (!a.tier.empty()) sets.push_back("step.tier=" + a.tier);
  const Scenario s = config::load_scenario(a.scenario, sets);
  if (!a.trace.empty()) guards::output_file(a.trace, "--trace", "the trace");
  const bool simgrid = s.tier != StepTier::Analytical;
  if (!a.trace.empty() && simgrid && !step::simgrid_timeline())
    throw ConfigError(s.file, "step.tier", "the simgrid tier is not available in this build; use 'analytical'");
  // With --trace the timeline's own evaluation is the result (one SimGrid run, not two).
  std::optional<step::IterationTimeline> tl;
  if (!a.trace.empty())
    tl = simgrid ? step::simgrid_timeline()(s.cluster, s.workload) : step::iteration_timeline(s.cluster, s.workload);
  const StepResult r = tl ? tl->result : evaluate_step_on_tier(s, StepOptions{});
  if (tl) {
    TraceWriter w;
    step::add_iteration_trace(*tl, s, w);
    w.write(a.trace);
    std::cerr << "trace: " << w.events() << " events written to " << a.trace << "\n";
  }
  Report report;
  add_step_metrics(r, report);
  add_slowdown_metrics(step::evaluate_slowdown(s.stragglers, s.cluster, s.workload, r), report);
  const auto u = uncertainty::scenario_step_uncertainty(s, a.level);
  // Declared uncertain inputs (sim/uncertainty/inputs.hpp): N draws re-evaluate the iteration on
  // the same tier; a draw that does not fit in memory (when the point does) is left out and counted.
  std::optional<uncertainty::StepInputSpread> spread;
  if (s.declared_inputs) {
    const bool point_fits = r.fits_in_memory;
    auto eval = [point_fits](const Scenario& x) {
      StepResult rx = evaluate_step_on_tier(x, StepOptions{});
      if (point_fits && !rx.fits_in_memory) throw InfeasibleError("does not fit");
      return rx;
    };
    const int threads = simgrid ? 1 : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    spread = uncertainty::step_input_spread(s, u, eval, a.draws, threads);
  }
  if (a.json) {
    Json j = Json::object();
    j["scenario"] = s.file;
    j["description"] = s.description;
    Json body = uncertainty::with_intervals(
        report.to_json(), {{"iteration_time_s", spread ? spread->combined_time : uncertainty::time_interval(r.iteration_time.si(), u)},
                           {"mfu", spread ? spread->combined_mfu : uncertainty::rate_interval(r.mfu, u)}});
    for (const auto& [k, v] : body.as_object()) j[k] = v;
    j["provenance"] = uncertainty::provenance_json(u.provenance);
    if (spread) j["uncertain_inputs"] = uncertainty::input_spread_json(s, *spread);
    j["parameters"] = uncertainty::parameters_json(u);
    std::cout << j.dump(2) << "\n";
    return;
  }
  print_header(s, r, std::cout);
  report.print_table(std::cout);
  print_uncertainty(r, u, spread, std::cout);
  if (!r.fits_in_memory) std::cout << "\nwarning: " << memory_error_message(s, r) << "\n";
}

}  // namespace

void add_step_command(CLI::App& app) {
  auto args = std::make_shared<StepArgs>();
  auto* c = app.add_subcommand("step", "one iteration: time, MFU, HFU, breakdown, memory per GPU");
  c->add_option("SCENARIO", args->scenario, "scenario file or name (default: llama3-405b-16k)");
  c->add_option("--set", args->sets, "override a key: --set workload.parallel.tensor_model_parallel_size=4 (repeatable)");
  c->add_option("--tier", args->tier, "step model tier (overrides step.tier)")
      ->check(CLI::IsMember({"analytical", "simgrid"}));
  c->add_flag("--json", args->json, "print the summary as JSON (DESIGN.md §5 keys)");
  c->add_option("--level", args->level, "level of the intervals beside the headline numbers, in (0, 1) (default 0.8)");
  c->add_option("--draws", args->draws, "draws of the scenario's declared uncertain inputs ({value, range}; default 1000)")
      ->check(CLI::Range(10, 100000));
  c->add_option("--trace", args->trace,
                "write the iteration's timeline as Chrome trace-event JSON (open in ui.perfetto.dev)");
  c->callback([args] { step(*args); });
}

}  // namespace fleetsim::app
