// Memory per GPU, per pipeline stage: weights, gradients and optimizer states with their
// sharding, activations of the microbatches in flight under the schedule, logits and loss,
// communication buffers.
#pragma once

#include <string>
#include <vector>

#include "sim/scenario.hpp"
#include "sim/step/pipeline_schedule.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/units/quantity.hpp"

namespace fleetsim::step {

struct StageMemory {
  Bytes weights, gradients, optimizer, activations, logits, buffers;
  [[nodiscard]] Bytes total() const { return weights + gradients + optimizer + activations + logits + buffers; }
};

// Activation bytes one transformer layer keeps for one microbatch between its forward and its
// backward, on one GPU. Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
// Transformer Models", Sec. 4 (eq. 1-3 and Table 2): s b h (34 + 5 a s / h) without parallelism;
// (10 + 24/t + 5 a s/(h t)) with TP; (34/t + 5 a s/(h t)) with TP + sequence parallelism;
// the 5 a s/h score term disappears with selective recomputation and with flash attention;
// full recomputation keeps only the layer input, 2 s b h (/t with SP). Generalized here to
// grouped-query attention (K, V of g groups) and SwiGLU (two up-projections) term by term.
[[nodiscard]] Bytes layer_activation_bytes(const WorkloadSpec& w, const Layout& l, bool moe_layer,
                                           bool stored_for_backward = true);

// Memory of every pipeline rank. `in_flight` comes from the explicit schedule.
[[nodiscard]] std::vector<StageMemory> stage_memory(const WorkloadSpec& w, const StageCosts& costs,
                                                    const InFlight& in_flight);

// The message `run` and `search` print when a layout does not fit.
[[nodiscard]] std::string memory_error_message(const StageMemory& peak, int stage,
                                               const GpuSpec& gpu);

}  // namespace fleetsim::step
