#include "sim/config/pool_config.hpp"
#include "sim/config/pool_trace.hpp"
#include "sim/core/error.hpp"
#include "sim/core/files.hpp"
#include "sim/core/limits.hpp"

#include <cstdio>

namespace fleetsim::config {
namespace {

// The work and memory a pool asks for (sim/core/limits.hpp), from its keys alone: refused at load
// with the key to change, before a replication allocates its jobs or loops over its time steps.
void check_pool_limits(const PoolSpec& o, const std::string& file) {
  auto fail = [&](const std::string& key, const char* fmt, double value, double limit) {
    char buf[320];
    std::snprintf(buf, sizeof buf, fmt, value, limit);
    throw ConfigError(file, key, buf);
  };
  const double horizon = o.warmup_s + o.duration_s;  // simulated per replication
  const double reps = o.replications;
  const double jobs = (o.training.trace.empty() ? o.training.arrival_rate : 0.0) * horizon + o.dev.arrival_rate * horizon;
  if (!(jobs <= limits::kMaxPoolJobsPerReplication))
    fail(o.training.arrival_rate * horizon >= o.dev.arrival_rate * horizon ? "pool.training.arrival_rate"
                                                                            : "pool.development.arrival_rate",
         "submits about %.3g jobs per replication (arrival rates x (pool.warmup + pool.duration)); the limit is %.0f: "
         "lower the rate or shorten pool.duration", jobs, limits::kMaxPoolJobsPerReplication);
  if (!(jobs * reps <= limits::kMaxPoolJobs))
    fail("pool.replications", "x the jobs per replication is about %.3g jobs; the limit is %.0f: use fewer replications",
         jobs * reps, limits::kMaxPoolJobs);
  const double samples = horizon / o.inference_interval_s;
  if (!(samples <= limits::kMaxPoolSamplesPerReplication))
    fail("pool.inference_interval", "gives %.3g time steps per replication ((pool.warmup + pool.duration) / "
         "inference_interval); the limit is %.0f: use a longer interval", samples, limits::kMaxPoolSamplesPerReplication);
  if (!(samples * reps <= limits::kMaxPoolSamples))
    fail("pool.replications", "x the time steps per replication is %.3g samples kept; the limit is %.0f: use fewer "
         "replications or a longer pool.inference_interval", samples * reps, limits::kMaxPoolSamples);
  if (o.policy == QueuePolicy::Backfill && !(horizon / o.backfill_interval_s <= limits::kMaxPoolPasses))
    fail("pool.scheduler.backfill_interval", "gives %.3g backfill passes per replication; the limit is %.0f: use a "
         "longer interval", horizon / o.backfill_interval_s, limits::kMaxPoolPasses);
  double services = 0;
  for (const auto& g : o.inference) services += g.services;
  if (!(services <= limits::kMaxPoolServices))
    fail("pool.inference", "holds %.0f services in all; the limit is %.0f", services, limits::kMaxPoolServices);
  if (!(services * samples <= limits::kMaxPoolServiceTicks))
    fail("pool.inference_interval", "x the services gives %.3g service updates per replication; the limit is %.0f: "
         "use a longer interval or fewer services", services * samples, limits::kMaxPoolServiceTicks);
  if (!o.training.trace.empty())
    if (const std::string problem = file_problem(o.training.trace, 64u << 20, "a CSV file"); !problem.empty())
      throw ConfigError(file, "pool.training.trace", "'" + o.training.trace + "' " + problem);
}

}  // namespace

void build_pool(const ParamSet& p, bool present, Scenario& s, const std::string& file) {
  PoolSpec& o = s.pool;
  o.enabled = present;
  o.gpus = p.integer("gpus");
  o.spare_nodes = p.integer("spare_nodes");
  o.run_job = p.flag("run_job");
  o.duration_s = p.get<Seconds>("duration").si();
  o.warmup_s = p.get<Seconds>("warmup").si();
  o.replications = p.integer("replications");
  o.failures = p.flag("failures");
  o.reset_time_s = p.get<Seconds>("reset_time").si();
  const ParamSet& sc = p.sub("scheduler");
  const std::string& pol = sc.text("policy");
  o.policy = pol == "fifo" ? QueuePolicy::Fifo : pol == "priority" ? QueuePolicy::Priority : QueuePolicy::Backfill;
  o.preemption = sc.flag("preemption");
  o.min_runtime_before_preemption_s = sc.get<Seconds>("min_runtime_before_preemption").si();
  o.backfill_depth = sc.integer("backfill_depth");
  o.backfill_interval_s = sc.get<Seconds>("backfill_interval").si();
  const std::string& pl = p.text("placement");
  o.placement = pl == "first-fit" ? PlacementPolicy::FirstFit
              : pl == "topology" ? PlacementPolicy::Topology
              : pl == "fragmentation-aware" ? PlacementPolicy::FragmentationAware
              : pl == "network-aware" ? PlacementPolicy::NetworkAware
              : pl == "same-switch" ? PlacementPolicy::SameSwitch
                                            : PlacementPolicy::BestFit;
  o.colocation = p.text("colocation") == "tidal" ? Colocation::Tidal : Colocation::None;
  o.reclaim_time_s = p.get<Seconds>("reclaim_time").si();
  o.inference_interval_s = p.get<Seconds>("inference_interval").si();
  const ParamSet& t = p.sub("training");
  o.training.arrival_rate = t.get<PerSecond>("arrival_rate").si();
  o.training.diurnal_peak_to_trough = t.num("diurnal_peak_to_trough");
  o.training.peak_hour = t.num("peak_hour");
  o.training.size_median_gpus = t.num("size_median_gpus");
  o.training.size_sigma_log2 = t.num("size_sigma_log2");
  o.training.max_gpus = t.integer("max_gpus");
  o.training.duration_median_s = t.get<Seconds>("duration_median").si();
  o.training.duration_sigma = t.num("duration_sigma");
  o.training.max_duration_s = t.get<Seconds>("max_duration").si();
  o.training.high_priority_share = t.num("high_priority_share");
  o.training.elastic_share = t.num("elastic_share");
  o.training.elastic_min_fraction = t.num("elastic_min_fraction");
  o.training.elastic_resize = t.flag("elastic_resize");
  o.training.elastic_resize_time_s = t.get<Seconds>("elastic_resize_time").si();
  if (o.training.elastic_resize && o.placement == PlacementPolicy::SameSwitch)
    throw ConfigError(file, "pool.training.elastic_resize",
                      "elastic resizing moves whole nodes, but placement same-switch gives jobs GPUs on partly used hosts; "
                      "use placement topology, first-fit or best-fit with elastic_resize, or set elastic_resize: false");
  o.training.checkpoint_interval_s = t.get<Seconds>("checkpoint_interval").si();
  o.training.restart_time_s = t.get<Seconds>("restart_time").si();
  o.training.trace = t.text("trace");
  o.training.size_classes.clear();
  for (const ParamSet& row : t.at("size_classes").rows)
    o.training.size_classes.push_back({row.integer("gpus"), row.num("share"), row.get<Seconds>("duration_median").si(),
                                       row.num("duration_sigma")});
  {
    const ParamSet& g = p.sub("stragglers");
    auto& st = o.stragglers;
    st.enabled = g.flag("enabled");
    st.min_job_gpus = g.integer("min_job_gpus");
    st.straggling_threshold = g.num("straggling_threshold");
    st.tensor_parallel = g.integer("tensor_parallel");
    st.pipeline_share = g.num("pipeline_share");
    st.pipeline_stages_max = g.integer("pipeline_stages_max");
    st.layers_per_stage_min = g.integer("layers_per_stage_min");
    st.layers_per_stage_max = g.integer("layers_per_stage_max");
    if (st.layers_per_stage_max < st.layers_per_stage_min)
      throw ConfigError(file, "pool.stragglers.layers_per_stage_max", "must be at least layers_per_stage_min (" +
                                                                          std::to_string(st.layers_per_stage_min) + ")");
    st.loss_layer_forward = g.num("loss_layer_forward");
    st.loss_layer_backward = g.num("loss_layer_backward");
    st.stage_balanced_share = g.num("stage_balanced_share");
    st.loss_layer_size_exponent = g.num("loss_layer_size_exponent");
    st.microbatches_per_stage = g.integer("microbatches_per_stage");
    st.compute_share = g.num("compute_share");
    st.sequence_imbalance_share = g.num("sequence_imbalance_share");
    st.seq_length = g.num("seq_length");
    st.seq_doc_median = g.num("seq_doc_median");
    st.seq_doc_sigma = g.num("seq_doc_sigma");
    st.seq_packing = g.flag("seq_packing");
    st.attention_share = g.num("attention_share");
    st.gc_unsynchronized_share = g.num("gc_unsynchronized_share");
    st.gc_pause_s = g.get<Seconds>("gc_pause").si();
    st.gc_interval_steps = g.num("gc_interval_steps");
    st.step_time_median_s = g.get<Seconds>("step_time_median").si();
    st.step_time_sigma = g.num("step_time_sigma");
    st.slow_host_node_probability = g.num("slow_host_node_probability");
    st.slow_host_slowdown_median = g.num("slow_host_slowdown_median");
    st.slow_host_slowdown_sigma = g.num("slow_host_slowdown_sigma");
    st.slow_host_episode_min_s = g.get<Seconds>("slow_host_episode_min").si();
    st.slow_host_episode_max_s = g.get<Seconds>("slow_host_episode_max").si();
    if (st.slow_host_episode_max_s > 0 && !(st.slow_host_episode_min_s > 0))
      throw ConfigError(file, "pool.stragglers.slow_host_episode_min",
                        "must be above 0 when slow_host_episode_max is set (the episode is log-uniform between them)");
    if (st.slow_host_episode_min_s > 0 && st.slow_host_episode_max_s < st.slow_host_episode_min_s)
      throw ConfigError(file, "pool.stragglers.slow_host_episode_max",
                        "must be at least slow_host_episode_min (0 would keep the slow host to the end)");
    st.device_speed_sigma = g.num("device_speed_sigma");
  }
  const ParamSet& d = p.sub("development");
  o.dev.arrival_rate = d.get<PerSecond>("arrival_rate").si();
  o.dev.gpu_fraction = d.num("gpu_fraction");
  o.dev.duration_median_s = d.get<Seconds>("duration_median").si();
  o.dev.duration_sigma = d.num("duration_sigma");
  o.inference.clear();
  for (const ParamSet& row : p.at("inference").rows) {
    InferenceGroup g;
    g.name = row.text("name");
    g.services = row.integer("services");
    g.replica_gpus = row.integer("replica_gpus");
    g.peak_replicas = row.integer("peak_replicas");
    g.trough_ratio = row.num("trough_ratio");
    g.peak_hour = row.num("peak_hour");
    g.weekend_ratio = row.num("weekend_ratio");
    g.trace = row.text("demand_trace");
    if (!g.trace.empty())
      read_demand_trace(g, row.text("demand_time_column"), row.text("demand_column"), row.text("demand_in") == "gpus",
                        row.num("demand_scale"), file, "pool.inference[" + std::to_string(o.inference.size()) + "].demand_trace");
    o.inference.push_back(g);
  }
  build_pool_interference(p.sub("interference"), s, file, present);
  if (!present) return;

  // Rules that need the rest of the scenario.
  auto fail = [&](const std::string& key, const std::string& msg) { throw ConfigError(file, key, msg); };
  const int node_gpus = s.cluster.node.gpus_per_node;
  const int pool_gpus = o.gpus > 0 ? o.gpus : s.cluster.gpus;
  if (pool_gpus % node_gpus != 0)
    fail(o.gpus > 0 ? "pool.gpus" : "cluster.gpus",
         std::to_string(pool_gpus) + " GPUs is not a whole number of " + std::to_string(node_gpus) + "-GPU nodes");
  const int pool_nodes = pool_gpus / node_gpus;
  if (o.spare_nodes >= pool_nodes)
    fail("pool.spare_nodes", std::to_string(o.spare_nodes) + " spare nodes leave nothing of the " +
                                 std::to_string(pool_nodes) + "-node pool to schedule");
  const int usable = (pool_nodes - o.spare_nodes) * node_gpus;
  if (o.run_job && s.cluster.gpus > usable)
    fail("pool.gpus", "the scenario's job (cluster.gpus = " + std::to_string(s.cluster.gpus) +
                          ") does not fit the pool's " + std::to_string(usable) +
                          " schedulable GPUs; give a larger pool or pool.run_job: false");
  if (o.training.trace.empty() && o.training.size_classes.empty() && o.training.arrival_rate > 0 &&
      o.training.max_gpus > usable)
    fail("pool.training.max_gpus", "a job of " + std::to_string(o.training.max_gpus) +
                                       " GPUs is larger than the pool's " + std::to_string(usable) +
                                       " schedulable GPUs; give at most " + std::to_string(usable));
  double class_shares = 0;
  for (size_t i = 0; i < o.training.size_classes.size(); ++i) {
    const auto& c = o.training.size_classes[i];
    if (o.training.trace.empty() && o.training.arrival_rate > 0 && c.gpus > usable)
      fail("pool.training.size_classes[" + std::to_string(i) + "].gpus",
           "a job of " + std::to_string(c.gpus) + " GPUs is larger than the pool's " + std::to_string(usable) +
               " schedulable GPUs; give at most " + std::to_string(usable));
    class_shares += c.share;
  }
  if (!o.training.size_classes.empty() && !(class_shares > 0))
    fail("pool.training.size_classes", "the shares of the size classes add up to 0; give at least one share > 0");
  if (o.dev.gpu_fraction > node_gpus)
    fail("pool.development.gpu_fraction", "development jobs must fit one node (" + std::to_string(node_gpus) + " GPUs)");
  bool any_service = false;
  for (size_t i = 0; i < o.inference.size(); ++i) {
    const auto& g = o.inference[i];
    const std::string k = "pool.inference[" + std::to_string(i) + "]";
    if (g.replica_gpus > node_gpus && g.replica_gpus % node_gpus != 0)
      fail(k + ".replica_gpus", "a replica larger than one node must be whole nodes (multiples of " +
                                    std::to_string(node_gpus) + ")");
    if (static_cast<long long>(g.services) * g.peak_replicas * g.replica_gpus > usable)
      fail(k + ".peak_replicas", "the group's peak (" + std::to_string(static_cast<long long>(g.services) * g.peak_replicas * g.replica_gpus) +
                                     " GPUs) is larger than the pool's " + std::to_string(usable) + " schedulable GPUs");
    any_service = any_service || (g.services > 0 && g.peak_replicas > 0);
  }
  if (o.training.trace.empty() && o.training.arrival_rate <= 0 && o.dev.arrival_rate <= 0 && !any_service &&
      o.interference.jobs.empty())
    fail("pool.training.arrival_rate", "the job stream is empty: give pool.training.arrival_rate (e.g. '10 /h'), "
                                       "pool.training.trace, pool.development.arrival_rate or pool.inference services");
  // Issue 40: same-switch placement with the interference model has no bound on its work at scale
  // (sim/pool/README.md: jobs that no leaf holds spread over many pods and each link update is
  // O(jobs on the link); 100,000 GPUs x 30 days took 326 s on an idle machine, 16,384 GPUs with the
  // same job stream 12 s on the loaded 2-core one): refused above
  // limits::kMaxSameSwitchInterferenceGpus rather than left running.
  if (o.placement == PlacementPolicy::SameSwitch && o.interference.enabled &&
      pool_gpus > limits::kMaxSameSwitchInterferenceGpus)
    fail("pool.placement", "same-switch with pool.interference.enabled: true is limited to " +
                               std::to_string(limits::kMaxSameSwitchInterferenceGpus) + " GPUs (its link updates grow "
                               "with the jobs per link: 326 s at 100,000 GPUs); this pool has " + std::to_string(pool_gpus) +
                               " GPUs: valid: placement topology or first-fit at this size, interference off, or a pool "
                               "of at most " + std::to_string(limits::kMaxSameSwitchInterferenceGpus) + " GPUs");
  // Issue 40: straggler settings that once were accepted and gave meaningless shares.
  if (o.stragglers.enabled) {
    const int tp = o.stragglers.tensor_parallel;
    if (tp > node_gpus || node_gpus % tp != 0)
      fail("pool.stragglers.tensor_parallel", std::to_string(tp) + " does not divide the " + std::to_string(node_gpus) +
                                                   "-GPU node (a tensor-parallel group stays inside one node); valid: a "
                                                   "divisor of " + std::to_string(node_gpus) + " (1, 2, 4 or 8 on 8-GPU nodes)");
    if (o.stragglers.min_job_gpus > usable)
      fail("pool.stragglers.min_job_gpus", std::to_string(o.stragglers.min_job_gpus) + " GPUs is larger than the pool's " +
                                               std::to_string(usable) + " schedulable GPUs, so no job would be counted in "
                                               "the straggler shares; valid: 1 to " + std::to_string(usable));
  }
  if (o.policy != QueuePolicy::Priority && o.preemption)
    fail("pool.scheduler.preemption", "preemption needs pool.scheduler.policy: priority");
  check_pool_limits(o, file);
}

}  // namespace fleetsim::config
