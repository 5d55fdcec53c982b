// `fleetsim pool SCENARIO [--set K=V]... [--json] [-o out.h5]`: the pool simulator (sim/pool):
// allocation, fragmentation, SLO attainment, queueing and GPU-hours lost by cause.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "sim/app/command.hpp"
#include "sim/core/cli_guards.hpp"
#include "sim/config/load.hpp"
#include "sim/pool/pool_model.hpp"
#include "sim/uncertainty/pool_interval.hpp"

namespace fleetsim::app {
namespace {

struct PoolArgs {
  std::string scenario;
  std::vector<std::string> sets;
  std::string output;
  int replications = 0;
  long long seed = -1;
  int threads = 0;
  bool json = false;
  double level = 0.8;  // of the intervals beside the headline numbers (sim/uncertainty/pool_interval.hpp)
};

const char* policy_name(const PoolSpec& p) {
  return p.policy == QueuePolicy::Fifo ? "fifo" : p.policy == QueuePolicy::Priority ? "priority" : "backfill";
}
const char* placement_name(const PoolSpec& p) {
  switch (p.placement) {
    case PlacementPolicy::FirstFit: return "first-fit";
    case PlacementPolicy::BestFit: return "best-fit";
    case PlacementPolicy::Topology: return "topology";
    case PlacementPolicy::FragmentationAware: return "fragmentation-aware";
    case PlacementPolicy::NetworkAware: return "network-aware";
    case PlacementPolicy::SameSwitch: return "same-switch";
  }
  return "?";
}

// The console block of the pool's intervals: the shares and the largest GPU-hour losses.
void print_uncertainty(const std::vector<std::pair<std::string, uncertainty::Interval>>& intervals,
                       const uncertainty::Provenance& p, double level, std::ostream& out) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "\n%.0f%% intervals (Monte-Carlo spread over the pool replications, sim/uncertainty)\n",
                100 * level);
  out << buf;
  for (const auto& [key, i] : intervals) {
    std::snprintf(buf, sizeof buf, "  %-36s [%.4g, %.4g]\n", key.c_str(), i.lo, i.hi);
    out << buf;
  }
  out << "  provenance: " << uncertainty::grade_name(p.grade) << " - " << p.why << "\n";
}

void pool_command(const PoolArgs& a) {
  uncertainty::check_level(a.level, "--level");
  if (!a.output.empty()) guards::output_file(a.output, "-o", "the results file");  // before the work
  std::vector<std::string> sets = a.sets;
  if (a.replications > 0) sets.push_back("pool.replications=" + std::to_string(a.replications));
  if (a.seed >= 0) sets.push_back("run.seed=" + std::to_string(a.seed));
  const Scenario s = config::load_scenario(a.scenario, sets);
  const pool::PoolResult r = pool::simulate_pool(s, a.threads);
  Report report;
  report.set_prefix("pool.");
  pool::add_pool_metrics(r, report);
  // Beside the headline numbers: <key>_interval and one provenance (issue 25).
  const auto intervals = uncertainty::pool_intervals(r, a.level);
  const uncertainty::Provenance provenance = uncertainty::pool_provenance(s, r, a.level);
  if (!a.output.empty()) {
    std::string command = "fleetsim pool " + (a.scenario.empty() ? std::string("(default)") : a.scenario);
    for (const auto& set : a.sets) command += " --set " + set;
    pool::write_pool_results(a.output, s, r, command, [&](ResultsFile& f) {
      uncertainty::annotate_pool_results(f, intervals, provenance);
    });
  }
  const double events_per_s = r.wall_s > 0 ? static_cast<double>(r.events()) / r.wall_s : 0.0;
  if (a.json) {
    Json j = Json::object();
    j["scenario"] = s.file;
    j["description"] = s.description;
    j["seed"] = static_cast<double>(s.run.seed);
    j["replications"] = s.pool.replications;
    Json body = report.to_json();
    for (const auto& [k, v] : body.as_object()) j[k] = v;
    j["pool"] = uncertainty::annotate_pool_json(j["pool"], intervals, provenance);
    j["host"]["wall_time_s"] = r.wall_s;
    j["host"]["events_per_second"] = events_per_s;
    std::cout << j.dump(2) << "\n";
    return;
  }
  const auto& p = s.pool;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "fleetsim pool: %s\n  scenario %s, seed %llu, %d replication%s of %.0f days; %d GPUs in %d nodes "
                "(%d-node NVLink domains, %d-node leaves, %d-node pods)\n  scheduler %s%s, placement %s, co-location %s\n\n",
                s.description.c_str(), s.file.c_str(), static_cast<unsigned long long>(s.run.seed), p.replications,
                p.replications == 1 ? "" : "s", p.duration_s / 86400.0, r.topology.nodes * r.topology.gpus_per_node,
                r.topology.nodes, r.topology.domain_nodes, r.topology.leaf_nodes, r.topology.pod_nodes, policy_name(p),
                p.preemption ? " with preemption" : "", placement_name(p),
                p.colocation == Colocation::Tidal ? "tidal" : "none");
  std::cout << buf << "Pool (mean [p05, p95]; shares over replications, delays and slowdowns over jobs)\n";
  report.print_table(std::cout);
  if (r.stragglers && std::all_of(r.replications.begin(), r.replications.end(),
                                  [](const pool::PoolReplication& rep) { return rep.straggler_jobs == 0; }))
    std::cout << "  no job: no training job of at least pool.stragglers.min_job_gpus = " << s.pool.stragglers.min_job_gpus
              << " GPUs was measured, so the straggler shares above count nothing (0 of 0, shown as 0)\n";
  print_uncertainty(intervals, provenance, a.level, std::cout);
  std::snprintf(buf, sizeof buf, "\n(%.2f s wall, %.3g events/s)\n", r.wall_s, events_per_s);
  if (!a.output.empty()) std::cout << "\nresults written to " << a.output << "\n";
  std::cout << buf;
}

}  // namespace

void add_pool_command(CLI::App& app) {
  auto args = std::make_shared<PoolArgs>();
  auto* c = app.add_subcommand("pool", "the GPU pool: many jobs, schedulers, fragmentation, inference SLOs");
  c->add_option("SCENARIO", args->scenario, "scenario file or name with a pool: section")->required();
  c->add_option("--set", args->sets, "override a key: --set pool.scheduler.policy=fifo (repeatable)");
  c->add_option("-o,--output", args->output, "write the HDF5 results file");
  c->add_option("--replications", args->replications, "replications (overrides pool.replications)")
      ->check(CLI::Range(1, 100000));
  c->add_option("--seed", args->seed, "base random seed (overrides run.seed)")->check(CLI::NonNegativeNumber);
  c->add_option("--threads", args->threads, "worker threads (default: all cores)")->check(CLI::Range(0, 1024));
  c->add_flag("--json", args->json, "print the summary as JSON");
  c->add_option("--level", args->level, "level of the intervals beside the headline numbers, in (0, 1) (default 0.8)");
  c->callback([args] { pool_command(*args); });
}

}  // namespace fleetsim::app
