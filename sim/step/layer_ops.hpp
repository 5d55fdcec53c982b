// The layer as data (issue 37; STYLE.md item 11): every transformer layer, the embedding, the
// output head and the MTP projection as an explicit list of ops — name, kind, shape, phase,
// stream, group — built once per layer shape from the model, the layout and the training
// settings, with no GPU or network in it. The time model (op_time.hpp) prices a list on a GPU and
// a fabric; the chunk costs, the parameter counts (memory), the collective volumes and the
// iteration timeline read what it gives. README.md, "The op list", lists every op.
//
// Lists live in fixed arrays (no heap): the step model evaluates tens of thousands of layouts a
// second (scripts/bench step).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "sim/scenario.hpp"
#include "sim/step/collectives.hpp"
#include "sim/step/layout.hpp"
#include "sim/units/quantity.hpp"

namespace fleetsim::step {

// What prices an op (op_time.cpp).
enum class OpKind : std::uint8_t {
  Gemm,           // 16-bit GEMM, (M x K) * (K x N), `count` of them batched: GpuCompute::gemm
  GemmFp8,        // the same in FP8 (Transformer Engine linear layers): GpuCompute::gemm_fp8
  ScoresGemm,     // unfused attention's batched QK^T / AV GEMMs over the s x s scores
  Attention,      // fused (flash) attention kernel doing `flops` of tensor-core work
  MemoryBound,    // a memory-bound kernel moving `bytes` through HBM
  ScoresMemory,   // unfused attention's softmax / dropout passes over the scores
  Launch,         // host time of `kernels` kernels the stream does not hide (embedding, head)
  Repeat,         // re-runs the forward math of the units [window_first, window_last] (recompute)
  TpCollective,   // tensor-parallel collective of `bytes` (exposed, or hidden behind a window)
  CpExchange,     // context-parallel K/V ring all-gather, hidden behind the attention
  ExpertAllToAll, // expert-parallel dispatch / combine of `tokens` x h elements of `element_bytes`
};

// Which pass runs the op. The backward of a GEMM is its input gradient (dgrad: every non-GEMM
// backward kernel and collective counts as dgrad too) and its weight gradient (wgrad).
enum class Phase : std::uint8_t { Forward, Dgrad, Wgrad, Recompute };

// The stream the op occupies: compute, or the communication it belongs to (PhaseTime's parts).
enum class OpStream : std::uint8_t { Compute, Tp, Cp, Ep };

// The parallel group a collective runs over.
enum class OpGroup : std::uint8_t { None, Tp, Cp, Ep };

// How a hidden TpCollective overlaps its window (sim/step/tp_overlap.hpp, issue 35): issue 24's
// bound (a pair exposes max(0, comm - GEMM) + min(comm, GEMM) / TP; GPUs without a measured chunk
// curve), or one of Transformer Engine's userbuffers methods as NeMo's recipe assigns it.
enum class TpOverlapKind : std::uint8_t { Bound, RingExchange, Pipeline, Bulk };

struct Op {
  std::string_view name;  // qkv, core_attention, out_proj, fc1, swiglu, fc2, input_norm, ...
  OpKind kind = OpKind::MemoryBound;
  Phase phase = Phase::Forward;
  OpStream stream = OpStream::Compute;
  OpGroup group = OpGroup::None;
  // Ops of one unit (a linear layer and its casts, the attention core, the elementwise passes)
  // are priced together: their times (memory-bound ops: their bytes, one pass) are summed
  // before the unit enters the pass's total. Consecutive ops of a pass share a unit.
  std::uint8_t unit = 0;
  Collective collective = Collective::AllGather;  // TpCollective
  // TpCollective: the units whose math (this op's pass) hides it (Transformer Engine userbuffers);
  // -1: exposed. Repeat: the forward units whose math it re-runs.
  std::int8_t window_first = -1, window_last = -1;
  // Shape.
  double m = 0, n = 0, k = 0, count = 1;  // GEMMs; count: batched / grouped copies; collectives: how many
  double bytes = 0;                       // memory-bound kernels and collectives (per rank)
  double flops = 0;                       // Attention; CpExchange: the attention that hides it
  double kernels = 0;                     // kernels the host launches for it (host dispatch)
  // GemmFp8: the recipe's GEMM throughput over per-tensor scaling (fp8.hpp). TpCollective
  // (hidden): the chunks it is split into (TP). CpExchange: the share of `flops`' time that can
  // hide it. ExpertAllToAll: bytes per element.
  double factor = 1;
  double tokens = 0;                      // ExpertAllToAll: tokens per microbatch on this GPU
  // Hidden TpCollective (issue 35): the method, the SMs its kernel holds, and which GEMMs of the
  // window it overlaps (Dgrad or Wgrad in the backward; Bound: all of the window). m, n, k: the
  // shape of the GEMM it is chunked with (the chunk GEMMs' efficiency).
  TpOverlapKind overlap = TpOverlapKind::Bound;
  Phase window_phase = Phase::Forward;
  std::uint8_t comm_sms = 0;
  bool aggregate = false;                 // ring exchange: two chunks per step
};

// A fixed-capacity list (the largest layer, MLA + MoE + shared experts under FP8 with TP overlap,
// context parallelism and selective recomputation, has ~80 ops).
template <std::size_t N>
class OpArray {
 public:
  Op& add(const Op& op);  // throws std::length_error past N (a bug, not an input error)
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] const Op* begin() const { return ops_.data(); }
  [[nodiscard]] const Op* end() const { return ops_.data() + size_; }
  [[nodiscard]] const Op& operator[](std::size_t i) const { return ops_[i]; }
  void clear() { size_ = 0; units_ = 0; }
  [[nodiscard]] std::uint8_t next_unit() { return units_++; }
  [[nodiscard]] std::uint8_t units() const { return units_; }

 private:
  std::array<Op, N> ops_{};
  std::size_t size_ = 0;
  std::uint8_t units_ = 0;
};

inline constexpr std::size_t kMaxUnits = 64;      // units per list (op_time.cpp keeps their windows)
inline constexpr std::size_t kMaxLayerOps = 96;  // a transformer layer
inline constexpr std::size_t kMaxEdgeOps = 16;   // the embedding, the head, an MTP projection

// One transformer layer (dense or MoE), the embedding, the head (logits and loss), or an MTP
// module's projection, with what the memory model and the collective volumes read from it.
template <std::size_t N>
struct OpBlock {
  OpArray<N> ops;
  bool full_recompute = false;   // the recompute pass is the forward pass again
  bool host_dispatch = false;    // a pass costs max(GPU time, its kernels' host time) (layers)
  double params = 0;             // parameters on one GPU (weights, biases, norms)
  double expert_params = 0;      // of which expert weights
  double linear_params = 0;      // of which linear-layer weights (FP8 GEMMs under fp8)
  Bytes tp_bytes, cp_bytes;      // per microbatch, forward: TP collectives, CP K/V exchange
};
using LayerOps = OpBlock<kMaxLayerOps>;
using EdgeOps = OpBlock<kMaxEdgeOps>;

// Shapes on one GPU for one microbatch, and the settings that change the op list.
struct OpShape {
  const ModelSpec* model = nullptr;
  const ParallelSpec* parallel = nullptr;
  const Layout* layout = nullptr;
  bool flash = true;
  double weight_bytes = 2;  // bytes per 16-bit weight / new gradient element
  double acc_bytes = 4;     // bytes per accumulated gradient element
  bool fp8 = false;
  double cast_bytes = 4, cast_kernels = 1, fp8_ratio = 1;
  bool grad_acc_fused = false;
  double rank_load = 1;     // busiest expert-parallel rank's routed tokens over the mean
  // TE userbuffers per op (tp_overlap.hpp) when the GPU has a measured GEMM-vs-M curve (Hopper);
  // otherwise issue 24's bound over the four collectives of each pass.
  bool tp_overlap_per_op = false;
  double b = 0, s_loc = 0, s = 0, T = 0, Tsp = 0, h = 0, hd = 0, heads_loc = 0, kv_heads_loc = 0, f = 0, t = 0;
};

[[nodiscard]] OpShape op_shape(const ClusterSpec& cluster, const WorkloadSpec& w, const Layout& l);

// Builders; each clears `out` first.
void build_layer_ops(const OpShape& c, bool moe, LayerOps& out);
void build_embedding_ops(const OpShape& c, EdgeOps& out);
void build_head_ops(const OpShape& c, EdgeOps& out);
void build_mtp_projection_ops(const OpShape& c, EdgeOps& out);

[[nodiscard]] std::string_view to_string(OpKind k);
[[nodiscard]] std::string_view to_string(Phase p);
[[nodiscard]] std::string_view to_string(OpStream s);
[[nodiscard]] std::string_view to_string(OpGroup g);

template <std::size_t N>
Op& OpArray<N>::add(const Op& op) {
  if (size_ == N) throw std::length_error("op list: more than " + std::to_string(N) + " ops (raise its capacity)");
  ops_[size_] = op;
  return ops_[size_++];
}

}  // namespace fleetsim::step
