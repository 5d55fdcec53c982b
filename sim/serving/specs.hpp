// Resolved inputs of the serving model (`serving:` section of a scenario, issue 39): one inference
// replica type (model, precision, layout), the request shape, the offered load or the SLO, and the
// engine's batcher settings. Keys, units and defaults: sim/config/serving_schema.cpp; what each
// does in the model: sim/serving/README.md.
#pragma once

#include <string>

#include "sim/workload/specs.hpp"

namespace fleetsim {

// Weight and KV-cache element formats an engine serves in (2 B for fp16 / bf16, 1 B for fp8).
enum class ServingPrecision { Fp16, Bf16, Fp8 };

[[nodiscard]] inline double serving_bytes(ServingPrecision p) { return p == ServingPrecision::Fp8 ? 1.0 : 2.0; }
[[nodiscard]] inline const char* serving_precision_name(ServingPrecision p) {
  return p == ServingPrecision::Fp8 ? "fp8" : p == ServingPrecision::Fp16 ? "fp16" : "bf16";
}

// The in-flight batcher and the engine's fixed costs. Defaults: TensorRT-LLM's (tokens_per_block
// 64, kv_cache_free_gpu_mem_fraction 0.9, max_num_tokens 8192) and the two overheads fitted on
// the calibration rows (sim/serving/README.md, "Calibration").
struct ServingEngine {
  int max_batch_size = 2048;             // sequences in one iteration
  int max_num_tokens = 8192;             // token budget of one iteration (decode + prefill tokens)
  int kv_block_tokens = 64;              // paged KV cache block
  double kv_cache_memory_fraction = 0.9; // share of the memory left after weights and workspace
  double iteration_overhead_s = 0.0;     // host-side scheduling, sampling, synchronization per iteration
  double layer_overhead_s = 0.0;         // per transformer layer per iteration: dependent-kernel gaps
  int requests = 1000;                   // requests the batcher simulation serves (its sample size)
  unsigned long long seed = 1;           // Poisson arrivals
};

struct ServingSlo {
  double ttft_p99_s = 0.0;  // 0 = none
  double tpot_p99_s = 0.0;  // 0 = none
  [[nodiscard]] bool any() const { return ttft_p99_s > 0 || tpot_p99_s > 0; }
};

struct ServingSpec {
  bool enabled = false;               // the scenario has a serving: section
  std::string model_name;             // preset name (or the workload's model)
  ModelSpec model;                    // seq_length is the model's context window here
  ServingPrecision precision = ServingPrecision::Bf16;
  ServingPrecision kv_cache_precision = ServingPrecision::Bf16;
  int tp = 1, pp = 1, ep = 1;
  int input_tokens = 0, output_tokens = 0;
  double requests_per_s = 0.0;        // offered load; 0 = offline maximum throughput
  bool all_at_once = false;           // every request arrives at t = 0 (a benchmark's "QPS = INF")
  ServingSlo slo;
  ServingEngine engine;
  [[nodiscard]] int gpus() const { return tp * pp; }
};

}  // namespace fleetsim
