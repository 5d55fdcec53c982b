// The space `fleetsim search` explores: one candidate parallel layout, the values each dimension
// takes for a scenario, and the enumeration of layout groups (everything that changes the
// iteration's timing except the memory-only knobs, which vary inside a group).
#pragma once

#include <string>
#include <vector>

#include "sim/scenario.hpp"

namespace fleetsim::search {

// One parallel layout of the scenario's model on the scenario's cluster. Data parallelism is
// derived (gpus / (tp pp cp)); the global batch is the scenario's (a training hyperparameter).
struct Candidate {
  int tp = 1, pp = 1, vpp = 1, cp = 1, ep = 1, dp = 1;
  int micro_batch = 1;                      // sequences
  bool sequence_parallel = false;
  Recompute recompute = Recompute::None;
  int zero_stage = 0;                       // 0 none, 1 distributed optimizer, 2 + gradients, 3 FSDP
  std::vector<int> layer_split;             // transformer layers per pipeline stage; empty = even
  bool balanced_split = false;              // layer_split from the memory-balanced splitter
  bool chunked_loss = false;                // logits and loss computed in token chunks

  friend bool operator==(const Candidate&, const Candidate&) = default;
};

// Total order used to break ties between layouts of equal predicted time: the simpler layout
// first (fewer memory-saving mechanisms, less parallelism), then the remaining fields.
[[nodiscard]] bool simpler(const Candidate& a, const Candidate& b);

// The candidate written into a copy of the scenario's workload (everything not searched, e.g.
// the rank order and the overlap switches, stays the scenario's).
[[nodiscard]] WorkloadSpec apply(const Candidate& c, const WorkloadSpec& base);
// The scenario's own layout as a candidate (an explicit split equal to the even split is
// normalized to "even").
[[nodiscard]] Candidate from_workload(const WorkloadSpec& w, int gpus);

[[nodiscard]] const char* recompute_name(Recompute r);
// "TP 8, PP 16 (7/8x14/7), CP 1, DP 128, micro-batch 1, SP, no recomputation, ZeRO-3"
[[nodiscard]] std::string describe(const Candidate& c);
// The --set overrides that reproduce the candidate with `fleetsim step`.
[[nodiscard]] std::vector<std::string> to_sets(const Candidate& c);

// Values of each searched dimension for one scenario.
struct Space {
  std::vector<int> tp, cp, pp, vpp, ep, micro_batch, zero_stage;
  std::vector<bool> sequence_parallel, chunked_loss;
  std::vector<Recompute> recompute;
  bool balanced_splits = true;              // also try the memory-balanced uneven split when PP > 1
};

// The default space: TP over powers of two up to the node's GPUs; CP over powers of two with at
// least 512 tokens per rank; PP over the divisors of the GPU count up to the number of layers;
// interleaving 1, 2, 3, 4, 6, 8; EP over the divisors of the expert count (MoE only);
// micro-batch 1..16; SP; recomputation none / selective / full; ZeRO 0-3; chunked loss.
[[nodiscard]] Space default_space(const Scenario& s);

// Replaces the values of one dimension: "tp=4,8", "zero_stage=0,1", "recompute=none,full",
// "sequence_parallel=true", "chunked_loss=false", "balanced_splits=false". Keys: tp, pp, vpp, cp,
// ep, micro_batch, sequence_parallel, recompute, zero_stage, chunked_loss, balanced_splits (or the
// Megatron names, e.g. tensor_model_parallel_size). Throws ConfigError naming the valid keys.
void override_dimension(Space& space, const std::string& spec);

// A layout group: the fields that change the timing. Zero stage, chunked loss and the uneven
// split vary inside a group.
struct Group {
  int tp = 1, cp = 1, pp = 1, vpp = 1, ep = 1, micro_batch = 1;
  bool sequence_parallel = false;
  Recompute recompute = Recompute::None;
};

// Every group of the space whose TP x CP x PP divides the GPU count, in a fixed order.
[[nodiscard]] std::vector<Group> enumerate_groups(const Space& space, int gpus);

// How many candidates (zero stage x chunked loss x split kinds) one group stands for.
[[nodiscard]] int variants_per_group(const Space& space, const Group& g);

}  // namespace fleetsim::search
