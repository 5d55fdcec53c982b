// Explicit pipeline schedules, built microbatch by microbatch and timed by list scheduling.
//
// Schedules follow Megatron-LM (megatron/core/pipeline_parallel/schedules.py):
// - 1F1B (PipeDream-Flush, Narayanan et al. SC'21 Sec. 2.2.1): rank r runs min(p - r - 1, m)
//   warm-up forwards, then alternates one forward and one backward, then drains the backwards.
// - Interleaved 1F1B (SC'21 Sec. 2.2.2): each rank holds v model chunks (chunk j = c p + r);
//   microbatches run in groups of N contiguous ones per chunk (Megatron-core's
//   microbatch_group_size_per_vp_stage, default N = p; Llama 3's tunable N, arXiv:2407.21783
//   §3.3.2): warm-up = 2 (p - r - 1) + (v - 1) N forwards; the k-th forward runs chunk
//   (k mod Nv) div N on microbatch (k div Nv) N + k mod N (the last group holds the remaining
//   M mod N microbatches when N does not divide M, as Megatron-core's get_schedule_table), and
//   the backwards mirror it on the chunks in reverse order.
// Each rank runs its ops in that order; an op starts when the rank is free and its input has
// arrived: the forward of chunk j needs the forward of chunk j-1 (one p2p send later), the
// backward of chunk j the backward of chunk j+1 (one p2p later), the last chunk's backward its
// own forward. The result's bubble is whatever idle time this leaves, so uneven stages
// (embedding, logits, uneven layer splits) come out of the same computation.
//
// Cost: O(p v m) with an array workspace reused across calls (no allocation after warm-up).
#pragma once

#include <vector>

namespace fleetsim::step {

struct PipelineOp {
  bool forward = true;
  int microbatch = 0;
  int chunk = 0;  // global model chunk index j in [0, p v); its rank is j mod p
};

class PipelineSchedule {
 public:
  // `group` = N contiguous microbatches per chunk (interleaved only; 0 = p, clamped to m).
  PipelineSchedule(int pipeline_ranks, int virtual_chunks, int microbatches, int group = 0);
  [[nodiscard]] int ranks() const { return p_; }
  [[nodiscard]] int chunks_per_rank() const { return v_; }
  [[nodiscard]] int microbatches() const { return m_; }
  [[nodiscard]] int group() const { return n_; }
  [[nodiscard]] int ops_per_rank() const { return 2 * m_ * v_; }
  [[nodiscard]] int warmup_forwards(int rank) const;
  // The k-th op (0-based) rank `rank` executes.
  [[nodiscard]] PipelineOp op(int rank, int k) const;

 private:
  int p_, v_, m_, n_;
};

// Times of one schedule. Durations are per microbatch and per global chunk j (the same for
// every microbatch); `p2p` is the time of one activation/gradient send between stages.
struct ScheduleTimes {
  double makespan = 0.0;                // latest end over ranks
  std::vector<double> rank_end;         // when each rank finishes its last op
  std::vector<double> rank_busy;        // sum of its op durations
  std::vector<double> last_backward_start, last_backward_end;  // per chunk j
  std::vector<double> first_forward_start, first_forward_end;  // per chunk j, microbatch 0
};

// One op as the list scheduler placed it (for the iteration trace, sim/step/trace.cpp).
struct OpTiming {
  int rank = 0;
  PipelineOp op;
  double start = 0, end = 0;
};

// Simulates the schedule. `forward`/`backward` have p v entries. Thread-safe; the workspace is
// thread-local. With `record`, every op's placement is appended to it.
void time_schedule(const PipelineSchedule& schedule, const std::vector<double>& forward,
                   const std::vector<double>& backward, double p2p, ScheduleTimes& out,
                   std::vector<OpTiming>* record = nullptr);

// Megatron-LM's blocking sends (step_model.cpp): the sender is busy for one `p2p` after each
// forward of every chunk but the last and each backward of every chunk but the first. The
// vectors hold `per_chunk` consecutive entries per chunk (1, or m for time_schedule_per_op).
void add_blocking_sends(std::vector<double>& forward, std::vector<double>& backward, double p2p, int per_chunk = 1);

// The same with one duration per op: `forward`/`backward` have p v m entries, [j * m + microbatch]
// (a traced iteration whose microbatches differ, sim/import/bytedance_trace.hpp).
void time_schedule_per_op(const PipelineSchedule& schedule, const std::vector<double>& forward,
                          const std::vector<double>& backward, double p2p, ScheduleTimes& out);

// Peak number of layer-microbatches whose activations rank r holds at once under the schedule
// (forward stores a chunk's activations, its backward frees them), and the peak number of
// microbatches in flight on the first and the last chunk (embedding / logits buffers).
struct InFlight {
  std::vector<int> peak_layer_microbatches;  // per rank
  std::vector<int> peak_chunk_microbatches;  // per rank: chunk-microbatches (any chunk)
  int first_chunk_peak = 0, last_chunk_peak = 0;
};
[[nodiscard]] InFlight activations_in_flight(const PipelineSchedule& schedule,
                                             const std::vector<int>& chunk_layers);

}  // namespace fleetsim::step
