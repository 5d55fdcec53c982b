// The divisibility rules a parallel layout must meet (TP, PP, VPP, CP, EP against the cluster, the
// model and the batch), in one place so that the scenario loader (config::check_layout), the step
// model (step::make_layout) and the layout search accept and reject the same layouts.
#pragma once

#include <optional>
#include <string>

#include "sim/workload/specs.hpp"

namespace fleetsim {

// What the divisibility rules of a parallel layout read: the cluster, the group sizes, the batch.
struct LayoutShape {
  int gpus = 0;
  int gpus_per_node = 0;          // 0: TP may span nodes in any way
  int tp = 1, pp = 1, vpp = 1, cp = 1, ep = 1;
  int micro_batch = 1;            // sequences
  int global_batch = 1;           // sequences
  bool explicit_split = false;    // pipeline_layer_split given: a model chunk may hold no layer
  bool any_microbatch_count = false;  // Llama 3's schedule: M need not be a multiple of PP (and N < PP)
  int microbatch_group = 0;       // N contiguous microbatches per chunk; 0 = PP (at most M)
};

// The workload's layout on `gpus` GPUs in nodes of `gpus_per_node` (0: TP may span nodes in any way).
[[nodiscard]] LayoutShape layout_shape(const WorkloadSpec& workload, int gpus, int gpus_per_node);

// The divisibility rules of Megatron-LM's parallel layouts, and the step model's placement of TP
// on nodes, each named for what must hold.
enum class LayoutRule {
  ModelParallelDividesGpus,       // GPUs % (TP x PP x CP) == 0
  TpDividesHeads,                 // num_attention_heads % TP == 0
  TpAndQueryGroupsDivide,         // query groups and TP divide one another
  TpFitsOrTilesNodes,             // TP within one node, or whole nodes
  ChunksWithinLayers,             // PP x VPP <= layers, unless the split is explicit
  InterleavingNeedsPipeline,      // VPP > 1 only with PP > 1
  BatchDivides,                   // global batch % (micro-batch x DP) == 0
  InterleavedMicrobatchesDivide,  // VPP > 1: microbatches per replica % PP == 0
  MicrobatchGroupInRange,         // VPP > 1: N in [PP, M] (Megatron-core) or [min(PP, M), M] (Llama 3),
                                  // and M mod N = 0 or >= PP
  CpDividesSequence,              // seq_length % CP == 0
  EpNeedsMoe,                     // EP > 1 only for a mixture-of-experts model
  EpDividesExperts,               // num_experts % EP == 0
  EpDividesDpCp,                  // (DP x CP) % EP == 0
};

// The first rule the layout breaks, in the order above (the search counts rejections by it),
// without building strings; none when the layout divides. Group sizes and batches must be >= 1.
[[nodiscard]] std::optional<LayoutRule> broken_layout_rule(const ModelSpec& model, const LayoutShape& shape);

// The first broken rule in words: the key to change and what would be valid, with the numbers.
struct LayoutProblem {
  std::string key;
  std::string message;
};
[[nodiscard]] std::optional<LayoutProblem> layout_problem(const ModelSpec& model, const LayoutShape& shape);

}  // namespace fleetsim
