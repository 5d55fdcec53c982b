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
#include "sim/pool/workload.hpp"
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

// Inference groups sized from requests (issue 39): what one replica holds at the SLO, the replicas
// per hour of the first simulated day, and the pool's allocation with and without co-location
// (the same scenario with pool.colocation: none).
struct ServingPool {
  bool any = false;
  bool counterfactual = false;  // tidal: the no-co-location run was made
  double allocation_without = 0, allocation_with = 0;
};

bool has_sized_services(const PoolSpec& p) {
  return std::any_of(p.inference.begin(), p.inference.end(), [](const InferenceGroup& g) { return !g.model.empty(); });
}

Json serving_groups_json(const PoolSpec& p) {
  Json groups = Json::array();
  for (const auto& g : p.inference) {
    Json j = Json::object();
    j["name"] = g.name;
    j["services"] = g.services;
    j["model"] = g.model;
    j["layout"] = g.layout;
    j["replica_gpus"] = g.replica_gpus;
    j["requests_per_s_peak"] = g.requests_per_s;
    j["replica_requests_per_s_at_slo"] = g.replica_requests_per_s;
    j["peak_replicas"] = g.peak_replicas;
    Json hours = Json::array();
    for (int h = 0; h < 24; ++h) hours.push_back(pool::replicas_needed(g, (p.warmup_s + h * 3600.0)));
    j["replicas_per_hour"] = hours;
    groups.push_back(j);
  }
  return groups;
}

void print_serving_groups(const PoolSpec& p, const ServingPool& sp, std::ostream& out) {
  char buf[512];
  out << "\nInference services sized from requests (sim/serving; replicas per hour of the first measured day, per service)\n";
  for (const auto& g : p.inference) {
    if (g.model.empty()) continue;
    std::snprintf(buf, sizeof buf,
                  "  %s: %d x %s (%s, %d GPUs/replica); peak %.4g req/s per service, %.4g req/s per replica at the SLO "
                  "(p99 TTFT %.3g s, TPOT %.3g ms) -> %d replicas at the peak\n    replicas by hour:",
                  g.name.c_str(), g.services, g.model.c_str(), g.layout.c_str(), g.replica_gpus, g.requests_per_s,
                  g.replica_requests_per_s, g.slo_ttft_p99_s, g.slo_tpot_p99_s * 1e3, g.peak_replicas);
    out << buf;
    for (int h = 0; h < 24; ++h) out << " " << pool::replicas_needed(g, p.warmup_s + h * 3600.0);
    out << "\n";
  }
  if (sp.counterfactual) {
    std::snprintf(buf, sizeof buf, "  pool allocation share: %.4f with tidal co-location, %.4f without (pool.colocation: none)\n",
                  sp.allocation_with, sp.allocation_without);
    out << buf;
  }
}

void pool_command(const PoolArgs& a) {
  uncertainty::check_level(a.level, "--level");
  if (!a.output.empty()) guards::output_file(a.output, "-o", "the results file");  // before the work
  std::vector<std::string> sets = a.sets;
  if (a.replications > 0) sets.push_back("pool.replications=" + std::to_string(a.replications));
  if (a.seed >= 0) sets.push_back("run.seed=" + std::to_string(a.seed));
  const Scenario s = config::load_scenario(a.scenario, sets);
  const pool::PoolResult r = pool::simulate_pool(s, a.threads);
  ServingPool sp;
  sp.any = has_sized_services(s.pool);
  if (sp.any && s.pool.colocation == Colocation::Tidal) {
    Scenario none = s;
    none.pool.colocation = Colocation::None;
    sp.counterfactual = true;
    sp.allocation_with = r.allocation_share().mean;
    sp.allocation_without = pool::simulate_pool(none, a.threads).allocation_share().mean;
  }
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
    if (sp.any) {
      j["pool"]["inference_services"] = serving_groups_json(s.pool);
      if (sp.counterfactual) {
        j["pool"]["allocation_share_with_colocation"] = sp.allocation_with;
        j["pool"]["allocation_share_without_colocation"] = sp.allocation_without;
      }
    }
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
  if (sp.any) print_serving_groups(s.pool, sp, std::cout);
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
