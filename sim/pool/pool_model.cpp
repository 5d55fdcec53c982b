#include "sim/pool/pool_model.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <thread>

#include "sim/core/error.hpp"
#include "sim/core/limits.hpp"
#include "sim/results/hdf5_writer.hpp"

namespace fleetsim {

const std::vector<MetricDef>& pool_metric_defs() {
  static const std::vector<MetricDef> defs = {
      {"allocation_share", "1", "share of the pool's GPU-hours allocated to jobs"},
      {"fragmentation_share", "1", "share of GPU-hours free but unusable for the queue's head"},
      {"slo_attainment", "1", "share of inference service-time with the replicas the SLO needs"},
      {"inference_slo_violation_share", "1", "share of inference requests beyond what the running replicas hold at the SLO (lending, failures, a full pool)"},
      {"inference_gpu_hours_lent", "GPU-h", "tidal co-location: GPU-hours of the services' peak reservation lent (not held by inference)"},
      {"queue_delay_hours.*", "h", "queueing delay, submit to first start (jobs)"},
      {"slowdown.*", "1", "slowdown, (finish - submit) / run time (finished jobs)"},
      {"gpu_hours_lost.*", "GPU-h", "pool GPU-hours lost"},
      {"allocated_gpu_hours.*", "GPU-h", "GPU-hours allocated to a job class"},
      {"preemptions", "count", "jobs preempted (priority preemption or inference reclaim)"},
      {"elastic_resizes", "count", "elastic jobs grown into free GPUs or shrunk instead of preempted"},
      {"node_failures", "count", "node failures"},
      {"jobs_submitted", "count", "training and development jobs submitted"},
      {"jobs_finished", "count", "jobs finished within the simulated span"},
      {"topology_compact_share", "1", "multi-node jobs placed on the fewest leaves possible"},
      {"events", "count", "simulation events handled"},
      {"pool_gpus", "count", "GPUs in the pool"},
      {"days", "d", "simulated span"},
      {"resource_utilization_source", "", "where the pool factor of the waterfall comes from"},
      // Stragglers (sim/pool/stragglers.hpp, issue 27), with pool.stragglers.enabled.
      {"straggling_job_share", "1", "counted training jobs at least 10% slower than ideal (S >= threshold)"},
      {"straggler_waste_share", "1", "share of counted jobs' allocated GPU-hours lost to stragglers (1 - 1/S)"},
      {"straggler_jobs", "count", "training jobs counted in the straggler shares"},
      {"straggler_causes.last_stage_majority", "1", "counted jobs whose last pipeline stage explains >= half of the slowdown"},
      {"straggler_causes.sequence_length", "1", "straggling jobs with sequence-length imbalance"},
      {"straggler_causes.slow_host_majority", "1", "straggling jobs whose slow host explains > half of the slowdown"},
      {"interference_slowdown", "1", "iteration slowdown from other jobs on the fabric, mean over each training job's run (finished jobs)"},
      {"interference_shared_jobs_share", "1", "training jobs that shared a fabric link with another job while running"},
      {"interference_shared_gpus_share", "1", "GPUs of the training jobs that shared a fabric link with another job"},
      {"interference_running_shared_jobs_share", "1", "time mean of the share of running training jobs on a fabric link with another job at that moment (Crux Fig 6(a)'s ratio)"},
      {"interference_running_shared_gpus_share", "1", "time mean of the share of running training jobs' GPUs on a fabric link with another job at that moment (Crux Fig 6(b))"},
      {"interference_link_load", "1", "offered load / capacity of the fabric's switch bundles, time mean over links"},
      {"interference_hot_links", "count", "switch bundles offered more than their capacity, time mean"},
      {"iteration_time_alone.*", "s", "pool.interference.jobs: a job's iteration time alone on the fabric"},
      {"iteration_time_together.*", "s", "pool.interference.jobs: a job's iteration time at the most contended moment of its run (together)"},
      {"interference_job_slowdown.*", "1", "pool.interference.jobs: iteration time together / alone"},
  };
  return defs;
}

namespace pool {
namespace {

Stat over_reps(const PoolResult& r, double (*f)(const PoolReplication&)) {
  std::vector<double> v;
  for (const auto& rep : r.replications) v.push_back(f(rep));
  return summarize(std::move(v));
}

// Mean and percentiles over jobs pooled from every replication (nth_element: 1M jobs).
Stat over_jobs(const PoolResult& r, int cls, bool slowdown) {
  std::vector<float> v;
  for (const auto& rep : r.replications) {
    const auto& src = slowdown ? rep.slowdown[cls] : rep.queue_delay_h[cls];
    v.insert(v.end(), src.begin(), src.end());
  }
  Stat s;
  if (v.empty()) return s;
  double sum = 0;
  for (float x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  auto q = [&](double p) {
    const size_t k = static_cast<size_t>(std::floor(p * static_cast<double>(v.size() - 1)));
    std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
    return static_cast<double>(v[k]);
  };
  s.p05 = q(0.05);
  s.p95 = q(0.95);
  return s;
}

void add_interference_metrics(const PoolResult& r, Report& report) {
  std::vector<float> sl;
  for (const auto& rep : r.replications) sl.insert(sl.end(), rep.interference.slowdown.begin(), rep.interference.slowdown.end());
  Stat s;
  if (!sl.empty()) {
    double sum = 0;
    for (float x : sl) sum += x;
    s.mean = sum / static_cast<double>(sl.size());
    auto q = [&](double p) {
      const size_t k = static_cast<size_t>(std::floor(p * static_cast<double>(sl.size() - 1)));
      std::nth_element(sl.begin(), sl.begin() + static_cast<long>(k), sl.end());
      return static_cast<double>(sl[k]);
    };
    s.p05 = q(0.05);
    s.p95 = q(0.95);
  }
  report.add("interference_slowdown", s);
  std::vector<double> lost, jobs, gpus, load, hot, now_jobs, now_gpus;
  for (const auto& rep : r.replications) {
    const auto& in = rep.interference;
    lost.push_back(in.gpu_hours_lost);
    jobs.push_back(in.shared_jobs_share());
    gpus.push_back(in.shared_gpus_share());
    now_jobs.push_back(in.running_shared_jobs_share());
    now_gpus.push_back(in.running_shared_gpus_share());
    auto mean = [](const std::vector<double>& v) {
      double a = 0;
      for (double x : v) a += x;
      return v.empty() ? 0.0 : a / static_cast<double>(v.size());
    };
    load.push_back(mean(in.link_load_mean));
    hot.push_back(mean(in.hot_links));
  }
  report.add("gpu_hours_lost.interference", summarize(lost));
  report.add("interference_shared_jobs_share", summarize(jobs));
  report.add("interference_shared_gpus_share", summarize(gpus));
  report.add("interference_running_shared_jobs_share", summarize(now_jobs));
  report.add("interference_running_shared_gpus_share", summarize(now_gpus));
  report.add("interference_link_load", summarize(load));
  report.add("interference_hot_links", summarize(hot));
  for (const auto& t : r.replications.front().interference.explicit_jobs) {
    report.add("iteration_time_alone." + t.name, t.alone_s);
    report.add("iteration_time_together." + t.name, t.together_s);
    report.add("interference_job_slowdown." + t.name, t.together_s / t.alone_s);
  }
}

}  // namespace

long long PoolResult::events() const {
  long long n = 0;
  for (const auto& r : replications) n += r.events;
  return n;
}

Stat PoolResult::allocation_share() const {
  std::vector<double> v;
  for (const auto& r : replications) v.push_back(r.allocation_share);
  return summarize(std::move(v));
}

PoolInputs pool_inputs(const Scenario& s) {
  if (!s.pool.enabled) throw ConfigError(s.file, "pool", "the scenario has no pool: section");
  PoolInputs in;
  in.spec = s.pool;
  in.file = s.file;
  in.seed = s.run.seed;
  const int g = s.cluster.node.gpus_per_node;
  const int pool_gpus = s.pool.gpus > 0 ? s.pool.gpus : s.cluster.gpus;
  in.spec.gpus = pool_gpus;
  in.run_job_gpus = s.pool.run_job ? s.cluster.gpus : 0;
  in.topology = make_topology(pool_gpus, g, s.cluster.node.nvlink_domain_gpus, s.cluster.fabric.gpus_per_leaf,
                              s.cluster.fabric.pod_gpus);
  // Node failure process: the profile's rates per component, summed over one node's components.
  double rate = 0.0, repair = 0.0;
  for (const auto& c : s.failures.components) {
    double per_node = 0.0;
    switch (c.scope) {
      case ComponentScope::Gpu: per_node = c.rate.si() * g; break;
      case ComponentScope::Node: per_node = c.rate.si(); break;
      case ComponentScope::Nic: per_node = c.rate.si() * s.cluster.node.nics_per_node; break;
      default: break;  // switches, links and job-scope causes do not take a node out of the pool
    }
    rate += per_node;
    if (c.needs_repair) repair += per_node;
  }
  rate *= s.failures.rate_scale;
  repair *= s.failures.rate_scale;
  in.node_failure_rate = s.pool.failures ? rate : 0.0;
  in.repair_share = rate > 0 ? repair / rate : 1.0;
  in.repair_median_s = s.failures.repair_median.si();
  in.repair_sigma = s.failures.repair_sigma;
  in.fabric = fabric_shape(s.cluster, in.topology.nodes);
  in.fabric.host_links = s.pool.placement == PlacementPolicy::SameSwitch;
  if (s.pool.interference.enabled && s.pool.interference.traffic_from_step) {
    // Size classes up to the largest job the stream can submit (a trace: up to the pool).
    const TrainingStream& tr = s.pool.training;
    int largest = !tr.trace.empty() ? pool_gpus : tr.size_classes.empty() ? tr.max_gpus : 0;
    for (const SizeClass& c : tr.size_classes) largest = std::max(largest, c.gpus);
    largest = std::max(largest, in.run_job_gpus);
    in.traffic = stream_traffic(s, std::min(largest, pool_gpus));
  }
  // Node failures are events of the pool's engine, one at a time per node (sim/core/limits.hpp).
  const double failures = in.node_failure_rate * (pool_gpus / g) * (s.pool.warmup_s + s.pool.duration_s);
  if (!(failures <= limits::kMaxPoolFailures)) {
    char buf[320];
    std::snprintf(buf, sizeof buf, "%.3g expected node failures per pool replication (the failure profile x "
                  "failures.rate_scale x %d nodes x (pool.warmup + pool.duration)); the limit is %.0f: lower "
                  "failures.rate_scale, shorten pool.duration or set pool.failures: false",
                  failures, pool_gpus / g, limits::kMaxPoolFailures);
    throw ConfigError(s.file, "pool.failures", buf);
  }
  return in;
}

PoolResult simulate_pool(const Scenario& s, int threads) {
  const PoolInputs in = pool_inputs(s);
  PoolResult r;
  r.topology = in.topology;
  r.stragglers = s.pool.stragglers.enabled;
  const int n = s.pool.replications;
  r.replications.resize(n);
  const auto t0 = std::chrono::steady_clock::now();
  int workers = threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  workers = std::min(workers, n);
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(workers);
  for (int w = 0; w < workers; ++w)
    pool.emplace_back([&, w] {
      try {
        for (int i = w; i < n; i += workers) r.replications[i] = simulate_pool_replication(in, i);
      } catch (...) {
        errors[w] = std::current_exception();
      }
    });
  for (auto& t : pool) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

void add_pool_metrics(const PoolResult& r, Report& report) {
  report.add("allocation_share", over_reps(r, [](const PoolReplication& p) { return p.allocation_share; }));
  report.add("fragmentation_share", over_reps(r, [](const PoolReplication& p) { return p.fragmentation_share; }));
  report.add("slo_attainment", over_reps(r, [](const PoolReplication& p) { return p.slo_attainment; }));
  report.add("inference_slo_violation_share", over_reps(r, [](const PoolReplication& p) { return p.inference_slo_violation_share; }));
  report.add("inference_gpu_hours_lent", over_reps(r, [](const PoolReplication& p) { return p.inference_gpu_hours_lent; }));
  for (int c = 0; c < kJobClasses; ++c) {
    const std::string k = class_key(static_cast<JobClass>(c));
    report.add("queue_delay_hours." + k, over_jobs(r, c, false));
    if (c != static_cast<int>(JobClass::Inference)) report.add("slowdown." + k, over_jobs(r, c, true));
  }
  for (int l = 0; l < kLosses; ++l) {
    std::vector<double> v;
    for (const auto& rep : r.replications) v.push_back(rep.lost_gpu_hours[l]);
    report.add(std::string("gpu_hours_lost.") + loss_key(static_cast<Loss>(l)), summarize(v));
  }
  for (int c = 0; c < kJobClasses; ++c) {
    std::vector<double> v;
    for (const auto& rep : r.replications) v.push_back(rep.allocated_gpu_hours[c]);
    report.add(std::string("allocated_gpu_hours.") + class_key(static_cast<JobClass>(c)), summarize(v));
  }
  report.add("preemptions", over_reps(r, [](const PoolReplication& p) { return static_cast<double>(p.preemptions); }));
  report.add("elastic_resizes", over_reps(r, [](const PoolReplication& p) { return static_cast<double>(p.elastic_resizes); }));
  report.add("node_failures", over_reps(r, [](const PoolReplication& p) { return static_cast<double>(p.node_failures); }));
  report.add("jobs_submitted", over_reps(r, [](const PoolReplication& p) { return static_cast<double>(p.submitted); }));
  report.add("jobs_finished", over_reps(r, [](const PoolReplication& p) { return static_cast<double>(p.finished); }));
  report.add("topology_compact_share", over_reps(r, [](const PoolReplication& p) {
               return p.multi_node_jobs > 0 ? static_cast<double>(p.compact_multi_node_jobs) / p.multi_node_jobs : 1.0;
             }));
  if (!r.replications.empty() && r.replications.front().interference.enabled) add_interference_metrics(r, report);
  report.add("events", over_reps(r, [](const PoolReplication& p) { return static_cast<double>(p.events); }));
  if (r.stragglers) {
    report.add("straggling_job_share", over_reps(r, [](const PoolReplication& p) {
                 return p.straggler_jobs > 0 ? static_cast<double>(p.straggling_jobs) / static_cast<double>(p.straggler_jobs) : 0.0;
               }));
    report.add("straggler_waste_share", over_reps(r, [](const PoolReplication& p) {
                 return p.straggler_counted_gpu_hours > 0 ? p.straggler_wasted_gpu_hours / p.straggler_counted_gpu_hours : 0.0;
               }));
    auto share = [](long long a, long long b) { return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0; };
    std::vector<double> ls, sq, sh;
    for (const auto& p : r.replications) {
      ls.push_back(share(p.last_stage_majority_jobs, p.straggler_jobs));
      sq.push_back(share(p.sequence_straggling_jobs, p.straggling_jobs));
      sh.push_back(share(p.host_majority_straggling_jobs, p.straggling_jobs));
    }
    report.add("straggler_causes.last_stage_majority", summarize(ls));
    report.add("straggler_causes.sequence_length", summarize(sq));
    report.add("straggler_causes.slow_host_majority", summarize(sh));
    report.add("straggler_jobs", over_reps(r, [](const PoolReplication& p) { return static_cast<double>(p.straggler_jobs); }));
  }
  report.add("pool_gpus", static_cast<double>(r.topology.nodes) * r.topology.gpus_per_node);
  if (!r.replications.empty())
    report.add("days", r.replications.front().t_h.size() > 0 ? r.replications.front().pool_gpu_hours /
                                                                    (static_cast<double>(r.topology.nodes) * r.topology.gpus_per_node) / 24.0
                                                              : 0.0);
}

void write_pool_results(const std::string& path, const Scenario& s, const PoolResult& r, const std::string& command,
                        const std::function<void(ResultsFile&)>& annotate) {
  ResultsFile f(path);
  f.write_meta({s.file, s.resolved_yaml, s.run.seed, s.pool.replications, command});
  Report report;
  report.set_prefix("pool.");
  add_pool_metrics(r, report);
  f.write_metrics(report);
  std::vector<double> alloc, frag, slo;
  std::vector<std::vector<double>> lost(kLosses);
  for (const auto& rep : r.replications) {
    alloc.push_back(rep.allocation_share);
    frag.push_back(rep.fragmentation_share);
    slo.push_back(rep.slo_attainment);
    for (int l = 0; l < kLosses; ++l) lost[l].push_back(rep.lost_gpu_hours[l]);
  }
  std::vector<Column> reps = {
      {"allocation_share", "1", "GPU-hours allocated / pool GPU-hours", alloc},
      {"fragmentation_share", "1", "GPU-hours free but unusable for the queue's head / pool GPU-hours", frag},
      {"slo_attainment", "1", "inference service-time meeting the SLO", slo},
  };
  for (int l = 0; l < kLosses; ++l)
    reps.push_back({std::string("gpu_hours_lost_") + loss_key(static_cast<Loss>(l)), "GPU-h", "pool GPU-hours lost", lost[l]});
  f.write_table("pool_replications", reps, "one row per pool replication");
  if (!r.replications.empty()) {
    const auto& p = r.replications.front();
    f.write_table("pool_timeseries",
                  {{"time_h", "h", "time since the start", p.t_h},
                   {"allocation_share", "1", "allocated GPUs / pool GPUs", p.alloc},
                   {"training_share", "1", "GPUs allocated to training / pool GPUs", p.alloc_training},
                   {"inference_share", "1", "GPUs of needed inference replicas / pool GPUs", p.alloc_inference},
                   {"development_share", "1", "GPUs allocated to development jobs / pool GPUs", p.alloc_dev},
                   {"fragmentation_share", "1", "free GPUs unusable for the queue's head / pool GPUs", p.frag},
                   {"queued_gpus", "count", "GPUs requested by queued jobs", p.queued_gpus}},
                  "pool time series of replication 0, one row per pool.inference_interval");
    if (p.interference.enabled) {
      f.write_table("pool_link_load",
                    {{"time_h", "h", "time since the start", p.t_h},
                     {"mean_load", "1", "offered load / capacity, mean over the fabric's switch bundles", p.interference.link_load_mean},
                     {"max_load", "1", "offered load / capacity of the most loaded bundle", p.interference.link_load_max},
                     {"hot_links", "count", "bundles offered more than their capacity", p.interference.hot_links}},
                    "fabric link load over time (pool.interference), replication 0");
      std::vector<double> idx, cap, mean, peak, shared;
      std::string names;
      for (const auto& l : p.interference.worst_links) {
        idx.push_back(static_cast<double>(idx.size()));
        cap.push_back(l.capacity);
        mean.push_back(l.mean_load);
        peak.push_back(l.peak_load);
        shared.push_back(l.shared_hours);
        names += (names.empty() ? "" : ",") + l.name;
      }
      f.write_table("pool_worst_links",
                    {{"rank", "count", "0 = highest mean load", idx},
                     {"capacity", "1", "NIC line rates", cap},
                     {"mean_load", "1", "time-mean offered load / capacity", mean},
                     {"peak_load", "1", "highest offered load / capacity", peak},
                     {"shared_hours", "h", "hours with more than one job on the link", shared}},
                    "the most loaded fabric links of replication 0, in rank order: " + names);
    }
  }
  if (annotate) annotate(f);
  f.commit();
}

}  // namespace pool
}  // namespace fleetsim
