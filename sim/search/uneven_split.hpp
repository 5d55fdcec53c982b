// Non-uniform pipeline stages and chunked loss: the two memory levers that do not change the
// parallel sizes.
//
// - Memory-balanced stages: the first pipeline stage holds the embedding and the most
//   microbatches in flight under 1F1B (p - r for rank r), the last one the output layer and the
//   logits; with an even split these stages run out of memory first while the middle ones have
//   room. Giving them fewer layers evens the memory out (Yuan 2.0, Wu et al. 2023,
//   arXiv:2311.15786: non-uniform pipeline parallelism; Llama 3, Sec. 3.3.2: one layer fewer on
//   the first and the last stage). The splitter keeps the stages as equal in time as memory allows.
// - Chunked loss: the logits and the cross-entropy of a microbatch are computed in token chunks
//   whose logits are freed after their gradient (Liger-Kernel's fused linear cross-entropy;
//   Wijmans et al. 2024, "Cut Your Losses in Large-Vocabulary Language Models"), bounding the
//   last stage's logits memory. The analytical step model has no knob for it yet, so the search
//   applies it to the step model's memory (the time cost, a few more kernel launches, is ignored).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/scenario.hpp"
#include "sim/step/memory.hpp"

namespace fleetsim::search {

// The split the search tries first: empty (even) when PP x VPP divides the layers, otherwise
// floor(L / p) layers per stage with the remainder on the middle stages, so the first and the last
// stage (embedding, logits) are the lighter ones (Llama 3: 126 layers on 16 stages = 7, 8 x 14, 7).
[[nodiscard]] std::vector<int> default_split(int layers, int pp, int vpp);
// The split as one entry per stage (an empty split spelled out).
[[nodiscard]] std::vector<int> explicit_split(const std::vector<int>& split, int layers, int pp);
// "7, 8x14, 7"
[[nodiscard]] std::string format_split(const std::vector<int>& split);

// value(n) = fixed + per_layer * n for a stage holding n layers.
struct StageLine {
  double fixed = 0, per_layer = 0;
  [[nodiscard]] double at(int n) const { return fixed + per_layer * n; }
};

// The split of `layers` over the stages (at least `min_per_stage` each) that minimizes the
// slowest stage's time while every stage's memory stays within `capacity`; water-filling, one
// layer at a time to the stage that stays fastest, ties to the stage nearest the middle.
// Empty when no split fits.
[[nodiscard]] std::optional<std::vector<int>> balanced_split(int layers, int min_per_stage,
                                                             const std::vector<StageLine>& time,
                                                             const std::vector<StageLine>& memory,
                                                             double capacity);

// Tokens per loss chunk.
inline constexpr double kLossChunkTokens = 1024;

// The logits memory of the last stage with chunked loss: the vocabulary-sized part of
// step::stage_memory's logits term (16-bit logits and their fp32 softmax, T V / t (2 + 4) bytes,
// Korthikanti et al. 2022 Sec. 4.3) shrinks from T to min(T, chunk) tokens; the rest stays.
[[nodiscard]] Bytes chunked_logits_bytes(const WorkloadSpec& w, Bytes unchunked_logits);

// Stage memory with chunked loss applied to the last stage when `chunked_loss`.
void apply_chunked_loss(const WorkloadSpec& w, std::vector<step::StageMemory>& stages);

}  // namespace fleetsim::search
