// Parameter counts of a transformer, for checkpoint sizes and optimizer memory.
#pragma once

#include "sim/workload/specs.hpp"

namespace fleetsim {

// All parameters (every expert counted), embeddings and output layer included.
// Per layer: attention h(h + 2 g d) + h^2 with d = h / heads and g = query groups (Ainslie et al.
// 2023, GQA); MLP 2 h f (GELU) or 3 h f (SwiGLU, Shazeer 2020), times experts for MoE layers plus
// an h x E router; two norms of h. Plus V h embedding (and V h output when untied) and a final norm.
[[nodiscard]] double parameter_count(const ModelSpec& m);

// Parameters a token passes through (MoE: top-k routed plus the shared experts).
// MLA models count the MLA projections instead (DeepSeek-V2 §2.1). Neither counts MTP modules.
[[nodiscard]] double active_parameter_count(const ModelSpec& m);

// Parameters of the multi-token prediction modules (DeepSeek-V3 §2.2), not in the counts above.
[[nodiscard]] double mtp_parameter_count(const ModelSpec& m);

}  // namespace fleetsim
