#include "sim/search/uneven_split.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace fleetsim::search {

std::vector<int> default_split(int layers, int pp, int vpp) {
  if (pp < 1 || vpp < 1 || layers % (pp * vpp) == 0) return {};
  std::vector<int> split(static_cast<size_t>(pp), layers / pp);
  int rem = layers % pp;
  // Middle stages first (ranks 1 .. p-2), then the last, then the first.
  for (int r = 1; r + 1 < pp && rem > 0; ++r, --rem) ++split[static_cast<size_t>(r)];
  if (rem > 0 && pp > 1) { ++split[static_cast<size_t>(pp - 1)]; --rem; }
  if (rem > 0) { ++split[0]; --rem; }
  return split;
}

std::vector<int> explicit_split(const std::vector<int>& split, int layers, int pp) {
  if (!split.empty()) return split;
  return std::vector<int>(static_cast<size_t>(std::max(1, pp)), layers / std::max(1, pp));
}

std::string format_split(const std::vector<int>& split) {
  std::string s;
  for (size_t i = 0; i < split.size();) {
    size_t j = i;
    while (j < split.size() && split[j] == split[i]) ++j;
    if (!s.empty()) s += ", ";
    s += std::to_string(split[i]);
    if (j - i > 1) s += "x" + std::to_string(j - i);
    i = j;
  }
  return s;
}

std::optional<std::vector<int>> balanced_split(int layers, int min_per_stage, const std::vector<StageLine>& time,
                                               const std::vector<StageLine>& memory, double capacity) {
  const int p = static_cast<int>(time.size());
  if (p < 1 || memory.size() != time.size() || layers < p * min_per_stage) return std::nullopt;
  std::vector<int> n(static_cast<size_t>(p), min_per_stage);
  for (int r = 0; r < p; ++r)
    if (memory[static_cast<size_t>(r)].at(min_per_stage) > capacity) return std::nullopt;
  const double middle = (p - 1) / 2.0;
  for (int left = layers - p * min_per_stage; left > 0; --left) {
    int best = -1;
    double best_t = 0;
    for (int r = 0; r < p; ++r) {
      const auto i = static_cast<size_t>(r);
      if (memory[i].at(n[i] + 1) > capacity) continue;
      const double t = time[i].at(n[i] + 1);
      // Relative tolerance so that stages equal in time tie exactly despite rounding.
      const bool better = best < 0 || t < best_t * (1 - 1e-12) ||
                          (t <= best_t * (1 + 1e-12) && std::abs(r - middle) < std::abs(best - middle));
      if (better) { best = r; best_t = t; }
    }
    if (best < 0) return std::nullopt;
    ++n[static_cast<size_t>(best)];
  }
  return n;
}

Bytes chunked_logits_bytes(const WorkloadSpec& w, Bytes unchunked) {
  const ModelSpec& m = w.model;
  const ParallelSpec& p = w.parallel;
  const double tokens = static_cast<double>(w.training.micro_batch_size) * m.seq_length /
                        std::max(1, p.context_parallel_size);
  const double vocab_local = static_cast<double>(m.vocab_size) / std::max(1, p.tensor_model_parallel_size);
  const double vocab_part = std::min(unchunked.si(), tokens * vocab_local * (2.0 + 4.0));
  const double kept = std::min(1.0, kLossChunkTokens / tokens);
  return Bytes(unchunked.si() - vocab_part * (1.0 - kept));
}

void apply_chunked_loss(const WorkloadSpec& w, std::vector<step::StageMemory>& stages) {
  if (stages.empty()) return;
  auto& last = stages.back();
  last.logits = chunked_logits_bytes(w, last.logits);
}

}  // namespace fleetsim::search
