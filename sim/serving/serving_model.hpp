// The serving model's answer for one replica type (`fleetsim infer`, the pool's capacity per
// replica): offline maximum throughput, the latencies at an offered load, or the highest load that
// meets a p99 TTFT / TPOT SLO. Method: sim/serving/README.md.
#pragma once

#include <string>

#include "sim/scenario.hpp"
#include "sim/serving/batcher.hpp"
#include "sim/serving/replica.hpp"

namespace fleetsim::serving {

enum class ServingMode { Offline, AtLoad, AtSlo };

struct ServingResult {
  ServingMode mode = ServingMode::Offline;
  int gpus = 1;                              // per replica
  double output_tokens_per_s_per_gpu = 0;
  double requests_per_s_per_replica = 0;     // achieved (offline, at load) or the highest meeting the SLO
  double ttft_mean_s = 0, ttft_p99_s = 0, tpot_mean_s = 0, tpot_p99_s = 0;
  double batch_size_mean = 0;
  double kv_cache_gib = 0;                   // per GPU
  double weights_gib = 0;                    // per GPU
  double kv_cache_tokens = 0;                // per replica
  double capacity_requests_per_s = 0;        // saturation: all requests at once
  double decode_step_s = 0;                  // one decode iteration of one sequence at the prompt's context
  double prefill_s = 0;                      // one request's prefill alone
  bool saturated = false;                    // the offered load is above the capacity
  BatcherResult batcher;
};

// The fastest one-token decode step and the prefill of one request alone, for the SLO checks.
struct MinimumLatency {
  double decode_step_s = 0, prefill_s = 0;
};
[[nodiscard]] MinimumLatency minimum_latency(const ReplicaModel& r);

// Throws ConfigError naming the serving key when the SLO is below what one request alone gets.
[[nodiscard]] ServingResult evaluate_serving(const ClusterSpec& cluster, const ServingSpec& spec,
                                             const std::string& file = "");

// The highest Poisson request rate at which the replica meets `slo` (p99 TTFT and p99 TPOT), by
// bisection between 0 and the saturation rate; 0 when even a trickle misses it.
[[nodiscard]] double rate_at_slo(const ReplicaModel& r, const ServingSlo& slo, double capacity, BatcherResult* at = nullptr);

}  // namespace fleetsim::serving
