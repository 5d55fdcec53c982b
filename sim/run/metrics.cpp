// The run model's metrics (names, units, descriptions) and how a RunResult fills a Report.
#include <set>

#include "sim/results/report.hpp"
#include "sim/run/run_model.hpp"

namespace fleetsim {

const std::vector<MetricDef>& run_metric_defs() {
  static const std::vector<MetricDef> defs = {
      {"ettr", "1", "effective training time ratio: productive time / wall-clock time"},
      {"wall_clock_days", "d", "wall-clock time of the run"},
      {"tokens_trained", "tokens", "tokens trained by the end of the run"},
      {"interruptions.unexpected", "count", "unexpected interruptions (failures)"},
      {"interruptions.planned", "count", "planned maintenance interruptions"},
      {"interruptions.fail_slow", "count", "fail-slow episodes (a node running slow until evicted)"},
      {"interruptions.lemon", "count", "unexpected interruptions on lemon nodes"},
      {"interruptions.by_cause.*", "count", "unexpected interruptions of one failure component"},
      {"lemon_retirement.lemon_nodes_start", "count", "lemon_model per_node: lemon nodes drawn into the job"},
      {"lemon_retirement.lemon_nodes_end", "count", "lemon_model per_node: lemon nodes left at the end"},
      {"lemon_retirement.retired_nodes", "count", "nodes retired by failures.lemon_retirement (replaced from the fleet)"},
      {"lemon_retirement.retired_lemon_nodes", "count", "retired nodes that were lemons"},
      {"lemon_retirement.gpu_hours", "GPU-h", "retired nodes' GPU-hours from retirement to the end of the run"},
      {"lost_hours.lost_work", "h", "compute rolled back to the last durable checkpoint"},
      {"lost_hours.detection", "h", "noticing failures (crash detection, hang watchdog)"},
      {"lost_hours.diagnosis", "h", "isolating the failed node"},
      {"lost_hours.rescheduling", "h", "swapping in a spare or requeueing the job"},
      {"lost_hours.waiting_for_spares", "h", "waiting for a repaired node when no spare is free"},
      {"lost_hours.restart", "h", "process launch, communicator init and checkpoint load"},
      {"lost_hours.checkpoint_stalls", "h", "blocking checkpoint writes"},
      {"lost_hours.planned_maintenance", "h", "planned maintenance downtime"},
      {"lost_hours.degraded", "h", "replica_restart: capacity of data-parallel replicas out of the job"},
      {"productive_hours", "h", "wall-clock time of compute whose work was kept"},
      {"compute_hours", "h", "wall-clock time the GPUs computed (productive + lost work)"},
      {"stalled_hours", "h", "wall-clock time the GPUs were idle or stalled"},
      {"slow_hours", "h", "wall-clock time with a fail-slow node in the job"},
      {"fail_slow_lost_hours", "h", "throughput lost while running with fail-slow nodes, in wall-clock hours"},
      {"fail_slow_outage_hours", "h", "outages of fail-slow mitigation (swap, checkpoint_restart)"},
      // Reported as facility.effective_utilization.loss_gpu_hours.stragglers_causes.* by the
      // pipeline (sim/pipeline/run_pipeline.cpp), which splits the waterfall's stragglers loss
      // over the step's and the run's causes.
      {"effective_utilization.loss_gpu_hours.stragglers_causes.*", "GPU-h",
       "stragglers loss by cause (adds up to loss_gpu_hours.stragglers)"},
      {"mtti_hours", "h", "expected job mean time to unexpected interruption, from the profile"},
      {"checkpoint_interval_s", "s", "compute time between checkpoints (fixed or Daly 2006)"},
      {"checkpoint_stall_s", "s", "blocking part of one checkpoint"},
      {"restart_s", "s", "init + checkpoint load of one full restart"},
      {"straggler_slowdown", "1", "expected compute slowdown from the slowest rank (order statistics)"},
  };
  return defs;
}

void add_run_metrics(const RunResult& r, Report& report) {
  const auto& reps = r.replications;
  auto stat = [&](auto get) {
    std::vector<double> v;
    v.reserve(reps.size());
    for (const auto& x : reps) v.push_back(static_cast<double>(get(x)));
    return summarize(std::move(v));
  };
  report.add("ettr", stat([](const ReplicationResult& x) { return x.ettr; }));
  report.add("wall_clock_days", stat([](const ReplicationResult& x) { return x.wall_clock_days; }));
  report.add("tokens_trained", stat([](const ReplicationResult& x) { return x.tokens_trained; }));
  report.add("interruptions.unexpected", stat([](const ReplicationResult& x) { return x.unexpected; }));
  report.add("interruptions.planned", stat([](const ReplicationResult& x) { return x.planned; }));
  report.add("interruptions.fail_slow", stat([](const ReplicationResult& x) { return x.fail_slow; }));
  report.add("interruptions.lemon", stat([](const ReplicationResult& x) { return x.lemon_failures; }));
  if (r.per_node_lemons) {  // only under lemon_model per_node: other runs keep their keys
    report.add("lemon_retirement.lemon_nodes_start", stat([](const ReplicationResult& x) { return x.lemon_nodes_start; }));
    report.add("lemon_retirement.lemon_nodes_end", stat([](const ReplicationResult& x) { return x.lemon_nodes_end; }));
    report.add("lemon_retirement.retired_nodes", stat([](const ReplicationResult& x) { return x.retired_nodes; }));
    report.add("lemon_retirement.retired_lemon_nodes", stat([](const ReplicationResult& x) { return x.retired_lemon_nodes; }));
    report.add("lemon_retirement.gpu_hours", stat([](const ReplicationResult& x) { return x.retirement_gpu_hours; }));
  }
  std::set<std::string> causes;
  for (const auto& x : reps)
    for (const auto& [k, v] : x.by_cause) causes.insert(k);
  for (const auto& c : causes)
    report.add("interruptions.by_cause." + c, stat([&](const ReplicationResult& x) {
                 auto it = x.by_cause.find(c);
                 return it == x.by_cause.end() ? 0 : it->second;
               }));
  for (const char* p : {phase::kLostWork, phase::kDetection, phase::kDiagnosis, phase::kRescheduling,
                        phase::kWaitingForSpares, phase::kRestart, phase::kCheckpointStalls,
                        phase::kPlannedMaintenance, phase::kDegraded})
    report.add(std::string("lost_hours.") + p, stat([&](const ReplicationResult& x) {
                 auto it = x.lost_hours.find(p);
                 return it == x.lost_hours.end() ? 0.0 : it->second;
               }));
  report.add("productive_hours", stat([](const ReplicationResult& x) { return x.productive_hours; }));
  report.add("compute_hours", stat([](const ReplicationResult& x) { return x.compute_hours; }));
  report.add("stalled_hours", stat([](const ReplicationResult& x) { return x.stalled_hours; }));
  report.add("slow_hours", stat([](const ReplicationResult& x) { return x.slow_hours; }));
  report.add("fail_slow_lost_hours", stat([](const ReplicationResult& x) { return x.fail_slow_lost_hours; }));
  report.add("fail_slow_outage_hours", stat([](const ReplicationResult& x) { return x.fail_slow_outage_hours; }));
  report.add("mtti_hours", r.mtti_hours);
  report.add("checkpoint_interval_s", r.checkpoint_interval_s);
  report.add("checkpoint_stall_s", r.checkpoint_stall_s);
  report.add("restart_s", r.restart_s);
  report.add("straggler_slowdown", r.straggler_slowdown);
}

}  // namespace fleetsim
