// `fleetsim plan PLAN.yaml [--set K=V]... [--json] [-o out.h5]`: the cluster designs for a model,
// a token budget, a deadline, a power cap and money (sim/plan). `--target K=V SCENARIO`: what it
// takes to reach one factor on a scenario's cluster (sim/plan/target.hpp).
#include <chrono>
#include <iostream>
#include <memory>
#include <unistd.h>

#include "sim/app/command.hpp"
#include "sim/core/cli_guards.hpp"
#include "sim/core/error.hpp"
#include "sim/mpi/plan.hpp"
#include "sim/mpi/world.hpp"
#include "sim/plan/plan_load.hpp"
#include "sim/plan/plan_report.hpp"
#include "sim/plan/summary.hpp"
#include "sim/plan/target.hpp"
#include "sim/results/progress.hpp"

namespace fleetsim::app {
namespace {

struct PlanArgs {
  std::string file;
  std::vector<std::string> sets;
  std::string target;
  std::string prices = "default";
  std::string output;
  int threads = 0;
  bool json = false;
};

void run(const PlanArgs& a) {
  if (a.threads < 0) throw ConfigError("", "--threads", "must be 0 (all cores) or more");
  if (a.file.empty()) throw ConfigError("", "PLAN", "give a plan file (e.g. plan-405b-15t) or, with --target, a scenario");
  if (!a.output.empty()) guards::output_file(a.output, "-o", "the plan file");  // before the designs are run
  const mpi::World world = mpi::init();
  if (!a.target.empty()) {
    const plan::TargetResult r = plan::what_it_takes(a.file, a.sets, a.target, a.prices, a.threads);
    if (!world.root()) return;
    if (a.json) std::cout << plan::to_json(r).dump(2) << "\n";
    else plan::print_target(r, std::cout);
    return;
  }
  const plan::PlanSpec spec = plan::load_plan(a.file, a.sets);
  if (world.root())
    for (const auto& note : spec.duplicates) std::cerr << "fleetsim plan: " << note << "\n";
  plan::EvaluateOptions opt;
  opt.threads = a.threads;
  // Long plans (tens of thousands of designs) say where they stand, about twice a second at most.
  if (world.root() && isatty(STDERR_FILENO)) {
    auto last = std::make_shared<std::chrono::steady_clock::time_point>();
    opt.progress = [last](const plan::Progress& p) {
      const auto now = std::chrono::steady_clock::now();
      const bool end = p.designs_done == p.designs && p.groups_done == p.groups;
      if (!end && now - *last < std::chrono::milliseconds(500)) return;
      *last = now;
      std::cerr << "\rfleetsim plan: " << p.groups_done << " / " << p.groups << " layout groups, " << p.designs_done
                << " / " << p.designs << " designs" << std::flush;
      if (end) std::cerr << "\n";
    };
  }
  const plan::Evaluation ev = mpi::evaluate_plan_on_ranks(spec, opt);
  if (!world.root()) return;
  // Bad input (no design can be evaluated) exits 2; valid designs that miss the constraints are
  // the answer (exit 0, plan.met false).
  plan::require_some_valid_design(spec, ev);
  const plan::Summary s = plan::summarize(spec, ev.designs);
  if (!a.output.empty()) plan::write_plan_file(a.output, spec, ev, s, "fleetsim plan " + a.file);
  if (a.json) std::cout << plan::to_json(spec, ev, s).dump(2) << "\n";
  else plan::print_table(spec, ev, s, std::cout);
}

}  // namespace

void add_plan_command(CLI::App& app) {
  auto args = std::make_shared<PlanArgs>();
  auto* c = app.add_subcommand("plan", "cluster designs for tokens, a deadline, a power cap and money; "
                                       "--target K=V: what it takes to reach a factor");
  c->add_option("PLAN", args->file, "plan file or name (scenarios/plan-405b-15t.yaml); with --target, a scenario");
  c->add_option("--set", args->sets, "override a key of the plan (or, with --target, of the scenario) (repeatable)");
  c->add_option("--target", args->target, "ettr=0.99, mfu=0.5, pue=1.1 or effective_utilization=0.4");
  c->add_option("--prices", args->prices, "price catalog for --target (models/prices; default: default)");
  c->add_option("-o,--output", args->output, "write the designs to this HDF5 file");
  c->add_option("--threads", args->threads, "worker threads (default: all cores)");
  c->add_flag("--json", args->json, "print the result as JSON");
  c->callback([args] { run(*args); });
}

}  // namespace fleetsim::app
