// `fleetsim run [SCENARIO]`: step, run and facility models over Monte-Carlo replications; prints
// a summary table (or JSON) and optionally writes the HDF5 results file and, with --trace, the
// states of replication 0 as a Perfetto timeline (sim/pipeline/run_trace.hpp).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <thread>

#include "sim/app/command.hpp"
#include "sim/core/cli_guards.hpp"
#include "sim/config/load.hpp"
#include "sim/core/error.hpp"
#include "sim/mpi/run.hpp"
#include "sim/mpi/world.hpp"
#include "sim/pipeline/run_pipeline.hpp"
#include "sim/pipeline/run_trace.hpp"
#include "sim/results/progress.hpp"

namespace fleetsim::app {
namespace {

struct RunArgs {
  std::string scenario;
  std::vector<std::string> sets;
  std::string output;
  std::string trace;
  int replications = 0;
  long long seed = -1;
  int threads = 0;
  bool json = false;
};

void print_summary(const Scenario& s, const PipelineResult& r, std::ostream& out) {
  out << "fleetsim run: " << s.description << "\n  scenario " << s.file << ", seed " << s.run.seed << ", "
      << s.run.replications << " replication" << (s.run.replications == 1 ? "" : "s") << "\n\n";
  out << "One iteration (" << r.step.tier << " tier)\n";
  r.report.print_table(out, "step.");
  out << "\nTraining run (mean [p05, p95] over replications)\n";
  r.report.print_table(out, "run.");
  out << "\nFacility and effective utilization\n";
  r.report.print_table(out, "facility.");
  if (r.pool_simulated) {
    out << "\nPool the job shares (fleetsim pool; shares over pool replications, delays over jobs)\n";
    r.report.print_table(out, "pool.");
  }
  if (!r.facility.empty()) {
    double eu = 0, e = 0, g = 0, p = 0, t = 0, u = 0;
    for (const auto& f : r.facility) {
      const auto& w = f.waterfall.factors;
      eu += f.effective_utilization();
      e += w.energy_efficiency;
      g += w.single_gpu_efficiency;
      p += w.parallel_scaling_efficiency;
      t += w.ettr;
      u += w.resource_utilization;
    }
    const double n = static_cast<double>(r.facility.size());
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "\nEffective utilization %.3f = 1/PUE %.3f x single-GPU %.3f x scaling %.3f x ETTR %.3f x pool %.3f (%s)\n",
                  eu / n, e / n, g / n, p / n, t / n, u / n,
                  r.pool_simulated ? "simulated: pool allocation share" : "facility.resource_utilization");
    out << buf;
  }
}

void run(const RunArgs& a) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> sets = a.sets;
  if (a.replications > 0) sets.push_back("run.replications=" + std::to_string(a.replications));
  if (a.seed >= 0) sets.push_back("run.seed=" + std::to_string(a.seed));
  Scenario s = config::load_scenario(a.scenario, sets);
  // Refuse unwritable output paths before the run, not after it.
  if (!a.output.empty()) guards::output_file(a.output, "-o", "the results file");
  if (!a.trace.empty()) guards::output_file(a.trace, "--trace", "the trace");
  PipelineOptions opt;
  opt.threads = a.threads;
  // Under mpirun the replications are split over the ranks and merged on rank 0 (sim/mpi/run.hpp).
  const mpi::World world = mpi::init();
  if (world.size > 1) {
    opt.share = {world.rank, world.size};
    opt.gather = mpi::gather_replications;
    if (opt.threads <= 0)
      opt.threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / world.local_size);
  }
  std::shared_ptr<Progress> progress;
  if (world.root()) {
    const int mine = (s.run.replications + world.size - 1) / world.size;
    progress = std::make_shared<Progress>("replications", world.size > 1 ? mine : s.run.replications);
    opt.progress = [progress](int, int) { progress->advance(); };
  }
  opt.record_timeline = !a.trace.empty();
  PipelineResult r = run_pipeline(s, opt);
  progress.reset();
  if (!world.root()) return;
  if (!a.output.empty()) {
    std::string command = "fleetsim run " + (a.scenario.empty() ? std::string("(default)") : a.scenario);
    for (const auto& set : a.sets) command += " --set " + set;
    write_results_file(a.output, s, r, command);
  }
  if (!a.trace.empty()) {
    TraceWriter w;
    add_run_trace(s, r, w);
    w.write(a.trace);
    std::cerr << "trace: " << w.events() << " events of replication 0 written to " << a.trace << "\n";
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (a.json) {
    Json j = Json::object();
    j["scenario"] = s.file;
    j["description"] = s.description;
    j["seed"] = static_cast<double>(s.run.seed);
    j["replications"] = s.run.replications;
    Json body = r.report.to_json();
    for (const auto& [k, v] : body.as_object()) j[k] = v;
    j["host"]["wall_time_s"] = wall;
    std::cout << j.dump(2) << "\n";
  } else {
    print_summary(s, r, std::cout);
    if (!a.output.empty()) std::cout << "\nresults written to " << a.output << "\n";
    char buf[64];
    std::snprintf(buf, sizeof buf, "(%.2f s wall)\n", wall);
    std::cout << buf;
  }
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto* c = app.add_subcommand("run", "the whole pipeline: iteration, training run, facility; a summary or JSON");
  c->add_option("SCENARIO", args->scenario, "scenario file or name (default: llama3-405b-16k)");
  c->add_option("--set", args->sets, "override a key: --set cluster.gpus=8192 (repeatable)");
  c->add_option("-o,--output", args->output, "write the HDF5 results file");
  c->add_option("--replications", args->replications, "Monte-Carlo replications (overrides run.replications)")
      ->check(CLI::Range(1, 1000000));
  c->add_option("--seed", args->seed, "base random seed (overrides run.seed)")->check(CLI::NonNegativeNumber);
  c->add_option("--threads", args->threads, "worker threads (default: all cores)")->check(CLI::Range(0, 1024));
  c->add_flag("--json", args->json, "print the summary as JSON");
  c->add_option("--trace", args->trace,
                "write replication 0's states on a time axis as Chrome trace-event JSON (ui.perfetto.dev)");
  c->callback([args] { run(*args); });
}

}  // namespace fleetsim::app
