// One inference replica's costs: its weights and KV cache per GPU, and the time of one engine
// iteration (a forward pass over the tokens of the running batch: decode tokens of the sequences
// in generation plus the prompt tokens of the requests being prefilled). Built on the step
// model's per-kernel GPU model (sim/step/gemm_efficiency.hpp) and collective model
// (sim/step/collectives.hpp); the method and its sources are in sim/serving/README.md.
#pragma once

#include "sim/scenario.hpp"
#include "sim/serving/specs.hpp"
#include "sim/step/collectives.hpp"
#include "sim/step/gemm_efficiency.hpp"
#include "sim/units/quantity.hpp"

namespace fleetsim::serving {

// The work of one iteration, summed over the sequences in it.
struct IterationLoad {
  double decode_seqs = 0;         // sequences generating one token each
  double decode_context = 0;      // sum of their context lengths (tokens of KV cache read)
  double prefill_seqs = 0;        // requests whose prompt runs in this iteration
  double prefill_tokens = 0;      // their prompt tokens
  double prefill_pairs = 0;       // sum over them of s (s + 1) / 2: causal attention query-key pairs
};

// Where the time of one iteration goes (seconds, whole replica; PP stages in series).
struct IterationBreakdown {
  double gemm = 0, attention = 0, elementwise = 0, tp_comm = 0, pp_comm = 0, logits = 0, overhead = 0;
  [[nodiscard]] double total() const { return gemm + attention + elementwise + tp_comm + pp_comm + logits + overhead; }
};

class ReplicaModel {
 public:
  // Throws InfeasibleError naming the serving key when the layout does not divide the model or
  // the weights leave no memory for the KV cache.
  ReplicaModel(const ClusterSpec& cluster, const ServingSpec& spec);

  [[nodiscard]] Seconds iteration_time(const IterationLoad& load) const { return Seconds(breakdown(load).total()); }
  [[nodiscard]] IterationBreakdown breakdown(const IterationLoad& load) const;

  [[nodiscard]] Bytes weights_per_gpu() const { return Bytes(weights_per_gpu_); }
  [[nodiscard]] Bytes kv_cache_per_gpu() const { return Bytes(kv_bytes_per_gpu_); }
  [[nodiscard]] double kv_bytes_per_token_per_gpu() const { return kv_bytes_per_token_; }
  // KV-cache blocks of the replica (every pipeline stage holds its layers' share of each block).
  [[nodiscard]] long long kv_blocks() const { return kv_blocks_; }
  [[nodiscard]] int block_tokens() const { return block_tokens_; }
  // Blocks one sequence of `tokens` tokens occupies (paged: whole blocks).
  [[nodiscard]] long long blocks_for(long long tokens) const { return (tokens + block_tokens_ - 1) / block_tokens_; }
  [[nodiscard]] const ServingSpec& spec() const { return spec_; }

 private:
  [[nodiscard]] double gemm(double m, double n, double k) const;    // weight GEMM in the serving precision
  [[nodiscard]] double gemm16(double m, double n, double k) const;  // 16-bit GEMM (logits)
  double stage_time(const IterationLoad& l, IterationBreakdown& b) const;  // also adds into b

  ServingSpec spec_;
  step::GpuCompute gpu_;
  step::CollectiveModel coll_;
  GpuSpec gpu_spec_;
  double hbm_ = 0;               // achievable HBM bytes/s
  double peak_ = 0, eff_ = 0;    // GEMM ceiling in the serving precision
  double peak16_ = 0, eff16_ = 0;
  double wbytes_ = 2, kvbytes_ = 2;
  int stage_layers_ = 0;
  double heads_gpu_ = 0, kv_heads_gpu_ = 0, head_dim_ = 0, ffn_gpu_ = 0;
  double moe_share_ = 0;         // share of the stage's layers that are MoE
  double experts_gpu_ = 0, expert_ffn_gpu_ = 0;
  double weights_per_gpu_ = 0, kv_bytes_per_gpu_ = 0, kv_bytes_per_token_ = 0;
  long long kv_blocks_ = 0;
  int block_tokens_ = 64;
};

}  // namespace fleetsim::serving
