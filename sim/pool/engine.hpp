// The pool simulator: a discrete-event simulation of one GPU pool over weeks. Jobs arrive, wait in
// a queue (FIFO, EASY backfill or priority with preemption), are placed (first-fit, best-fit,
// topology-aware, fragmentation-aware), run, are preempted or killed by node failures and restart
// from their last checkpoint; inference services hold the replicas their daily demand needs and,
// with tidal co-location, lend the rest to training and take it back with notice.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/pool/interference.hpp"
#include "sim/pool/pool_nodes.hpp"
#include "sim/pool/specs.hpp"
#include "sim/pool/traffic.hpp"
#include "sim/pool/workload.hpp"
#include "sim/run/specs.hpp"

namespace fleetsim::pool {

struct PoolInputs {
  PoolSpec spec;
  Topology topology;
  int run_job_gpus = 0;             // the scenario's own job: a high-priority gang held from t = 0
  double node_failure_rate = 0.0;   // per node per second (from the failure profile)
  double repair_share = 1.0;        // share of failures that need a repair (else a reset)
  double repair_median_s = 7200.0;
  double repair_sigma = 1.2;
  std::uint64_t seed = 1;
  std::string file;                 // scenario, for error messages
  FabricShape fabric;               // pool.interference: the fabric as link classes
  std::vector<StreamTraffic> traffic;  // pool.interference: stream jobs' traffic per size class (step model)
};

// Every way a GPU-hour of the pool is not doing kept work (STYLE: losses add up).
enum class Loss : int {
  Idle,               // free and nothing in the queue could use it (empty queue or a head larger than the free GPUs)
  Fragmentation,      // free, the queue's head needs no more than the free GPUs, yet cannot be placed
  InferenceIdle,      // held by an inference replica its demand does not need
  Failures,           // node down for repair or reset
  Spares,             // idle hot spare nodes
  FailureRollback,    // work since the last checkpoint, lost to a node failure
  PreemptionRollback, // work since the last checkpoint, lost to a preemption
  Restart,            // restart time after an interruption (init, checkpoint load)
};
inline constexpr int kLosses = 8;
const char* loss_key(Loss l);

struct PoolReplication {
  double allocation_share = 0.0;    // GPU-hours allocated to jobs / pool GPU-hours
  double fragmentation_share = 0.0; // GPU-hours free but unusable for the blocked head / pool GPU-hours
  double slo_attainment = 1.0;      // share of service-time with the replicas the SLO needs
  // Share of the requests that arrive beyond what the running replicas hold at the SLO (replicas
  // missing after a reclaim, a failure or a full pool), request-weighted (issue 39).
  double inference_slo_violation_share = 0.0;
  double inference_gpu_hours_lent = 0.0;  // tidal: GPU-hours of the services' peak reservation not held
  std::array<double, kLosses> lost_gpu_hours{};
  std::array<double, kJobClasses> allocated_gpu_hours{};
  std::array<std::vector<float>, kJobClasses> queue_delay_h, slowdown;
  long long submitted = 0, started = 0, finished = 0, preemptions = 0, node_failures = 0, reclaims = 0;
  long long elastic_resizes = 0;     // elastic jobs grown into free GPUs or shrunk instead of preempted
  long long multi_node_jobs = 0, compact_multi_node_jobs = 0;  // compact: the fewest leaves possible
  long long events = 0;
  double pool_gpu_hours = 0.0;
  // Stragglers (stragglers.hpp): counted training jobs, those >= the threshold, their GPU-hours
  // and the part wasted (1 - 1/S of each job's).
  long long straggler_jobs = 0, straggling_jobs = 0;
  long long last_stage_majority_jobs = 0, sequence_straggling_jobs = 0, host_majority_straggling_jobs = 0;
  double straggler_counted_gpu_hours = 0.0, straggler_wasted_gpu_hours = 0.0;
  // Sampled every pool.inference_interval: hours, and allocated share by class.
  std::vector<double> t_h, alloc, alloc_training, alloc_inference, alloc_dev, frag, queued_gpus;
  InterferenceOut interference;     // pool.interference.enabled only
};

// One replication; deterministic in (seed, replication).
PoolReplication simulate_pool_replication(const PoolInputs& in, int replication);

}  // namespace fleetsim::pool
