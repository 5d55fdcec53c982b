#include "sim/step/pipeline_schedule.hpp"

#include <algorithm>
#include <stdexcept>

namespace fleetsim::step {

PipelineSchedule::PipelineSchedule(int p, int v, int m, int group)
    : p_(std::max(1, p)), v_(std::max(1, v)), m_(std::max(1, m)),
      n_(std::min(m_, group > 0 ? group : p_)) {}

int PipelineSchedule::warmup_forwards(int r) const {
  const int total = m_ * v_;
  if (v_ == 1) return std::min(p_ - r - 1, total);
  // Megatron's interleaved warm-up (all forwards when m == p).
  if (m_ == p_ && n_ == p_) return total;
  return std::min((p_ - r - 1) * 2 + (v_ - 1) * n_, total);
}

PipelineOp PipelineSchedule::op(int r, int k) const {
  const int total = m_ * v_;
  const int w = warmup_forwards(r);
  int fwd_index, bwd_index;
  bool forward;
  if (k < w) {
    forward = true; fwd_index = k; bwd_index = 0;
  } else if (k < w + 2 * (total - w)) {
    const int i = (k - w) / 2;
    forward = ((k - w) % 2) == 0;
    fwd_index = w + i; bwd_index = i;
  } else {
    forward = false; fwd_index = 0; bwd_index = k - total;  // k - w - 2 (total - w) + (total - w)
  }
  const int idx = forward ? fwd_index : bwd_index;
  PipelineOp op;
  op.forward = forward;
  if (v_ == 1) {
    op.microbatch = idx;
    op.chunk = r;
    return op;
  }
  // Groups of n_ microbatches run chunk by chunk; the last group holds what remains.
  const int group = n_ * v_;
  const int full = m_ / n_;
  int local, mb;
  if (idx < full * group) {
    local = (idx % group) / n_;
    mb = (idx / group) * n_ + idx % n_;
  } else {
    const int rest = m_ - full * n_, within = idx - full * group;
    local = within / rest;
    mb = full * n_ + within % rest;
  }
  if (!forward) local = v_ - 1 - local;
  op.microbatch = mb;
  op.chunk = local * p_ + r;
  return op;
}

namespace {

// The op order of every rank, encoded as (j * m + microbatch) * 2 + (backward ? 1 : 0),
// memoized per (p, v, m) and thread: the schedule's order does not depend on durations.
struct OpTable {
  int p = -1, v = -1, m = -1, n = -1;
  std::vector<int> code;
};

const OpTable& op_table(const PipelineSchedule& s) {
  thread_local OpTable t;
  if (t.p != s.ranks() || t.v != s.chunks_per_rank() || t.m != s.microbatches() || t.n != s.group()) {
    t.p = s.ranks(); t.v = s.chunks_per_rank(); t.m = s.microbatches(); t.n = s.group();
    const int ops = s.ops_per_rank();
    t.code.resize(static_cast<size_t>(t.p) * ops);
    for (int r = 0; r < t.p; ++r)
      for (int k = 0; k < ops; ++k) {
        const PipelineOp op = s.op(r, k);
        t.code[static_cast<size_t>(r) * ops + k] = (op.chunk * t.m + op.microbatch) * 2 + (op.forward ? 0 : 1);
      }
  }
  return t;
}

struct Workspace {
  std::vector<double> fwd_done, bwd_done;   // [j * m + mb], -1 when not yet run
  std::vector<int> fwd_waiter, bwd_waiter;  // rank waiting for this op, -1 none
  std::vector<int> next_op;
  std::vector<double> rank_free;
  std::vector<int> stack;
  void reset(size_t ops, size_t ranks) {
    fwd_done.assign(ops, -1.0); bwd_done.assign(ops, -1.0);
    fwd_waiter.assign(ops, -1); bwd_waiter.assign(ops, -1);
    next_op.assign(ranks, 0); rank_free.assign(ranks, 0.0);
    stack.clear();
  }
};

// The list scheduler; kRecord instantiates the variant that keeps every op's placement, so the
// hot loop of the model's evaluations carries no recording branch (measured: it halved
// bench_step's rate when it did).
template <bool kRecord, bool kPerOp>
void time_schedule_impl(const PipelineSchedule& s, const std::vector<double>& forward,
                        const std::vector<double>& backward, double p2p, ScheduleTimes& out,
                        std::vector<OpTiming>* record) {
  thread_local Workspace ws;
  const int p = s.ranks(), v = s.chunks_per_rank(), m = s.microbatches();
  const int J = p * v;
  const size_t durations = static_cast<size_t>(J) * (kPerOp ? static_cast<size_t>(m) : 1);
  if (forward.size() != durations || backward.size() != durations)
    throw std::logic_error(kPerOp ? "time_schedule_per_op: one duration per chunk and microbatch expected"
                                  : "time_schedule: one duration per model chunk expected");
  ws.reset(static_cast<size_t>(J) * m, static_cast<size_t>(p));
  const double* forward_d = forward.data();
  const double* backward_d = backward.data();
  out.rank_end.assign(static_cast<size_t>(p), 0.0);
  out.rank_busy.assign(static_cast<size_t>(p), 0.0);
  out.last_backward_start.assign(static_cast<size_t>(J), 0.0);
  out.last_backward_end.assign(static_cast<size_t>(J), 0.0);
  out.first_forward_start.assign(static_cast<size_t>(J), 0.0);
  out.first_forward_end.assign(static_cast<size_t>(J), 0.0);
  const int ops = s.ops_per_rank();
  const OpTable& table = op_table(s);
  const int* code = table.code.data();
  for (int r = p - 1; r >= 0; --r) ws.stack.push_back(r);
  int finished_ranks = 0;
  double* fwd_done = ws.fwd_done.data();
  double* bwd_done = ws.bwd_done.data();
  int* fwd_waiter = ws.fwd_waiter.data();
  int* bwd_waiter = ws.bwd_waiter.data();
  const int last_chunk_base = (J - 1) * m;
  while (!ws.stack.empty()) {
    const int r = ws.stack.back();
    ws.stack.pop_back();
    int& k = ws.next_op[static_cast<size_t>(r)];
    double& free = ws.rank_free[static_cast<size_t>(r)];
    const int* rank_code = code + static_cast<size_t>(r) * ops;
    double busy = 0;
    while (k < ops) {
      const int c = rank_code[k];
      const int self = c >> 1;               // j * m + mb
      const bool forward = (c & 1) == 0;
      const int j = self / m;
      double ready;
      if (forward) {
        if (j == 0) {
          ready = 0.0;
        } else {
          const int dep = self - m;          // chunk j - 1, same microbatch
          if (fwd_done[dep] < 0) { fwd_waiter[dep] = r; break; }
          ready = fwd_done[dep] + p2p;
        }
      } else if (self >= last_chunk_base) {
        if (fwd_done[self] < 0) { fwd_waiter[self] = r; break; }
        ready = fwd_done[self];
      } else {
        const int dep = self + m;            // chunk j + 1, same microbatch
        if (bwd_done[dep] < 0) { bwd_waiter[dep] = r; break; }
        ready = bwd_done[dep] + p2p;
      }
      const int at = kPerOp ? self : j;
      const double d = forward ? forward_d[at] : backward_d[at];
      const double start = free > ready ? free : ready;
      free = start + d;
      busy += d;
      if constexpr (kRecord) record->push_back({r, {forward, self % m, j}, start, free});
      if (forward) {
        fwd_done[self] = free;
        if (self % m == 0) {
          out.first_forward_start[static_cast<size_t>(j)] = start;
          out.first_forward_end[static_cast<size_t>(j)] = free;
        }
        if (fwd_waiter[self] >= 0) { ws.stack.push_back(fwd_waiter[self]); fwd_waiter[self] = -1; }
      } else {
        bwd_done[self] = free;
        if (free >= out.last_backward_end[static_cast<size_t>(j)]) {
          out.last_backward_end[static_cast<size_t>(j)] = free;
          out.last_backward_start[static_cast<size_t>(j)] = start;
        }
        if (bwd_waiter[self] >= 0) { ws.stack.push_back(bwd_waiter[self]); bwd_waiter[self] = -1; }
      }
      ++k;
    }
    out.rank_busy[static_cast<size_t>(r)] += busy;
    if (k == ops) {
      out.rank_end[static_cast<size_t>(r)] = free;
      ++finished_ranks;
    }
  }
  if (finished_ranks != p) throw std::logic_error("time_schedule: the schedule deadlocked");
  out.makespan = *std::max_element(out.rank_end.begin(), out.rank_end.end());
}

}  // namespace

void time_schedule(const PipelineSchedule& s, const std::vector<double>& forward,
                   const std::vector<double>& backward, double p2p, ScheduleTimes& out,
                   std::vector<OpTiming>* record) {
  if (record) time_schedule_impl<true, false>(s, forward, backward, p2p, out, record);
  else time_schedule_impl<false, false>(s, forward, backward, p2p, out, nullptr);
}

void add_blocking_sends(std::vector<double>& forward, std::vector<double>& backward, double p2p, int per_chunk) {
  const size_t n = forward.size(), k = static_cast<size_t>(per_chunk);
  for (size_t i = 0; i < n; ++i) {
    if (i + k < n) forward[i] += p2p;
    if (i >= k) backward[i] += p2p;
  }
}

void time_schedule_per_op(const PipelineSchedule& s, const std::vector<double>& forward,
                          const std::vector<double>& backward, double p2p, ScheduleTimes& out) {
  time_schedule_impl<false, true>(s, forward, backward, p2p, out, nullptr);
}

InFlight activations_in_flight(const PipelineSchedule& s, const std::vector<int>& chunk_layers) {
  InFlight f;
  const int p = s.ranks(), J = p * s.chunks_per_rank();
  f.peak_layer_microbatches.assign(static_cast<size_t>(p), 0);
  f.peak_chunk_microbatches.assign(static_cast<size_t>(p), 0);
  for (int r = 0; r < p; ++r) {
    int layers = 0, chunks = 0, first = 0, last = 0;
    for (int k = 0; k < s.ops_per_rank(); ++k) {
      const PipelineOp op = s.op(r, k);
      const int sign = op.forward ? 1 : -1;
      layers += sign * chunk_layers[static_cast<size_t>(op.chunk)];
      chunks += sign;
      if (op.chunk == 0) first += sign;
      if (op.chunk == J - 1) last += sign;
      auto& pl = f.peak_layer_microbatches[static_cast<size_t>(r)];
      auto& pc = f.peak_chunk_microbatches[static_cast<size_t>(r)];
      pl = std::max(pl, layers);
      pc = std::max(pc, chunks);
      f.first_chunk_peak = std::max(f.first_chunk_peak, first);
      f.last_chunk_peak = std::max(f.last_chunk_peak, last);
    }
  }
  return f;
}

}  // namespace fleetsim::step
