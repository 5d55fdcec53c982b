// The time model over an op list (layer_ops.hpp): each op priced on one GPU (gemm_efficiency.hpp)
// and the fabric (collectives.hpp, moe.hpp), summed per pass into PhaseTime's parts, with the
// hidden TP / CP communication and the host-dispatch bound of a layer.
#pragma once

#include "sim/scenario.hpp"
#include "sim/step/collectives.hpp"
#include "sim/step/gemm_efficiency.hpp"
#include "sim/step/layer_ops.hpp"
#include "sim/step/layout.hpp"
#include "sim/step/phase_time.hpp"

namespace fleetsim::step {

struct OpPricing {
  const GpuCompute& gpu;
  const CollectiveModel& net;
  const ModelSpec& model;
  const Layout& layout;
  double rank_load = 1;  // busiest expert-parallel rank's routed tokens over the mean (moe.hpp)
};

// One list priced: forward, backward (dgrad + wgrad) and recompute of one microbatch.
struct PricedOps {
  PhaseTime fwd, bwd, recompute;
  Bytes ep_bytes;  // expert all-to-all bytes per rank, forward (fabric + NVLink legs)
};

[[nodiscard]] PricedOps price_ops(const Op* begin, const Op* end, bool host_dispatch, bool full_recompute,
                                  const OpPricing& p);

template <std::size_t N>
[[nodiscard]] PricedOps price_ops(const OpBlock<N>& b, const OpPricing& p) {
  return price_ops(b.ops.begin(), b.ops.end(), b.host_dispatch, b.full_recompute, p);
}

// Host dispatch: ~3 PyTorch ops issued per kernel counted in the op list (op_time.cpp).
inline constexpr double kHostOpsPerKernel = 3.0;

}  // namespace fleetsim::step
