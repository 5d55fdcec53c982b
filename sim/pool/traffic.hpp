// Stream jobs' traffic from the step model (issue 28): every running multi-node training job of the
// pool gets a representative model and layout for its size, and the step model (sim/step) says
// which of its collectives cross the fabric, how many bytes each NIC sends per iteration, the
// iteration time, and how the iteration time grows when the inter-node communication is slowed
// (overlapped communication hides until it cannot). Evaluated once per (model, size class) before
// the replications start, never per job: at most 2 x log2(pool GPUs / GPUs per node) classes.
//
// The mapping (documented in sim/pool/README.md, "Stream traffic from the step model"):
// - size classes: powers of two from two nodes up to the largest job; a job uses the class at or
//   below its GPU count (trace sizes that are not powers of two);
// - model: the StreamModel rows of pool.interference (the config's default: Llama 3 8B below 128
//   GPUs, 70B from 128, 405B from 1,024; Mixtral 8x7B for the MoE share);
// - layout: the least model parallelism that fits in memory: TP in 1, 2, 4, 8 (within a node),
//   then PP in 1, 2, 4, 8, 16, ordered by TP x PP (TP first at equal products); EP = the experts
//   (at most DP) for MoE; DP the rest; distributed optimizer, flash attention, sequence parallel
//   with TP, Megatron's rank order (tp-cp-dp-pp), micro-batch 1, a batch of 2^20 tokens (rounded up
//   to a multiple of DP); full recomputation only when nothing fits without, then FSDP (ZeRO-3);
// - fabric: the scenario's GPU, node and NICs at line rate (no oversubscription: the sharing model
//   carries the placement's oversubscription and collisions in s_self).
#pragma once

#include <string>
#include <vector>

#include "sim/pool/interference.hpp"
#include "sim/scenario.hpp"

namespace fleetsim::pool {

struct StreamTraffic {
  int gpus = 0;                 // size class
  bool moe = false;
  std::string model;            // catalog name
  std::string layout;           // "TP8 PP4 DP4" (+ " EP8", " recompute")
  std::string crossing;         // collectives whose group spans nodes: "dp,pp" (TP stays in NVLink)
  double iteration_s = 0;       // uncontended iteration at line rate
  double fabric_s = 0;          // inter-node communication time per iteration at line rate (exposed or not)
  double fabric_bytes = 0;      // bytes per NIC per iteration it implies (fabric_s x NIC rate)
  double exposed_share = 0;     // (T(2) - T(1)) / T(1) at small slowdowns: the exposed part's share
  TrafficProfile profile;
};

// One row per (size class, dense / moe) the stream can produce on this pool. Throws ConfigError
// naming pool.interference when no layout of a representative model can be timed.
std::vector<StreamTraffic> stream_traffic(const Scenario& s, int pool_gpus);

// The row for a job of `gpus` GPUs (its size class: the largest at or below it).
const StreamTraffic& traffic_for(const std::vector<StreamTraffic>& table, int gpus, bool moe);

}  // namespace fleetsim::pool
