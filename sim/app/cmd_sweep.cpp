// `fleetsim sweep [SCENARIO] --vary KEY=V1,V2,... [--vary ...] [--zip] -o DIR`: the whole pipeline
// at every point of a grid over any scenario keys; one HDF5 result per point, DIR/index.csv with
// the varied values and headline figures of each point, DIR/sweep.json with the grid. Resumable
// (finished points are skipped); a point that fails is recorded with its error.
#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <thread>

#include "sim/app/command.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/cli_guards.hpp"
#include "sim/config/load.hpp"
#include "sim/core/error.hpp"
#include "sim/mpi/sweep.hpp"
#include "sim/mpi/world.hpp"
#include "sim/results/json.hpp"
#include "sim/sweep/grid.hpp"
#include "sim/sweep/runner.hpp"
#include "sim/uncertainty/annotate.hpp"

namespace fleetsim::app {
namespace {

struct SweepArgs {
  std::string scenario;
  std::vector<std::string> vary;
  std::vector<std::string> with;
  bool zip = false;
  std::vector<std::string> sets;
  std::string output;
  std::string replications;  // "" (the scenario's), a count, or auto (each point until its ETTR half-width is met)
  std::string precision;     // run.precision for auto
  std::string level;         // --level of each point's intervals ("" = run's default, 0.8)
  long long seed = -1;
  int jobs = 0;
  int threads = 0;
};

std::string quote_arg(const std::string& s) {
  if (!s.empty() && s.find_first_of(" \t'\"\\$`,*?[]{}()<>|&;") == std::string::npos) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string command_line(const SweepArgs& a) {
  std::string c = "fleetsim sweep";
  if (!a.scenario.empty()) c += " " + quote_arg(a.scenario);
  for (const auto& v : a.vary) c += " --vary " + quote_arg(v);
  for (const auto& v : a.with) c += " --with " + quote_arg(v);
  if (a.zip) c += " --zip";
  for (const auto& s : a.sets) c += " --set " + quote_arg(s);
  if (!a.replications.empty()) c += " --replications " + quote_arg(a.replications);
  if (!a.precision.empty()) c += " --precision " + quote_arg(a.precision);
  if (!a.level.empty()) c += " --level " + quote_arg(a.level);
  if (a.seed >= 0) c += " --seed " + std::to_string(a.seed);
  return c + " -o " + quote_arg(a.output);
}

void write_sweep_json(const std::filesystem::path& dir, const SweepArgs& a, const std::vector<sweep::Axis>& axes,
                      const std::vector<sweep::Point>& points) {
  Json j = Json::object();
  j["command"] = command_line(a);
  j["scenario"] = a.scenario;
  // The independent dimensions of the grid, each with the keys that move with it.
  auto axis_json = [](const sweep::Axis& ax) {
    Json o = Json::object();
    o["key"] = ax.key;
    Json vals = Json::array();
    for (const auto& v : ax.values) vals.push_back(v);
    o["values"] = vals;
    return o;
  };
  Json vary = Json::array();
  for (const auto& ax : axes) {
    Json o = axis_json(ax);
    Json with = Json::array();
    for (const auto& w : ax.with) with.push_back(axis_json(w));
    o["with"] = with;
    vary.push_back(o);
  }
  j["vary"] = vary;
  j["zip"] = a.zip;
  Json sets = Json::array();
  for (const auto& s : a.sets) sets.push_back(s);
  j["sets"] = sets;
  j["replications"] = a.replications.empty() ? Json() : a.replications == "auto" ? Json("auto") : Json(std::stoi(a.replications));
  j["precision"] = a.precision.empty() ? Json() : Json(a.precision);
  j["level"] = a.level.empty() ? Json() : Json(std::stod(a.level));
  j["seed"] = a.seed >= 0 ? Json(a.seed) : Json();
  Json pts = Json::array();
  for (const auto& p : points) {
    Json o = Json::object();
    o["point"] = p.index;
    o["file"] = p.file;
    Json vals = Json::object();
    for (const auto& [k, v] : p.values) vals[k] = v;
    o["values"] = vals;
    pts.push_back(o);
  }
  j["points"] = pts;
  write_file_atomically((dir / "sweep.json").string(), "-o", "the sweep's description",
                        [&](std::ostream& out) { out << j.dump(2) << "\n"; });
}

std::string fmt(const std::optional<double>& v, const char* f) {
  if (!v) return "-";
  char buf[48];
  std::snprintf(buf, sizeof buf, f, *v);
  return buf;
}

void print_summary(const sweep::SweepSummary& s, const std::filesystem::path& dir, std::ostream& out) {
  const auto cols = sweep::headline_columns();
  auto col = [&](const sweep::PointRow& r, const std::string& name) -> std::optional<double> {
    for (size_t i = 0; i < cols.size() && i < r.values.size(); ++i)
      if (cols[i] == name) return r.values[i];
    return std::nullopt;
  };
  std::printf("%-5s %-44s %-7s %7s %9s %7s %7s %8s %5s %s\n", "point", "values", "status", "mfu", "iter (s)", "ettr",
              "pue", "eff.util", "reps", "grade");
  for (const auto& r : s.rows) {
    std::string label = r.point->label();
    if (label.size() > 44) label = label.substr(0, 41) + "...";
    std::printf("%-5d %-44s %-7s %7s %9s %7s %7s %8s %5s %s\n", r.point->index, label.c_str(), r.status.c_str(),
                fmt(col(r, "mfu"), "%.3f").c_str(), fmt(col(r, "iteration_time_s"), "%.2f").c_str(),
                fmt(col(r, "ettr"), "%.3f").c_str(), fmt(col(r, "pue_mean"), "%.3f").c_str(),
                fmt(col(r, "effective_utilization"), "%.3f").c_str(), fmt(col(r, "replications"), "%.0f").c_str(),
                sweep::grade_text(col(r, "provenance_grade")).c_str());
  }
  std::fflush(stdout);
  out << "\n" << s.total << " points: " << s.ran << " run, " << s.skipped << " already finished, " << s.failed
      << " failed; index: " << (dir / "index.csv").string() << "\n";
}

// --replications: "", auto, or a count from 1 to 1,000,000; --level: a number in (0, 1).
int replication_count(const std::string& v) {
  if (v.empty() || v == "auto") return 0;
  const bool digits = v.size() <= 7 && v.find_first_not_of("0123456789") == std::string::npos;
  const int n = digits ? std::stoi(v) : 0;
  if (n < 1 || n > 1000000)
    throw ConfigError("", "--replications", "'" + v + "' is not valid; use a count from 1 to 1000000 or auto");
  return n;
}

void check_level_text(const std::string& v) {
  if (v.empty()) return;
  char* end = nullptr;
  const double level = std::strtod(v.c_str(), &end);
  if (end == v.c_str() || *end != '\0') throw ConfigError("", "--level", "'" + v + "' is not a number");
  uncertainty::check_level(level, "--level");
}

void sweep_command(const SweepArgs& a) {
  guards::output_dir(a.output, "-o");
  // The files the sweep writes into the folder itself (a rerun resumes into an existing one).
  std::error_code exists_ec;
  if (std::filesystem::is_directory(a.output, exists_ec))
    for (const char* own : {"sweep.json", "index.csv"})
      guards::output_file((std::filesystem::path(a.output) / own).string(), "-o", std::string("the sweep's ") + own);
  const int replications = replication_count(a.replications);
  check_level_text(a.level);
  // replications: auto and its precision travel as the scenario keys they are (the children's
  // `fleetsim run` decides each point's count: sim/uncertainty/README.md, "Adaptive replications").
  std::vector<std::string> sets = a.sets;
  if (a.replications == "auto") sets.push_back("run.replications=auto");
  if (!a.precision.empty()) sets.push_back("run.precision=" + a.precision);
  std::vector<sweep::Axis> axes;
  for (const auto& v : a.vary) axes.push_back(sweep::parse_axis(v));
  for (const auto& w : a.with) sweep::attach_companion(axes, w);
  if (a.zip) axes = sweep::zip_axes(std::move(axes));
  sweep::GridBase base{a.scenario, sets, replications, a.seed, a.level};
  const auto points = sweep::expand_grid(axes, false, base);

  // The base scenario must load: a typo there would fail every point the same way.
  std::vector<std::string> base_sets = sets;
  if (replications > 0) base_sets.push_back("run.replications=" + std::to_string(replications));
  config::load_scenario(a.scenario, base_sets);

  // Under mpirun each rank runs one point at a time by default, its cores shared with the other
  // ranks on its machine (sim/mpi/README.md).
  const mpi::World world = mpi::init();
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / world.local_size);
  const int npoints = static_cast<int>(points.size());
  const int jobs = a.jobs > 0 ? a.jobs : world.size > 1 ? 1 : std::min(cores, npoints);
  const int threads = a.threads > 0 ? a.threads : std::max(1, cores / std::max(1, std::min(jobs, npoints)));

  const std::filesystem::path dir(a.output);
  if (world.root()) {
    std::filesystem::create_directories(dir);
    write_sweep_json(dir, a, axes, points);
  }

  // Each point's scenario is loaded here first (fast, and the exact ConfigError), then run in a
  // child process of this binary.
  const std::string binary = std::filesystem::read_symlink("/proc/self/exe").string();
  auto spawn = sweep::process_runner(binary, base);
  auto load_mutex = std::make_shared<std::mutex>();
  sweep::PointRunner runner = [&, spawn, load_mutex](const sweep::Point& p, const std::string& out, int t) {
    std::vector<std::string> sets = base_sets;
    for (const auto& s : p.sets()) sets.push_back(s);
    try {
      std::lock_guard lock(*load_mutex);
      config::load_scenario(a.scenario, sets);
    } catch (const std::exception& e) {
      return sweep::PointOutcome{false, e.what()};
    }
    return spawn(p, out, t);
  };

  if (!world.root()) {
    mpi::sweep_worker(points, runner, dir.string(), jobs, threads);
    return;
  }
  const std::vector<std::string> keys = sweep::all_keys(axes);
  std::cerr << "sweep: " << npoints << " point" << (npoints == 1 ? "" : "s") << " into " << dir.string() << " ("
            << jobs << " at a time" << (world.size > 1 ? " on each of " + std::to_string(world.size) + " ranks" : "")
            << ", " << threads << " thread" << (threads == 1 ? "" : "s") << " each)\n";
  sweep::SweepOptions options{dir.string(), keys, jobs, threads, &std::cerr};
  if (world.size > 1) options.execute = mpi::sweep_dispatcher(jobs);
  sweep::SweepSummary s = sweep::run_sweep(points, runner, options);
  print_summary(s, dir, std::cerr);
  if (s.failed == s.total && s.total > 0)
    throw InfeasibleError("every point of the sweep failed; first error: " + s.rows.front().error);
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto a = std::make_shared<SweepArgs>();
  auto* c = app.add_subcommand(
      "sweep",
      "the whole pipeline over a grid of keys: one HDF5 result per point and DIR/index.csv\n"
      "  fleetsim sweep --vary cluster.cooling=air-chiller,liquid-dlc -o out/cooling\n"
      "  fleetsim sweep --vary 'checkpoint.interval=10 min,30 min' --vary failures.rate_scale=1,2 -o out/ckpt\n"
      "  fleetsim sweep --vary cluster.gpus=8192,16384 --with cluster.gpus:workload.training.global_batch_size=1024,2048 \\\n"
      "      --vary cluster.cooling=air-chiller,liquid-dlc -o out/scale");
  c->add_option("SCENARIO", a->scenario, "scenario file or name (default: llama3-405b-16k)");
  c->add_option("--vary", a->vary,
                "KEY=V1,V2,...: a key and its values (repeatable; the grid is their product). Commas inside "
                "[..] or {..} do not split; values may hold spaces ('checkpoint.interval=10 min,30 min')")
      ->required()
      ->allow_extra_args(false);
  c->add_option("--with", a->with,
                "LEADER:KEY=V1,V2,...: KEY takes its i-th value with the i-th value of the --vary axis LEADER "
                "(e.g. scale the global batch with cluster.gpus so the layout divides; repeatable)")
      ->allow_extra_args(false);
  c->add_flag("--zip", a->zip, "pair the i-th values of every --vary instead of taking the product");
  c->add_option("--set", a->sets, "override a key at every point (repeatable)")->allow_extra_args(false);
  c->add_option("-o,--output", a->output, "output directory (created; rerunning resumes)")->required();
  c->add_option("--replications", a->replications,
                "Monte-Carlo replications per point, or auto: each point doubles from 20 until its ETTR half-width "
                "at --level is below --precision (index.csv's replications column says how many)");
  c->add_option("--precision", a->precision, "ETTR half-width target of --replications auto (default 0.001 = 0.1 point)");
  c->add_option("--level", a->level, "level of each point's intervals, in (0, 1) (default 0.8)");
  c->add_option("--seed", a->seed, "base random seed, the same at every point (common random numbers)")
      ->check(CLI::NonNegativeNumber);
  c->add_option("-j,--jobs", a->jobs, "points run at the same time (default: all cores)")->check(CLI::Range(0, 1024));
  c->add_option("--threads", a->threads, "replication threads per point (default: cores / jobs)")
      ->check(CLI::Range(0, 1024));
  c->callback([a] { sweep_command(*a); });
}

}  // namespace fleetsim::app
