// Resolved inputs of the pool simulator (`pool:` section of a scenario): the pool's size, its job
// streams (training, development, inference services) and the scheduler. Keys, units and defaults:
// sim/config/pool_schema.cpp; what each does in the model: sim/pool/README.md.
#pragma once

#include <string>
#include <vector>

#include "sim/pool/interference_spec.hpp"

namespace fleetsim {

enum class QueuePolicy { Fifo, Backfill, Priority };
// SameSwitch: a production scheduler as Crux describes Alibaba's (SIGCOMM'24 Sec 2.2, "tries to
// allocate GPUs in the same host or under the same switch"): the fullest host that holds a job,
// else GPUs on the hosts of the first leaf with room, else the lowest free hosts anywhere; jobs
// may hold part of a host; unlike Topology it does not pack jobs larger than a leaf into the
// fewest leaves and pods.
enum class PlacementPolicy { FirstFit, BestFit, Topology, FragmentationAware, NetworkAware, SameSwitch };
enum class Colocation { None, Tidal };

// One class of a joint size / run-time distribution: jobs of `gpus` GPUs are `share` of the
// stream, and their run times are log-normal with this class's median and sigma (in the Helios
// traces large jobs run longer: sizes and run times are not independent).
struct SizeClass {
  int gpus = 1;
  double share = 1.0;               // weight among the classes (normalized over them)
  double duration_median_s = 3600.0;
  double duration_sigma = 1.0;
};

// Gang-scheduled training jobs: Poisson arrivals modulated by a daily cycle, power-of-two sizes
// (log-normal in log2 GPUs), log-normal durations (Helios, Philly, Acme: heavy-tailed run times).
struct TrainingStream {
  double arrival_rate = 0.0;        // jobs per second (daily mean)
  double diurnal_peak_to_trough = 1.0;  // submission rate peak / trough over the day (Helios Venus: 7.5)
  double peak_hour = 12.0;          // hour of day of the submission peak
  double size_median_gpus = 1.0;    // median GPUs per job
  double size_sigma_log2 = 0.0;     // sigma of log2(GPUs)
  int max_gpus = 1;                 // largest job
  double duration_median_s = 3600.0;  // run time at the requested size, median
  double duration_sigma = 1.0;      // sigma of ln(run time)
  double max_duration_s = 30 * 86400.0;
  double high_priority_share = 0.0; // share of jobs at high priority (priority policy)
  double elastic_share = 0.0;       // share of jobs that start on fewer GPUs when the pool is short
  double elastic_min_fraction = 0.5;  // smallest size of an elastic job, share of its request
  bool elastic_resize = false;      // elastic jobs grow into free GPUs and shrink instead of stopping when preempted
  double elastic_resize_time_s = 60.0;  // a resize: coordinated checkpoint, re-rendezvous, re-shard
  double checkpoint_interval_s = 3600.0;
  double restart_time_s = 600.0;    // requeue + init + checkpoint load after a preemption or failure
  std::string trace;                // CSV (submit_s, gpus, duration_s[, priority]) instead of the distribution
  // Non-empty: sizes and run times drawn jointly from these classes, instead of size_* and
  // duration_median / duration_sigma (max_duration still caps).
  std::vector<SizeClass> size_classes;
};

// Development and evaluation jobs: small, short, possibly a fraction of one GPU (GPU sharing).
struct DevStream {
  double arrival_rate = 0.0;        // jobs per second
  double gpu_fraction = 0.5;        // GPUs per job: < 1 shares a GPU (in eighths), >= 1 whole GPUs
  double duration_median_s = 1800.0;
  double duration_sigma = 1.0;
};

// A group of identical inference services: replicas of `replica_gpus`, as many as the demand needs
// to meet the SLO: needed(t) = ceil(peak_replicas x shape(t)), shape = daily cosine between
// trough_ratio and 1, times weekend_ratio on Saturdays and Sundays.
struct InferenceGroup {
  std::string name;
  int services = 1;
  int replica_gpus = 8;
  int peak_replicas = 1;            // replicas that hold the SLO at the daily peak
  double trough_ratio = 0.3;        // demand at the daily trough / peak
  double peak_hour = 14.0;
  double weekend_ratio = 1.0;       // weekend demand / weekday demand
  // Demand from a trace instead of the curve (sim/config/pool_trace.cpp reads it): a step
  // function, value at the last row at or before t, repeated with period `trace_period_s`;
  // replicas = ceil(value x trace_scale / (replica_gpus if the column counts GPUs, else 1)).
  std::string trace;
  std::vector<double> trace_t, trace_value;
  double trace_period_s = 0.0;
  double trace_scale = 1.0;
  bool trace_in_gpus = false;
  // Sized from requests (issue 39; sim/config/pool_builder.cpp with sim/serving): the served model,
  // the peak request rate of one service and what one replica holds at the group's SLO, from
  // which replica_gpus and peak_replicas were derived (empty model: given by hand).
  std::string model;
  std::string layout;                   // "TP4 PP1 fp8"
  double requests_per_s = 0.0;          // daily peak per service (a trace: its maximum)
  double replica_requests_per_s = 0.0;  // capacity of one replica at the SLO
  double slo_ttft_p99_s = 0.0, slo_tpot_p99_s = 0.0;
};

// Stragglers in the pool (issue 27, sim/pool/stragglers.hpp): the job mix behind each training
// job's slowdown. Defaults are off; scenarios/stragglers-bytedance.yaml gives every figure's source.
struct PoolStragglerSpec {
  bool enabled = false;
  int min_job_gpus = 128;               // jobs counted in the shares (ByteDance: >= 128 GPUs)
  double straggling_threshold = 1.1;    // S = T / T_ideal at or above which a job straggles (F01)
  int tensor_parallel = 8;
  double pipeline_share = 0.0;          // jobs with a pipeline (F08: 21.1% use none)
  int pipeline_stages_max = 8;
  int layers_per_stage_min = 4, layers_per_stage_max = 16;
  double loss_layer_forward = 0.0;      // the loss layer's forward, in transformer-layer forwards (F09)
  double loss_layer_backward = 0.0;     // its backward, in the same unit
  double stage_balanced_share = 0.0;    // pipelines partitioned around the loss layer
  // The loss layer's cost relative to a transformer layer goes as vocabulary / hidden size, and
  // larger jobs train wider models: cost x (gpus / min_job_gpus)^-exponent (1/3: hidden ~ params^(1/3)
  // at a fixed depth/width ratio, params ~ GPUs).
  double loss_layer_size_exponent = 0.0;
  int microbatches_per_stage = 4;       // microbatches per replica = this x stages
  double compute_share = 0.75;          // compute on the critical path / iteration
  double sequence_imbalance_share = 0.0;  // jobs packing variable-length documents, not re-balanced
  double seq_length = 32768, seq_doc_median = 2000, seq_doc_sigma = 1.5, attention_share = 0.4;
  bool seq_packing = true;
  double gc_unsynchronized_share = 0.0; // jobs whose ranks collect garbage on their own
  double gc_pause_s = 0.3, gc_interval_steps = 500;
  double step_time_median_s = 3.0, step_time_sigma = 0.5;
  double slow_host_node_probability = 0.0;  // a node is in a fail-slow episode (stationary)
  double slow_host_slowdown_median = 2.5, slow_host_slowdown_sigma = 0.4;
  // How long a job runs with its slow host before the host is found and swapped out with a
  // checkpoint-restart (Wu et al., Greyhound, ATC'25 / arXiv:2410.12588: fail-slows last "from
  // sub-minutes to nearly ten hours" and are handled as fail-stops): log-uniform in [min, max] of
  // wall time. 0 = the slow host stays to the end.
  double slow_host_episode_min_s = 0.0, slow_host_episode_max_s = 0.0;
  double device_speed_sigma = 0.0;      // per-GPU lognormal speed spread (compute variation)
};

struct PoolSpec {
  bool enabled = false;             // the scenario has a pool: section
  int gpus = 0;                     // GPUs in the pool (0 = cluster.gpus)
  int spare_nodes = 0;              // nodes held out as hot spares for failed ones
  bool run_job = true;              // the scenario's own job (cluster.gpus) runs in the pool throughout
  double duration_s = 30 * 86400.0;   // measured span, after the warm-up
  double warmup_s = 0.0;              // simulated before measuring (the pool starts empty)
  int replications = 3;
  bool failures = true;             // the scenario's failure profile takes nodes out for repair
  double reset_time_s = 600.0;      // a failure that needs no repair takes the node out this long
  QueuePolicy policy = QueuePolicy::Backfill;
  bool preemption = false;          // priority: a high-priority head preempts low-priority jobs
  double min_runtime_before_preemption_s = 0.0;
  int backfill_depth = 100;         // queued jobs examined per backfill pass (Slurm bf_max_job_test)
  double backfill_interval_s = 60.0;  // time between backfill passes (Slurm bf_interval: 30 s)
  PlacementPolicy placement = PlacementPolicy::BestFit;
  Colocation colocation = Colocation::None;
  double reclaim_time_s = 300.0;    // tidal: notice a borrowing training job gets before giving GPUs back
  double inference_interval_s = 600.0;  // inference demand and SLO evaluated this often
  TrainingStream training;
  DevStream dev;
  std::vector<InferenceGroup> inference;
  PoolStragglerSpec stragglers;
  InterferenceSpec interference;    // jobs slowing each other on the shared fabric (off by default)
};

}  // namespace fleetsim
