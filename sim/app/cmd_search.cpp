// `fleetsim search [SCENARIO]`: the best parallel layouts for the scenario's model on its cluster
// (analytical tier), the scenario's own layout for comparison, and why the pick differs.
#include <iostream>
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
};

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
  if (a.json) std::cout << search::to_json(r, s).dump(2) << "\n";
  else search::print_table(r, s, a.scenario, std::cout);
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
  c->callback([args] { run(*args); });
}

}  // namespace fleetsim::app
