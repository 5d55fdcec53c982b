// A short discrete-event simulation of one replica's in-flight (continuous) batcher, iteration by
// iteration (TensorRT-LLM's inflight batching with the GUARANTEED_NO_EVICT capacity policy; Yu et
// al. OSDI'22, Orca, for iteration-level scheduling). Why a simulation and not a queue formula:
// the service time of an iteration depends on what is in it (decode tokens, prompt tokens, the
// KV cache read), a prefill delays every running decode, and admission is bounded by the token
// budget, the batch size and the KV blocks at once; a handful of thousand iterations cost
// milliseconds (sim/serving/README.md, "Latency at a load").
#pragma once

#include <vector>

#include "sim/serving/replica.hpp"

namespace fleetsim::serving {

struct BatcherLoad {
  int requests = 1000;
  double requests_per_s = 0;   // Poisson arrivals at this rate; ignored when all_at_once
  bool all_at_once = false;    // every request arrives at t = 0 (offline benchmark, "QPS = INF")
  unsigned long long seed = 1;
};

struct BatcherResult {
  int requests = 0;
  double makespan_s = 0;                 // first arrival to last completion
  double requests_per_s = 0;             // completed / makespan
  double output_tokens_per_s = 0;        // whole replica
  double ttft_mean_s = 0, ttft_p99_s = 0;
  double tpot_mean_s = 0, tpot_p99_s = 0;  // per request: (last token - first token) / (output - 1)
  double batch_size_mean = 0;            // sequences per iteration, time-weighted
  double iterations = 0;
  double kv_blocks_peak_share = 0;       // largest share of the KV blocks held at once
};

[[nodiscard]] BatcherResult simulate_batcher(const ReplicaModel& replica, const BatcherLoad& load);

// The p-quantile (0..1) of `v` by linear interpolation between order statistics (v is sorted).
[[nodiscard]] double quantile(std::vector<double>& v, double p);

}  // namespace fleetsim::serving
