// `fleetsim run [SCENARIO]`: step, run and facility models over Monte-Carlo replications; prints
// a summary table (or JSON) and optionally writes the HDF5 results file and, with --trace, the
// states of replication 0 as a Perfetto timeline (sim/pipeline/run_trace.hpp).
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <thread>

#include "sim/app/command.hpp"
#include "sim/core/cli_guards.hpp"
#include "sim/config/load.hpp"
#include "sim/core/error.hpp"
#include "sim/core/limits.hpp"
#include "sim/mpi/run.hpp"
#include "sim/mpi/world.hpp"
#include "sim/pipeline/run_pipeline.hpp"
#include "sim/pipeline/run_summary.hpp"
#include "sim/pipeline/run_trace.hpp"
#include "sim/results/progress.hpp"
#include "sim/uncertainty/annotate.hpp"
#include "sim/uncertainty/user_calibration.hpp"
#include "sim/uncertainty/compare.hpp"
#include "sim/uncertainty/inputs.hpp"
#include "sim/uncertainty/waterfall_interval.hpp"

namespace fleetsim::app {
namespace {

struct RunArgs {
  std::string scenario;
  std::vector<std::string> sets;
  std::string output;
  std::string trace;
  std::string replications;  // a count, or "auto" (issue 25): until the ETTR half-width < precision
  std::string precision;  // --precision: overrides run.precision (ETTR half-width target of auto)
  long long seed = -1;
  int threads = 0;
  bool json = false;
  double level = 0.8;  // of the intervals beside the headline numbers (sim/uncertainty)
};

// HDF5: interval_lo, interval_hi, interval_level on each headline dataset (the waterfall's five
// factors included); provenance_grade, provenance_why, provenance_sources on the /metrics/step and
// /metrics/run groups; replications: auto's outcome on /metrics/run.

void annotate_results(ResultsFile& f, const RunUncertainty& u, const PipelineResult& r, const AutoReplications& autorep) {
  std::vector<std::pair<std::string, const uncertainty::Interval*>> values = {
      {"step.iteration_time_s", &u.iteration_time}, {"step.mfu", &u.mfu}, {"run.ettr", &u.ettr},
      {"run.wall_clock_days", &u.wall_clock_days}, {"run.tokens_trained", &u.tokens_trained},
      {"facility.effective_utilization.value", &u.effective_utilization}, {"facility.pue_mean", &u.pue}};
  const auto factors = u.waterfall.factors();
  for (const auto& [key, i] : factors) values.emplace_back("facility.effective_utilization.factors." + key, &i);
  for (const auto& [name, i] : values) {
    if (r.facility.empty() && name.rfind("facility.", 0) == 0) continue;
    f.metric_attribute(name, "interval_lo", i->lo);
    f.metric_attribute(name, "interval_hi", i->hi);
    f.metric_attribute(name, "interval_level", i->level);
  }
  const std::pair<const char*, uncertainty::Provenance> sections[] = {{"step", u.step.provenance},
                                                                      {"run", run_provenance(u, r)}};
  for (const auto& [section, p] : sections) {
    std::string sources;
    for (const auto& src : p.sources) sources += (sources.empty() ? "" : "; ") + src;
    f.metric_attribute(section, "provenance_grade", uncertainty::grade_name(p.grade));
    f.metric_attribute(section, "provenance_why", p.why);
    f.metric_attribute(section, "provenance_sources", sources);
  }
  // replications: auto (a sweep's index reads how many each point used from /meta/replications).
  if (autorep.on) {
    f.metric_attribute("run", "replications_auto_used", autorep.used);
    f.metric_attribute("run", "replications_auto_ettr_half_width", autorep.ettr_half_width);
    f.metric_attribute("run", "replications_auto_precision", autorep.precision);
    f.metric_attribute("run", "replications_auto_reached", autorep.reached() ? 1.0 : 0.0);
  }
}

void print_uncertainty(const RunUncertainty& u, std::ostream& out) {
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "\n%.0f%% intervals (model-form error of the step model and Monte-Carlo spread, sim/uncertainty)\n"
                "  time of one training iteration  [%.4g, %.4g] s\n"
                "  model FLOPs utilization         [%.4f, %.4f]\n"
                "  ETTR                            [%.4f, %.4f]\n"
                "  wall-clock                      [%.4g, %.4g] d\n"
                "  tokens trained                  [%.4g, %.4g]\n"
                "  effective utilization           [%.3f, %.3f] = 1/PUE [%.3f, %.3f] x single-GPU [%.3f, %.3f] x "
                "scaling [%.3f, %.3f] x ETTR [%.3f, %.3f] x pool [%.3f, %.3f]\n",
                100 * u.step.level, u.iteration_time.lo, u.iteration_time.hi, u.mfu.lo, u.mfu.hi, u.ettr.lo, u.ettr.hi,
                u.wall_clock_days.lo, u.wall_clock_days.hi, u.tokens_trained.lo, u.tokens_trained.hi,
                u.effective_utilization.lo, u.effective_utilization.hi, u.waterfall.energy_efficiency.lo,
                u.waterfall.energy_efficiency.hi, u.waterfall.single_gpu_efficiency.lo, u.waterfall.single_gpu_efficiency.hi,
                u.waterfall.parallel_scaling_efficiency.lo, u.waterfall.parallel_scaling_efficiency.hi,
                u.waterfall.ettr.lo, u.waterfall.ettr.hi, u.waterfall.resource_utilization.lo,
                u.waterfall.resource_utilization.hi);
  out << buf << "  provenance: " << uncertainty::grade_label(u.step.provenance) << " - " << u.step.provenance.why
      << "\n";
}

void print_summary(const Scenario& s, const PipelineResult& r, std::ostream& out) {
  out << "fleetsim run: " << s.description << "\n  scenario " << s.file << ", seed " << s.run.seed << ", "
      << s.run.replications << " replication" << (s.run.replications == 1 ? "" : "s") << "\n\n";
  out << "One iteration (" << r.step.tier << " tier)\n";
  r.report.print_table(out, "step.");
  out << "\nTraining run (mean [p05, p95] over replications)\n";
  r.report.print_table(out, "run.");
  out << "\nFacility and effective utilization\n";
  r.report.print_table(out, "facility.");
  if (r.power) {  // facility.power_timeline: on (sim/facility/power_dynamics.hpp)
    const auto& p = *r.power;
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "\nPower as the grid sees it (replication 0, %.3g s samples): iteration swing %.3g W a GPU, %.3g kW a rack, "
                  "%.3g MW hall, %.3g MW meter (%.3g MW after a 1 s average); job stop %.3g MW at the meter; ramps up "
                  "%.3g / down %.3g MW/s; oscillation in 0.1-1 / 1-3 / 3-20 Hz: %.0f / %.0f / %.0f%%\n",
                  s.facility.power.resolution.si(), p.iteration_swing.gpu_w, p.iteration_swing.rack_kw,
                  p.iteration_swing.hall_mw, p.iteration_swing.meter_mw, p.iteration_swing_telemetry_mw,
                  p.job_stop_swing.meter_mw, p.ramp_up.meter_mw, p.ramp_down.meter_mw, 100 * p.bands.share[0],
                  100 * p.bands.share[1], 100 * p.bands.share[2]);
    out << buf;
  }
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

// --replications: "" (the scenario's), "auto", or a whole number >= 1 (the scenario schema bounds
// it: run.replications <= limits::kMaxReplications, with that message).
void check_replications(const std::string& v) {
  if (v.empty() || v == "auto") return;
  if (v.find_first_not_of("0123456789") != std::string::npos || v.find_first_not_of('0') == std::string::npos)
    throw ConfigError("", "--replications", "'" + v + "' is not valid; use a count from 1 to " +
                                                std::to_string(limits::kMaxReplications) + " or auto");
}

void run(const RunArgs& a) {
  const auto start = std::chrono::steady_clock::now();
  uncertainty::check_level(a.level, "--level");
  check_replications(a.replications);
  // --replications and --precision are the scenario's run.replications and run.precision given on
  // the command line: one code path, one set of bounds and messages (the scenario schema's).
  std::vector<std::string> sets = a.sets;
  if (!a.replications.empty()) sets.push_back("run.replications=" + a.replications);
  if (!a.precision.empty()) sets.push_back("run.precision=" + a.precision);
  if (a.seed >= 0) sets.push_back("run.seed=" + std::to_string(a.seed));
  Scenario s = config::load_scenario(a.scenario, sets);
  const bool autorep = s.run.replications_auto;
  const double precision = s.run.precision;
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
    opt.progress = [&progress](int, int) { if (progress) progress->advance(); };
  }
  opt.record_timeline = !a.trace.empty();
  if (autorep && world.size > 1)
    throw ConfigError("", "--replications", "auto runs in one process; give a count under mpirun");
  // Once, or with replications: auto doubling the count (sim/pipeline/run_summary.hpp).
  const RunOutcome outcome = run_with_replications(s, opt, a.level, [&](int replications) {
    if (progress && replications != s.run.replications) progress = std::make_shared<Progress>("replications", replications);
  });
  const PipelineResult& r = outcome.result;
  s = outcome.scenario;
  const double auto_half_width = outcome.autorep.ettr_half_width;
  if (autorep)
    std::cerr << "replications auto: " << s.run.replications << " replications (" << outcome.autorep.batches
              << " batches), ETTR half-width " << auto_half_width << " at " << a.level << " (target " << precision
              << ")\n";
  progress.reset();
  if (!world.root()) return;
  const RunUncertainty u = run_uncertainty(s, r, a.level);
  if (!a.output.empty()) {
    std::string command = "fleetsim run " + (a.scenario.empty() ? std::string("(default)") : a.scenario);
    for (const auto& set : a.sets) command += " --set " + set;
    const AutoReplications& ar = outcome.autorep;
    write_results_file(a.output, s, r, command, [&](ResultsFile& f) {
      annotate_results(f, u, r, ar);
      if (s.declared_inputs) {  // which inputs the replications drew (sim/uncertainty/inputs.hpp)
        std::string declared;
        for (const auto& in : s.declared_inputs->inputs) declared += (declared.empty() ? "" : "; ") + in.key + ": " + in.spec.shown;
        f.metric_attribute("run", "uncertain_inputs", declared);
      }
    });
  }
  if (!a.trace.empty()) {
    TraceWriter w;
    add_run_trace(s, r, w);
    w.write(a.trace);
    std::cerr << "trace: " << w.events() << " events of replication 0 written to " << a.trace << "\n";
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (a.json) {
    Json j = run_summary_json(outcome, u, a.level);
    j["host"]["wall_time_s"] = wall;
    std::cout << j.dump(2) << "\n";
  } else {
    print_summary(s, r, std::cout);
    print_uncertainty(u, std::cout);
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
  c->add_option("--replications", args->replications,
                "Monte-Carlo replications (overrides run.replications), or auto: double from 20 until the "
                "ETTR half-width at --level is below --precision");
  c->add_option("--precision", args->precision, "ETTR half-width target of --replications auto (default 0.001 = 0.1 point)");
  c->add_option("--seed", args->seed, "base random seed (overrides run.seed)")->check(CLI::NonNegativeNumber);
  c->add_option("--threads", args->threads, "worker threads (default: all cores)")->check(CLI::Range(0, 1024));
  c->add_flag("--json", args->json, "print the summary as JSON");
  c->add_option("--level", args->level, "level of the intervals beside the headline numbers, in (0, 1) (default 0.8)");
  c->add_option("--trace", args->trace,
                "write replication 0's states on a time axis as Chrome trace-event JSON (ui.perfetto.dev)");
  c->callback([args] { run(*args); });
}

}  // namespace fleetsim::app
