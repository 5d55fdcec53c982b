#include "sim/config/scenario_builder.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "sim/config/pool_config.hpp"
#include "sim/core/csv.hpp"
#include "sim/core/error.hpp"
#include "sim/core/paths.hpp"
#include "sim/core/limits.hpp"
#include "sim/units/parse.hpp"
#include "sim/workload/layout_rules.hpp"

namespace fleetsim::config {

std::vector<GemmMPoint> read_gemm_m_curve(const std::string& name) {
  // A file name under data/supplement (sim/core/paths.hpp), never a path outside it.
  if (name.find('/') != std::string::npos || name.find("..") != std::string::npos)
    throw ConfigError("gpu preset", "gemm_m_curve", "'" + name + "' is not a file name under " + data_dir() +
                                          "/supplement (e.g. hopper_gemm_vs_m.csv)");
  const CsvTable t = read_csv(data_dir() + "/supplement/" + name);
  t.require_columns({"m", "n", "k", "tflops"});
  std::vector<GemmMPoint> curve;
  for (size_t i = 0; i < t.size(); ++i) {
    const GemmMPoint pt{t.num(i, "m"), t.num(i, "n"), t.num(i, "k"), t.num(i, "tflops")};
    if (!(pt.m > 0 && pt.n > 0 && pt.k > 0 && pt.tflops > 0))
      throw ConfigError(t.path, "m, n, k, tflops", "must all be positive", t.row_lines[i]);
    curve.push_back(pt);
  }
  // Every K row needs at least two M points at one N, so the curve can be read relative to its top.
  for (const auto& p : curve) {
    int same = 0;
    for (const auto& q : curve) same += (q.k == p.k && q.n == p.n) ? 1 : 0;
    if (same < 2 || std::any_of(curve.begin(), curve.end(), [&](const GemmMPoint& q) { return q.k == p.k && q.n != p.n; }))
      throw ConfigError(t.path, "k", "each k needs at least two rows at one n (k " + std::to_string(p.k) + ")");
  }
  return curve;
}

GpuSpec build_gpu(const ParamSet& p) {
  GpuSpec g;
  g.name = p.preset_name;
  g.memory = p.get<Bytes>("memory");
  g.hbm_bandwidth = p.get<BytesPerSecond>("hbm_bandwidth");
  g.peak_bf16 = p.get<FlopsPerSecond>("peak_bf16");
  g.peak_fp8 = p.get<FlopsPerSecond>("peak_fp8");
  g.sm_count = p.integer("sm_count");
  g.tdp = p.get<Watts>("tdp");
  g.idle_power = p.get<Watts>("idle_power");
  g.gemm_efficiency = p.num("gemm_efficiency");
  g.gemm_efficiency_fp8 = p.num("gemm_efficiency_fp8");
  g.fp8_blockwise_gemm_ratio = p.num("fp8_blockwise_gemm_ratio");
  g.gemm_half_efficiency_work = p.get<Flops>("gemm_half_efficiency_work");
  g.attention_efficiency = p.num("attention_efficiency");
  g.hbm_efficiency = p.num("hbm_efficiency");
  g.unfused_attention_hbm_efficiency = p.num("unfused_attention_hbm_efficiency");
  g.kernel_launch_overhead = p.get<Seconds>("kernel_launch_overhead");
  g.usable_memory_reserve = p.get<Bytes>("usable_memory_reserve");
  g.thermal_resistance = p.get<KelvinPerWatt>("thermal_resistance");
  g.throttle_temperature = p.celsius("throttle_temperature");
  g.throttle_slope_per_kelvin = p.num("throttle_slope_per_kelvin");
  g.tp_overlap_exposed_share = p.num("tp_overlap_exposed_share");
  if (!p.text("gemm_m_curve").empty()) g.gemm_m_curve = read_gemm_m_curve(p.text("gemm_m_curve"));
  return g;
}

NodeSpec build_node(const ParamSet& p) {
  NodeSpec n;
  n.name = p.preset_name;
  n.gpus_per_node = p.integer("gpus_per_node");
  n.nvlink_domain_gpus = p.integer("nvlink_domain_gpus");
  n.nvlink_bandwidth = p.get<BytesPerSecond>("nvlink_bandwidth");
  n.nvlink_latency = p.get<Seconds>("nvlink_latency");
  n.nvlink_efficiency = p.num("nvlink_efficiency");
  n.nvlink_sharp = p.flag("nvlink_sharp");
  n.nics_per_node = p.integer("nics_per_node");
  n.nic_bandwidth = p.get<BytesPerSecond>("nic_bandwidth");
  n.host_power_idle = p.get<Watts>("host_power_idle");
  n.host_power_max = p.get<Watts>("host_power_max");
  n.fan_power_max = p.get<Watts>("fan_power_max");
  n.liquid_cooled_only = p.flag("liquid_cooled_only");
  return n;
}

FabricSpec build_fabric(const ParamSet& p) {
  FabricSpec f;
  f.name = p.preset_name;
  f.topology = p.text("topology") == "fat_tree" ? FabricTopology::FatTree : FabricTopology::RailOptimized;
  f.tiers = p.integer("tiers");
  f.switch_radix = p.integer("switch_radix");
  f.gpus_per_leaf = p.integer("gpus_per_leaf");
  f.oversubscription = p.num("oversubscription");
  f.pod_gpus = p.integer("pod_gpus");
  f.pod_oversubscription = p.num("pod_oversubscription");
  f.link_bandwidth = p.get<BytesPerSecond>("link_bandwidth");
  f.hop_latency = p.get<Seconds>("hop_latency");
  f.efficiency = p.num("efficiency");
  f.switch_power = p.get<Watts>("switch_power");
  return f;
}

CoolingSpec build_cooling(const ParamSet& p) {
  CoolingSpec c;
  c.name = p.preset_name;
  const std::string& k = p.text("kind");
  c.kind = k == "air_economizer" ? CoolingKind::AirEconomizer
         : k == "liquid_direct"  ? CoolingKind::LiquidDirect
         : k == "immersion"      ? CoolingKind::Immersion
                                 : CoolingKind::AirChiller;
  c.fixed_loss = p.num("fixed_loss");
  c.proportional_loss = p.num("proportional_loss");
  c.square_loss = p.num("square_loss");
  c.fan_pump_fraction = p.num("fan_pump_fraction");
  c.chiller_cop_at_25c = p.num("chiller_cop_at_25c");
  c.chiller_cop_per_kelvin = p.num("chiller_cop_per_kelvin");
  c.economizer_threshold = p.celsius("economizer_threshold");
  c.economizer_cop = p.num("economizer_cop");
  c.gpu_inlet_temperature = p.celsius("gpu_inlet_temperature");
  c.inlet_tracks_outdoor = p.num("inlet_tracks_outdoor");
  c.server_fan_fraction = p.num("server_fan_fraction");
  c.thermal_resistance_scale = p.num("thermal_resistance_scale");
  c.failure_rate_multiplier = p.num("failure_rate_multiplier");
  c.economizer_partial_band = p.get<Kelvin>("economizer_partial_band");
  c.throughput_multiplier = p.num("throughput_multiplier");
  return c;
}

FailureProfile build_failures(const ParamSet& p) {
  FailureProfile f;
  f.name = p.preset_name;
  for (const ParamSet& row : p.at("components").rows) {
    FailureComponent c;
    c.name = row.text("name");
    c.category = row.text("category");
    const std::string& scope = row.text("scope");
    c.scope = scope == "node" ? ComponentScope::Node
            : scope == "nic" ? ComponentScope::Nic
            : scope == "leaf_switch" ? ComponentScope::LeafSwitch
            : scope == "spine_switch" ? ComponentScope::SpineSwitch
            : scope == "link" ? ComponentScope::Link
            : scope == "job" ? ComponentScope::Job
            : scope == "domain" ? ComponentScope::Domain
                             : ComponentScope::Gpu;
    c.domain_gpus = row.integer("domain_gpus");
    c.rate = row.get<PerSecond>("rate");
    c.weibull_shape = row.num("weibull_shape");
    c.mode = row.text("mode") == "hang" ? FailureMode::Hang : FailureMode::Crash;
    c.needs_repair = row.flag("needs_repair");
    c.correlated_node_loss = row.flag("correlated_node_loss");
    f.components.push_back(c);
  }
  f.lemon_fraction = p.num("lemon_fraction");
  f.lemon_multiplier = p.num("lemon_multiplier");
  f.lemon_distribution = p.text("lemon_distribution") == "lognormal" ? LemonDistribution::Lognormal : LemonDistribution::TwoPoint;
  f.lemon_sigma = p.num("lemon_sigma");
  f.lemon_model = p.text("lemon_model") == "per_node" ? LemonModel::PerNode : LemonModel::FleetAverage;
  const ParamSet& ret = p.sub("lemon_retirement");
  f.lemon_retirement.after_failures = static_cast<int>(ret.integer("after_failures"));
  f.lemon_retirement.window = ret.get<Seconds>("window");
  f.planned_rate_per_job = p.get<PerSecond>("planned_rate_per_job");
  f.rate_scale = p.num("rate_scale");
  f.repair_median = p.get<Seconds>("repair_median");
  f.repair_sigma = p.num("repair_sigma");
  f.fleet_age = p.get<Seconds>("fleet_age");
  return f;
}

ModelSpec build_model(const ParamSet& p) {
  ModelSpec m;
  m.name = p.preset_name;
  m.num_layers = p.integer("num_layers");
  m.hidden_size = p.integer("hidden_size");
  m.ffn_hidden_size = p.integer("ffn_hidden_size");
  m.num_attention_heads = p.integer("num_attention_heads");
  m.num_query_groups = p.integer("num_query_groups");
  if (m.num_query_groups == 0) m.num_query_groups = m.num_attention_heads;
  m.seq_length = p.integer("seq_length");
  m.vocab_size = p.integer("vocab_size");
  m.swiglu = p.flag("swiglu");
  m.untie_embeddings_and_output_weights = p.flag("untie_embeddings_and_output_weights");
  m.dropout = p.flag("dropout");
  m.num_experts = p.integer("num_experts");
  m.moe_router_topk = p.integer("moe_router_topk");
  m.moe_capacity_factor = p.num("moe_capacity_factor");
  m.moe_layer_freq = p.integer("moe_layer_freq");
  m.moe_ffn_hidden_size = p.integer("moe_ffn_hidden_size");
  m.moe_shared_experts = p.integer("moe_shared_experts");
  m.moe_first_dense_layers = p.integer("moe_first_dense_layers");
  m.moe_router_max_nodes = p.integer("moe_router_max_nodes");
  m.moe_token_distribution = p.text("moe_token_distribution");
  m.moe_zipf_exponent = p.num("moe_zipf_exponent");
  m.mtp_depth = p.integer("mtp_depth");
  m.q_lora_rank = p.integer("q_lora_rank");
  m.kv_lora_rank = p.integer("kv_lora_rank");
  m.qk_nope_head_dim = p.integer("qk_nope_head_dim");
  m.qk_rope_head_dim = p.integer("qk_rope_head_dim");
  m.v_head_dim = p.integer("v_head_dim");
  return m;
}

namespace {

ParallelSpec build_parallel(const ParamSet& p) {
  ParallelSpec s;
  s.tensor_model_parallel_size = p.integer("tensor_model_parallel_size");
  s.pipeline_model_parallel_size = p.integer("pipeline_model_parallel_size");
  s.virtual_pipeline_model_parallel_size = p.integer("virtual_pipeline_model_parallel_size");
  const std::string& schedule = p.text("pipeline_schedule");
  s.pipeline_schedule = schedule == "llama3"     ? PipelineScheduleKind::Llama3
                        : schedule == "dualpipe" ? PipelineScheduleKind::DualPipe
                                                 : PipelineScheduleKind::Megatron;
  s.microbatch_group_size_per_vp_stage = p.integer("microbatch_group_size_per_vp_stage");
  s.context_parallel_size = p.integer("context_parallel_size");
  s.expert_model_parallel_size = p.integer("expert_model_parallel_size");
  s.sequence_parallel = p.flag("sequence_parallel");
  const std::string& r = p.text("recompute_granularity");
  s.recompute_granularity = r == "full" ? Recompute::Full : r == "selective" ? Recompute::Selective : Recompute::None;
  s.use_distributed_optimizer = p.flag("use_distributed_optimizer");
  s.zero_stage = p.integer("zero_stage");
  if (s.use_distributed_optimizer && s.zero_stage == 0) s.zero_stage = 1;
  s.overlap_grad_reduce = p.flag("overlap_grad_reduce");
  s.overlap_param_gather = p.flag("overlap_param_gather");
  s.fsdp_reshard_after_forward = p.flag("fsdp_reshard_after_forward");
  s.dp_comm_sms = p.integer("dp_comm_sms");
  s.ep_comm_sms = p.integer("ep_comm_sms");
  s.overlap_sm_contention = p.flag("overlap_sm_contention");
  s.overlap_hbm_contention = p.flag("overlap_hbm_contention");
  s.fsdp_prefetch_ops = p.integer("fsdp_prefetch_ops");
  s.tp_comm_overlap_rs_method =
      p.text("tp_comm_overlap_rs_method") == "ring_exchange" ? TpOverlapMethod::RingExchange : TpOverlapMethod::Pipeline;
  if (!p.at("tp_comm_overlap_rs_sms").ints.empty()) {
    s.tp_comm_overlap_rs_sms.clear();
    for (long long v : p.at("tp_comm_overlap_rs_sms").ints) s.tp_comm_overlap_rs_sms.push_back(static_cast<int>(v));
  }
  if (!p.at("tp_comm_overlap_bulk_sms").ints.empty()) {
    s.tp_comm_overlap_bulk_sms.clear();
    for (long long v : p.at("tp_comm_overlap_bulk_sms").ints) s.tp_comm_overlap_bulk_sms.push_back(static_cast<int>(v));
  }
  s.tp_comm_overlap_aggregate = p.flag("tp_comm_overlap_aggregate");
  s.tp_comm_overlap_rs_fp8_buf = p.flag("tp_comm_overlap_rs_fp8_buf");
  s.tp_comm_overlap_splits = p.integer("tp_comm_overlap_splits");

  s.cpu_offloading_num_layers = p.integer("cpu_offloading_num_layers");
  s.tp_comm_overlap = p.flag("tp_comm_overlap");
  s.overlap_p2p_comm = p.flag("overlap_p2p_comm");
  for (long long v : p.at("pipeline_layer_split").ints) s.pipeline_layer_split.push_back(static_cast<int>(v));
  s.rank_order = p.text("rank_order");
  return s;
}

RecoverySpec build_recovery(const ParamSet& p) {
  RecoverySpec r;
  r.detect_crash = p.get<Seconds>("detect_crash");
  r.detect_hang = p.get<Seconds>("detect_hang");
  r.diagnosis = p.get<Seconds>("diagnosis");
  r.reschedule_spare = p.get<Seconds>("reschedule_spare");
  r.reschedule_wait = p.get<Seconds>("reschedule_wait");
  r.init_base = p.get<Seconds>("init_base");
  r.init_reference_gpus = p.integer("init_reference_gpus");
  r.init_scaling_exponent = p.num("init_scaling_exponent");
  r.planned_downtime = p.get<Seconds>("planned_downtime");
  r.replica_reconfigure = p.get<Seconds>("replica_reconfigure");
  const std::string& pol = p.text("policy");
  r.policy = pol == "full_restart" ? RestartPolicy::FullRestart
           : pol == "replica_restart" ? RestartPolicy::ReplicaRestart
                                      : RestartPolicy::WarmSpares;
  r.spare_nodes = p.integer("spare_nodes");
  return r;
}

CheckpointSpec build_checkpoint(const ParamSet& p) {
  CheckpointSpec c;
  if (p.text("interval") == "daly") {
    c.interval_kind = CheckpointIntervalKind::Daly;
  } else {
    c.interval_kind = CheckpointIntervalKind::Fixed;
    c.interval = p.get<Seconds>("interval");
  }
  c.write_time = p.get<Seconds>("write_time");
  c.async = p.flag("async");
  c.storage_bandwidth = p.get<BytesPerSecond>("storage_bandwidth");
  c.load_bandwidth = p.get<BytesPerSecond>("load_bandwidth");
  c.bytes_per_param = p.num("bytes_per_param");
  return c;
}

StragglerSpec build_stragglers(const ParamSet& p) {
  StragglerSpec s;
  s.device_speed_sigma = p.num("device_speed_sigma");
  s.step_jitter_cv = p.num("step_jitter_cv");
  s.fail_slow_rate_per_node = p.get<PerSecond>("fail_slow_rate_per_node");
  s.fail_slow_slowdown = p.num("fail_slow_slowdown");
  s.fail_slow_detect = p.get<Seconds>("fail_slow_detect");
  s.device_speed_max_slowdown = p.num("device_speed_max_slowdown");
  s.fail_slow_kind = p.text("fail_slow_kind") == "network" ? FailSlowKind::Network : FailSlowKind::Compute;
  s.fail_slow_duration = p.get<Seconds>("fail_slow_duration");
  const std::string& policy = p.text("fail_slow_policy");
  s.fail_slow_policy = policy == "ignore" ? FailSlowPolicy::Ignore
                       : policy == "rebalance" ? FailSlowPolicy::Rebalance
                       : policy == "checkpoint_restart" ? FailSlowPolicy::CheckpointRestart
                                                        : FailSlowPolicy::Swap;
  s.gc_pause = p.get<Seconds>("gc_pause");
  s.gc_interval_steps = p.num("gc_interval_steps");
  s.gc_synchronized = p.flag("gc_synchronized");
  s.seq_doc_median = p.num("seq_doc_median");
  s.seq_doc_sigma = p.num("seq_doc_sigma");
  s.seq_packing = p.flag("seq_packing");
  s.seq_rebalance = p.flag("seq_rebalance");
  s.degraded_link_share = p.num("degraded_link_share");
  s.degraded_link_bandwidth = p.num("degraded_link_bandwidth");
  return s;
}

PowerDynamicsSpec build_power_dynamics(const ParamSet& p) {
  PowerDynamicsSpec d;
  d.timeline = p.flag("power_timeline");
  const ParamSet& t = p.sub("power_dynamics");
  d.resolution = t.get<Seconds>("resolution");
  d.window = t.get<Seconds>("window");
  d.window_start = t.get<Seconds>("window_start");
  d.gpu_time_constant = t.get<Seconds>("gpu_time_constant");
  d.cooling_time_constant = t.get<Seconds>("cooling_time_constant");
  d.rack_gpus = t.integer("rack_gpus");
  d.ramp_window = t.get<Seconds>("ramp_window");
  d.telemetry_average = t.get<Seconds>("telemetry_average");
  d.spectrum_window = t.get<Seconds>("spectrum_window");
  const ParamSet& sm = p.sub("power_smoothing");
  d.smoothing.floor = sm.num("floor");
  d.smoothing.ramp_up_rate = sm.get<WattsPerSecond>("ramp_up_rate");
  d.smoothing.ramp_down_rate = sm.get<WattsPerSecond>("ramp_down_rate");
  d.smoothing.hold_time = sm.get<Seconds>("hold_time");
  const ParamSet& st = p.sub("energy_storage");
  d.storage.capacity = st.get<Joules>("capacity");
  d.storage.power = st.get<Watts>("power");
  d.storage.efficiency = st.num("efficiency");
  d.storage.time_constant = st.get<Seconds>("time_constant");
  d.storage.location = st.text("location") == "rack" ? StorageLocation::Rack : StorageLocation::Site;
  const ParamSet& fw = p.sub("filler_work");
  d.filler.power_level = fw.num("power_level");
  d.filler.throughput_cost = fw.num("throughput_cost");
  return d;
}

FacilitySpec build_facility(const ParamSet& p, const CoolingSpec& cooling) {
  FacilitySpec f;
  f.cooling = cooling;
  const ParamSet& site = p.sub("site");
  f.site.mean_temperature = site.celsius("mean_temperature");
  f.site.seasonal_amplitude = site.get<Kelvin>("seasonal_amplitude");
  f.site.diurnal_amplitude = site.get<Kelvin>("diurnal_amplitude");
  f.site.hourly_csv = site.text("hourly_csv");
  f.site.energy_price = site.get<DollarsPerJoule>("energy_price");
  f.site.carbon_intensity = site.get<KilogramsPerJoule>("carbon_intensity");
  f.resource_utilization = p.num("resource_utilization");
  f.arrhenius_activation_ev = p.num("arrhenius_activation_ev");
  f.time_step = p.get<Seconds>("time_step");
  f.site.name = site.preset_name;
  f.site.warmest_day_of_year = site.integer("warmest_day_of_year");
  f.site.start_day_of_year = site.integer("start_day_of_year");
  f.gpu_activity_compute = p.num("gpu_activity_compute");
  f.gpu_activity_communication = p.num("gpu_activity_communication");
  f.gpu_power_exponent = p.num("gpu_power_exponent");
  f.design_it_power = p.get<Watts>("design_it_power");
  f.failure_reference_inlet_temperature = p.celsius("failure_reference_inlet_temperature");
  f.thermally_activated_failure_share = p.num("thermally_activated_failure_share");
  f.power = build_power_dynamics(p);
  return f;
}

const std::string& origin_of(const ParamSet& section, const std::string& key, const std::string& fallback) {
  auto it = section.values.find(key);
  if (it == section.values.end() || it->second.origin.empty() || it->second.origin == "default") return fallback;
  return it->second.origin;
}

// Limits on derived sizes (sim/core/limits.hpp): the facility time series and the GPU pool.
void check_work_limits(const Scenario& s, const ParamSet& p, const std::string& file) {
  const ParamSet& fac = p.sub("facility");
  // A token target may run up to the run model's 20-year horizon.
  const double horizon = s.workload.training.train_tokens.si() > 0 ? limits::kMaxRunSeconds : s.run.duration.si();
  const double steps = horizon / s.facility.time_step.si();
  if (!(steps <= limits::kMaxFacilitySteps)) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "gives %.3g facility time steps over the run; the limit is 1000000: use a "
                  "time_step of at least %s", steps, units::format(Seconds(horizon / limits::kMaxFacilitySteps)).c_str());
    throw ConfigError(origin_of(fac, "time_step", file), "facility.time_step", buf);
  }
  if (s.facility.power.timeline) {  // the power timeline's samples (issue #29): 1 d at 10 ms is 8.6e6
    const ParamSet& pd = fac.sub("power_dynamics");
    const auto& pw = s.facility.power;
    const double samples = std::max(pw.window, pw.spectrum_window) / pw.resolution;
    if (!(samples <= 1e8)) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "gives %.3g power samples (window / resolution); the limit is 1e8: use a "
                    "resolution of at least %s", samples, units::format(Seconds(std::max(pw.window, pw.spectrum_window).si() / 1e8)).c_str());
      throw ConfigError(origin_of(pd, "resolution", file), "facility.power_dynamics.resolution", buf);
    }
    // Issue 40: settings that gave meaningless figures. The resolution against one iteration is
    // checked when the step model has timed it (sim/pipeline/run_pipeline.cpp).
    const std::string K = "facility.power_dynamics.";
    if (!(pw.resolution < pw.window))
      throw ConfigError(origin_of(pd, "resolution", file), K + "resolution",
                        units::format(pw.resolution) + " is not shorter than the sampled window (" + K + "window = " +
                            units::format(pw.window) + "); valid: a resolution below the window and below one "
                            "iteration (default 10 ms)");
    if (s.workload.training.train_tokens.si() <= 0 && !(pw.window_start < s.run.duration))
      throw ConfigError(origin_of(pd, "window_start", file), K + "window_start",
                        units::format(pw.window_start) + " is at or past the end of the run (run.duration = " +
                            units::format(s.run.duration) + "); valid: 0 s to below " + units::format(s.run.duration));
    const int node_gpus = s.cluster.node.gpus_per_node;
    const bool rack_given = pd.values.count("rack_gpus") && pd.at("rack_gpus").origin != "default";
    if (pw.rack_gpus < node_gpus || (rack_given && pw.rack_gpus > s.cluster.gpus) ||
        (node_gpus > 0 && pw.rack_gpus % node_gpus != 0))
      throw ConfigError(origin_of(pd, "rack_gpus", file), K + "rack_gpus",
                        std::to_string(pw.rack_gpus) + " GPUs per rack; valid: whole " + s.cluster.node.name + " nodes (a multiple of " +
                            std::to_string(node_gpus) + ") from " + std::to_string(node_gpus) + " to cluster.gpus = " +
                            std::to_string(s.cluster.gpus));
  }
  const double pool = s.cluster.gpus / s.facility.resource_utilization;
  if (!(pool <= static_cast<double>(limits::kMaxGpus) / 0.01)) {  // at most 100x the job's GPUs
    throw ConfigError(origin_of(fac, "resource_utilization", file), "facility.resource_utilization",
                      "implies a pool of " + std::to_string(pool) + " GPUs (gpus / resource_utilization); the limit is " +
                          std::to_string(limits::kMaxGpus * 100) + " GPUs");
  }
}

}  // namespace

void check_layout(Scenario& s, const std::string& file) {
  const auto& m = s.workload.model;
  auto& par = s.workload.parallel;
  const int gpus = s.cluster.gpus;
  const int pp = par.pipeline_model_parallel_size, vpp = par.virtual_pipeline_model_parallel_size;
  const std::string P = "workload.parallel.";
  auto fail = [&](const std::string& key, const std::string& msg) { throw ConfigError(file, key, msg); };

  if (gpus % s.cluster.node.gpus_per_node != 0)
    fail("cluster.gpus", std::to_string(gpus) + " GPUs is not a whole number of " + s.cluster.node.name + " nodes (" +
                             std::to_string(s.cluster.node.gpus_per_node) + " GPUs each); use a multiple of " +
                             std::to_string(s.cluster.node.gpus_per_node));
  if (par.pipeline_schedule == PipelineScheduleKind::DualPipe && (vpp != 1 || pp < 2 || pp % 2 != 0))
    fail(P + "pipeline_schedule", "dualpipe needs an even pipeline_model_parallel_size >= 2 and "
                                  "virtual_pipeline_model_parallel_size 1 (PP " + std::to_string(pp) +
                                  ", VPP " + std::to_string(vpp) + ")");
  // TE userbuffers SM lists: one entry per overlapped op, each leaving the GEMM at least one SM.
  auto check_sms = [&](const std::string& key, const std::vector<int>& v, size_t n, const char* ops) {
    const int sms = s.cluster.gpu.sm_count;
    if (v.size() != n)
      fail(P + key, "has " + std::to_string(v.size()) + " entries; give " + std::to_string(n) + " (" + ops + ")");
    for (int x : v)
      if (x < 0 || (sms > 0 && x >= sms))
        fail(P + key, "entry " + std::to_string(x) + " is outside [0, " + std::to_string(sms > 0 ? sms - 1 : 0) +
                          "]: the SMs of " + s.cluster.gpu.name + " less one for the GEMM");
  };
  check_sms("tp_comm_overlap_rs_sms", par.tp_comm_overlap_rs_sms, 2, "attention output, FC2");
  check_sms("tp_comm_overlap_bulk_sms", par.tp_comm_overlap_bulk_sms, 4, "QKV dgrad, QKV wgrad, FC1 dgrad, FC1 wgrad");
  if (m.num_attention_heads % m.num_query_groups != 0)
    fail("workload.model.num_query_groups", "num_attention_heads = " + std::to_string(m.num_attention_heads) +
                                                " is not divisible by num_query_groups = " + std::to_string(m.num_query_groups));
  // No node size: whether TP fits in or tiles a node is left to the step model (make_layout), which
  // reports it when the iteration is evaluated.
  if (const auto problem = layout_problem(m, layout_shape(s.workload, gpus, 0))) fail(problem->key, problem->message);
  par.data_parallel_size = gpus / (par.tensor_model_parallel_size * pp * par.context_parallel_size);
  if (!par.pipeline_layer_split.empty()) {
    const size_t want = static_cast<size_t>(pp) * static_cast<size_t>(vpp);
    if (par.pipeline_layer_split.size() != want && par.pipeline_layer_split.size() != static_cast<size_t>(pp))
      fail(P + "pipeline_layer_split", "has " + std::to_string(par.pipeline_layer_split.size()) +
                                           " entries; give one per pipeline stage (" + std::to_string(pp) +
                                           ") or one per virtual chunk (" + std::to_string(want) + ")");
    const long long sum = std::accumulate(par.pipeline_layer_split.begin(), par.pipeline_layer_split.end(), 0LL);
    if (sum != m.num_layers)
      fail(P + "pipeline_layer_split", "sums to " + std::to_string(sum) + " layers; the model has " +
                                           std::to_string(m.num_layers));
  } else if (m.num_layers % (pp * vpp) != 0) {
    fail(P + "pipeline_model_parallel_size", std::to_string(m.num_layers) + " layers do not split evenly into PP x VPP = " +
                                                 std::to_string(pp * vpp) + " chunks; give pipeline_layer_split for an uneven split");
  }
  if (m.is_moe() && (m.moe_router_topk < 1 || m.moe_router_topk > m.num_experts))
    fail("workload.model.moe_router_topk", "must be between 1 and num_experts = " + std::to_string(m.num_experts));
  if (m.is_mla() && (m.qk_nope_head_dim < 1 || m.qk_rope_head_dim < 1 || m.v_head_dim < 1))
    fail("workload.model.kv_lora_rank", "MLA (kv_lora_rank > 0) needs qk_nope_head_dim, qk_rope_head_dim and v_head_dim >= 1");
  if (m.moe_first_dense_layers >= m.num_layers && m.is_moe())
    fail("workload.model.moe_first_dense_layers", "must be below num_layers = " + std::to_string(m.num_layers));
  if (s.recovery.spare_nodes > 0 && s.recovery.policy == RestartPolicy::FullRestart) {
    // Spares are harmless under full restart, but say nothing: waiting for repair still applies.
  }
}

Scenario build_scenario(const ParamSet& p, const std::string& file, const std::string& resolved_yaml) {
  Scenario s;
  s.file = file;
  s.description = p.text("description");
  s.resolved_yaml = resolved_yaml;
  const ParamSet& cl = p.sub("cluster");
  s.cluster.gpu = build_gpu(cl.sub("gpu"));
  s.cluster.gpus = cl.integer("gpus");
  s.cluster.node = build_node(cl.sub("node"));
  s.cluster.fabric = build_fabric(cl.sub("fabric"));
  const ParamSet& wl = p.sub("workload");
  s.workload.model = build_model(wl.sub("model"));
  s.workload.parallel = build_parallel(wl.sub("parallel"));
  const ParamSet& tr = wl.sub("training");
  s.workload.training.micro_batch_size = tr.integer("micro_batch_size");
  s.workload.training.global_batch_size = tr.integer("global_batch_size");
  s.workload.training.train_tokens = tr.get<Tokens>("train_tokens");
  s.workload.training.use_flash_attn = tr.flag("use_flash_attn");
  s.workload.training.gradient_accumulation_fusion = tr.flag("gradient_accumulation_fusion");
  s.workload.training.grad_reduce_in_fp32 = tr.flag("grad_reduce_in_fp32");
  s.workload.training.fp8_param_gather = tr.flag("fp8_param_gather");
  const std::string& precision = tr.text("precision");
  s.workload.training.precision = precision == "fp16" ? Precision::Fp16 : precision == "fp8" ? Precision::Fp8 : Precision::Bf16;
  const std::string& recipe = tr.text("fp8_recipe");
  s.workload.training.fp8_recipe = recipe == "current"     ? Fp8Recipe::Current
                                   : recipe == "mxfp8"     ? Fp8Recipe::Mxfp8
                                   : recipe == "blockwise" ? Fp8Recipe::Blockwise
                                                           : Fp8Recipe::Delayed;
  if (s.workload.training.precision == Precision::Fp8) {
    const GpuSpec& g = s.cluster.gpu;
    const std::string file_or = origin_of(wl, "training", file);
    if (g.peak_fp8.si() <= 0)
      throw ConfigError(file_or, "workload.training.precision",
                        "fp8 needs a GPU with FP8 tensor cores; " + g.name + " has peak_fp8 = 0 (use bf16, or a Hopper/Blackwell GPU)");
    if (g.gemm_efficiency_fp8 <= 0)
      throw ConfigError(file_or, "workload.training.precision",
                        "fp8 needs the GPU's gemm_efficiency_fp8 (fraction of peak_fp8, 0 < x <= 1); " + g.name + " does not set it");
    if (s.workload.training.fp8_recipe == Fp8Recipe::Blockwise && g.fp8_blockwise_gemm_ratio <= 0)
      throw ConfigError(file_or, "workload.training.fp8_recipe",
                        "blockwise needs the GPU's fp8_blockwise_gemm_ratio (0 < x <= 1, scripts/calibrate --gpu h100 "
                        "--fp8-blockwise); " + g.name + " does not set it (use delayed, current or mxfp8)");
  }
  s.failures = build_failures(p.sub("failures"));
  if (s.failures.lemon_retirement.after_failures > 0 && s.failures.lemon_model != LemonModel::PerNode)
    throw ConfigError(origin_of(p, "failures", file), "failures.lemon_retirement.after_failures",
                      "retiring nodes needs node identity: set failures.lemon_model: per_node");
  for (size_t i = 0; i < s.failures.components.size(); ++i) {  // correlated failure domains (issue 27)
    const FailureComponent& c = s.failures.components[i];
    const std::string key = "failures.components[" + std::to_string(i) + "].domain_gpus";
    if (c.scope != ComponentScope::Domain) continue;
    const std::string where = origin_of(p, "failures", file);
    if (c.domain_gpus <= 0)
      throw ConfigError(where, key, "scope domain needs the GPUs of one domain (e.g. 72 for an NVL72 rack)");
    // The run model counts a domain in whole nodes (sim/run/failure_process.cpp): 7 or 12 GPUs on
    // 8-GPU nodes was once rounded down to one node, silently.
    if (const int node_gpus = s.cluster.node.gpus_per_node; node_gpus > 0 && c.domain_gpus % node_gpus != 0)
      throw ConfigError(where, key, std::to_string(c.domain_gpus) + " GPUs is not a whole number of " + s.cluster.node.name +
                                        " nodes (" + std::to_string(node_gpus) + " GPUs each); valid: a multiple of " +
                                        std::to_string(node_gpus) + " (e.g. " + std::to_string(node_gpus * ((c.domain_gpus + node_gpus - 1) / node_gpus)) +
                                        ")");
    if (c.domain_gpus > s.cluster.gpus)
      throw ConfigError(where, key, std::to_string(c.domain_gpus) + " GPUs is larger than the cluster (" +
                                        std::to_string(s.cluster.gpus) + " GPUs); a domain must fit in cluster.gpus");
  }
  s.recovery = build_recovery(p.sub("recovery"));
  s.checkpoint = build_checkpoint(p.sub("checkpoint"));
  s.stragglers = build_stragglers(p.sub("stragglers"));
  s.facility = build_facility(p.sub("facility"), build_cooling(cl.sub("cooling")));
  const ParamSet& run = p.sub("run");
  s.run.duration = run.get<Seconds>("duration");
  s.run.replications_auto = run.at("replications").text == "auto";
  s.run.replications = s.run.replications_auto ? RunSpec::kAutoFirstReplications : run.integer("replications");
  s.run.precision = run.num("precision");
  s.run.seed = static_cast<unsigned long long>(run.num("seed"));
  s.tier = p.sub("step").text("tier") == "simgrid" ? StepTier::SimGrid : StepTier::Analytical;
  check_layout(s, origin_of(wl, "parallel", file));
  build_pool(p.sub("pool"), p.at("pool").origin != "default", s, origin_of(p, "pool", file));
  check_work_limits(s, p, file);
  return s;
}

}  // namespace fleetsim::config
