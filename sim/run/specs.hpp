// Resolved inputs of the run model: failure processes, recovery, checkpointing, stragglers.
//
// Defaults and their sources: docs/research/reliability_energy.md §1.6, §2.7, §3.3.
#pragma once

#include <string>
#include <vector>

#include "sim/units/quantity.hpp"

namespace fleetsim {

// What one failure-process component is counted per: its count comes from the cluster.
// Domain: a correlated failure domain of `domain_gpus` GPUs (NVLink domain / rack, power shelf,
// CDU; issue 27): one failure takes every node of the domain out of the job.
enum class ComponentScope { Gpu, Node, Nic, LeafSwitch, SpineSwitch, Link, Job, Domain };

// How an interruption is noticed: a crash is seen in seconds, a hang only at the watchdog.
enum class FailureMode { Crash, Hang };

struct FailureComponent {
  std::string name;                    // e.g. "gpu", "hbm", "software_bug"
  std::string category;                // Table 5 category: GPU, Network, Host, Dependency, ...
  ComponentScope scope = ComponentScope::Gpu;
  PerSecond rate;                      // interruptions per component per second
  double weibull_shape = 1.0;          // 1 = exponential
  FailureMode mode = FailureMode::Crash;
  bool needs_repair = true;            // the node leaves the pool for repair (false: a reset fixes it)
  bool correlated_node_loss = false;   // a leaf switch takes down every node below it
  int domain_gpus = 0;                 // scope domain: GPUs of one domain (its blast radius)
};

// Per-node hazard heterogeneity ("lemon" nodes, Kokolis et al. HPCA'25 F35; recurrence on few
// components, SkeletonHunter SIGCOMM'25 F46). A node's hazard is the profile rate x a frailty Z
// with E[Z] = 1, so the profile rate stays the fleet average (sim/run/README.md, "Lemon nodes").
// two_point: Z = m/norm on a share f of nodes, 1/norm elsewhere (norm = 1 - f + f m).
// lognormal: ln Z ~ N(-sigma^2/2, sigma^2), a heavy tail; the nodes above the 1 - f quantile are
// the lemons (counted in interruptions.lemon).
enum class LemonDistribution { TwoPoint, Lognormal };
// fleet_average: the job sees the fleet's mix (expected counts; no node identity).
// per_node: each replication draws its nodes' frailties (a placement) and follows each node, so a
// job may hold more or fewer lemons than the average, and nodes can be retired.
enum class LemonModel { FleetAverage, PerNode };

// A node that fails `after_failures` times within `window` is retired for good and replaced by a
// node drawn from the fleet (per_node only). 0 = never retire.
struct LemonRetirement {
  int after_failures = 0;
  Seconds window = Seconds(7 * 86400.0);
};

struct FailureProfile {
  std::string name;
  std::vector<FailureComponent> components;
  double lemon_fraction = 0.0;         // share of nodes with a higher hazard
  double lemon_multiplier = 1.0;       // two_point: hazard of a lemon over a healthy node
  LemonDistribution lemon_distribution = LemonDistribution::TwoPoint;
  double lemon_sigma = 1.0;            // lognormal: sigma of ln Z
  LemonModel lemon_model = LemonModel::FleetAverage;
  LemonRetirement lemon_retirement;
  PerSecond planned_rate_per_job;      // planned maintenance interruptions per job-second
  double rate_scale = 1.0;             // multiplies every component rate (what-if knob)
  Seconds repair_median;               // lognormal repair time of a failed node
  double repair_sigma = 1.0;           // sigma of ln(repair time)
  // Weibull components only: age of the parts at the run start. 0 = a freshly installed cohort
  // (infant mortality in full); a large age gives the stationary (exponential) rate.
  Seconds fleet_age;
};

enum class RestartPolicy { FullRestart, WarmSpares, ReplicaRestart };

struct RecoverySpec {
  Seconds detect_crash;                // time to notice a crash
  Seconds detect_hang;                 // watchdog timeout
  Seconds diagnosis;                   // isolate the bad node
  Seconds reschedule_spare;            // swap in a hot spare
  Seconds reschedule_wait;             // wait for a node when no spare is free (beyond repair)
  Seconds init_base;                   // process launch + communicator init at the reference size
  int init_reference_gpus = 16384;
  double init_scaling_exponent = 0.5;  // init time ~ (gpus / reference)^exponent
  Seconds planned_downtime;            // one planned maintenance event
  RestartPolicy policy = RestartPolicy::WarmSpares;
  int spare_nodes = 0;
  // replica_restart only: how long the surviving replicas pause to drop the failed one and
  // reconfigure their process groups (FT-HSDP, arXiv 2602.00277: 3 min stall in all, with detection).
  Seconds replica_reconfigure = Seconds(150.0);
};

enum class CheckpointIntervalKind { Fixed, Daly };

struct CheckpointSpec {
  CheckpointIntervalKind interval_kind = CheckpointIntervalKind::Daly;
  Seconds interval;                    // when Fixed
  Seconds write_time;                  // blocking stall per checkpoint
  bool async = true;                   // a background persist follows the stall
  BytesPerSecond storage_bandwidth;    // shared storage write bandwidth (persist)
  BytesPerSecond load_bandwidth;       // read bandwidth on restart
  double bytes_per_param = 14.0;       // bf16 weights + fp32 master + Adam m, v (§2.3)
};

enum class FailSlowKind { Compute, Network };
// ignore: slow until the episode ends; rebalance: fewer microbatches for the slow data-parallel
// replica once detected; swap: checkpoint, swap the host for a spare, restart; checkpoint_restart:
// checkpoint and restart in place (clears transient causes), no spare needed.
enum class FailSlowPolicy { Ignore, Rebalance, Swap, CheckpointRestart };

struct StragglerSpec {
  double device_speed_sigma = 0.0;     // static per-GPU lognormal speed spread
  double device_speed_max_slowdown = 1.5;  // truncation: outliers up to 1.5x (Sinha et al. SC'22)
  double step_jitter_cv = 0.0;         // per-iteration per-GPU jitter
  PerSecond fail_slow_rate_per_node;   // fail-slow events per node-second
  double fail_slow_slowdown = 1.5;     // iteration slowdown while a fail-slow node is in the job
  Seconds fail_slow_detect;            // time until a slow node is evicted
  // Issue 27: the slowdown processes of sim/step/slowdown.hpp (sources there) and the fail-slow
  // episode process of the run model (sim/run/README.md, "Fail-slow episodes").
  FailSlowKind fail_slow_kind = FailSlowKind::Compute;  // what the slow host slows
  Seconds fail_slow_duration;          // mean episode length if nothing is done (exponential); 0 = until mitigated
  FailSlowPolicy fail_slow_policy = FailSlowPolicy::Swap;  // what happens once it is detected
  Seconds gc_pause;                    // one garbage-collection pause of one rank; 0 = none
  double gc_interval_steps = 500;      // iterations between two pauses of one rank
  bool gc_synchronized = false;        // every rank collects at the same iteration (planned GC)
  double seq_doc_median = 0;           // document length median, tokens; 0 = fixed-length samples
  double seq_doc_sigma = 1.0;          // sigma of ln(document length)
  bool seq_packing = true;             // documents packed into full sequences (attention per document)
  bool seq_rebalance = false;          // sequences re-balanced across DP ranks by cost
  double degraded_link_share = 0;      // share of fabric links degraded at any time
  double degraded_link_bandwidth = 0.5;  // bandwidth a degraded link keeps
};

struct RunSpec {
  Seconds duration;
  int replications = 1;
  // run.replications: auto (issue 25): `replications` is the first batch (kAutoFirstReplications),
  // doubled by `fleetsim run` until the ETTR half-width at the run's level is below `precision`.
  static constexpr int kAutoFirstReplications = 20;
  static constexpr int kAutoMostReplications = 10240;
  bool replications_auto = false;
  double precision = 0.001;
  unsigned long long seed = 1;
};

}  // namespace fleetsim
