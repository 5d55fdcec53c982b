// Unit tests of the explicit pipeline schedules (sim/step/pipeline_schedule.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "sim/step/pipeline_schedule.hpp"

using namespace fleetsim::step;

namespace {
ScheduleTimes run(int p, int v, int m, double f, double b, double p2p = 0.0) {
  PipelineSchedule s(p, v, m);
  ScheduleTimes t;
  time_schedule(s, std::vector<double>(static_cast<size_t>(p * v), f),
                std::vector<double>(static_cast<size_t>(p * v), b), p2p, t);
  return t;
}
}  // namespace

TEST_CASE("every rank of a schedule runs each forward and each backward exactly once", "[unit]") {
  for (int v : {1, 2, 4}) {
    const int p = 4, m = 8;
    PipelineSchedule s(p, v, m);
    for (int r = 0; r < p; ++r) {
      std::vector<int> fwd(static_cast<size_t>(p * v * m), 0), bwd(fwd.size(), 0);
      for (int k = 0; k < s.ops_per_rank(); ++k) {
        const PipelineOp op = s.op(r, k);
        REQUIRE(op.chunk % p == r);
        auto& seen = op.forward ? fwd : bwd;
        ++seen[static_cast<size_t>(op.chunk * m + op.microbatch)];
      }
      for (int c = 0; c < v; ++c)
        for (int mb = 0; mb < m; ++mb) {
          CHECK(fwd[static_cast<size_t>((c * p + r) * m + mb)] == 1);
          CHECK(bwd[static_cast<size_t>((c * p + r) * m + mb)] == 1);
        }
    }
  }
}

TEST_CASE("a 1F1B pipeline of equal stages takes (m + p - 1) forward-backward times", "[unit]") {
  // Narayanan et al. SC'21 Sec. 2.2.1: bubble = (p - 1) (t_f + t_b).
  const ScheduleTimes t = run(8, 1, 32, 1.0, 2.0);
  CHECK(t.makespan == Approx((32 + 8 - 1) * 3.0));
  CHECK(t.rank_busy[0] == Approx(32 * 3.0));
}

TEST_CASE("the interleaved schedule divides the bubble by the number of model chunks", "[unit]") {
  // SC'21 Sec. 2.2.2: bubble = (p - 1) (t_f + t_b) / v, with per-chunk times 1/v of the stage's.
  const int p = 4, m = 16;
  for (int v : {2, 4}) {
    const ScheduleTimes t = run(p, v, m, 1.0 / v, 2.0 / v);
    CHECK(t.makespan == Approx(m * 3.0 + (p - 1) * 3.0 / v));
  }
}

TEST_CASE("point-to-point sends stretch the warm-up and cool-down of a pipeline", "[unit]") {
  const ScheduleTimes free = run(4, 1, 8, 1.0, 2.0, 0.0);
  const ScheduleTimes slow = run(4, 1, 8, 1.0, 2.0, 0.1);
  // The first microbatch crosses 3 boundaries forward and 3 backward before rank 0 can drain.
  CHECK(slow.makespan >= free.makespan + 6 * 0.1 - 1e-9);
}

TEST_CASE("a heavier last stage (logits and loss) holds up the whole pipeline", "[unit]") {
  const int p = 4, m = 16;
  PipelineSchedule s(p, 1, m);
  std::vector<double> f(p, 1.0), b(p, 2.0);
  f[p - 1] = 1.5;
  b[p - 1] = 3.0;
  ScheduleTimes t;
  time_schedule(s, f, b, 0.0, t);
  // The slowest stage paces the steady state: at least m of its forward-backward pairs.
  CHECK(t.makespan >= m * 4.5);
  CHECK(t.makespan > (m + p - 1) * 3.0);
}

TEST_CASE("1F1B keeps p - r microbatches in flight on pipeline rank r", "[unit]") {
  const int p = 4, m = 16;
  PipelineSchedule s(p, 1, m);
  const InFlight f = activations_in_flight(s, std::vector<int>(p, 5));
  for (int r = 0; r < p; ++r) CHECK(f.peak_layer_microbatches[static_cast<size_t>(r)] == 5 * (p - r));
}

TEST_CASE("the interleaved schedule keeps more chunk-microbatches in flight on the first rank", "[unit]") {
  // Megatron: warm-up of 2 (p - r - 1) + (v - 1) p forwards, plus the one in steady state.
  const int p = 4, v = 2, m = 16;
  PipelineSchedule s(p, v, m);
  const InFlight f = activations_in_flight(s, std::vector<int>(p * v, 1));
  CHECK(f.peak_chunk_microbatches[0] == 2 * (p - 1) + (v - 1) * p + 1);
  CHECK(f.peak_chunk_microbatches[p - 1] == (v - 1) * p + 1);
}

TEST_CASE("N contiguous microbatches per chunk: N = p is Megatron's order, a larger N holds more activations", "[unit]") {
  // Megatron-core microbatch_group_size_per_vp_stage (default p) and Llama 3's tunable N
  // (arXiv:2407.21783 §3.3.2): warm-up 2 (p - r - 1) + (v - 1) N forwards.
  const int p = 4, v = 3, m = 8;
  const PipelineSchedule megatron(p, v, m), same(p, v, m, p);
  for (int r = 0; r < p; ++r)
    for (int k = 0; k < megatron.ops_per_rank(); ++k) {
      CHECK(megatron.op(r, k).chunk == same.op(r, k).chunk);
      CHECK(megatron.op(r, k).microbatch == same.op(r, k).microbatch);
    }
  const std::vector<int> layers(static_cast<size_t>(p * v), 1);
  const InFlight narrow = activations_in_flight(megatron, layers);
  const InFlight wide = activations_in_flight(PipelineSchedule(p, v, m, 8), layers);
  CHECK(narrow.peak_layer_microbatches[0] == 2 * (p - 1) + (v - 1) * p + 1);
  CHECK(wide.peak_layer_microbatches[0] == std::min(m * v, 2 * (p - 1) + (v - 1) * 8 + 1));
}

TEST_CASE("every microbatch grouping the layout rules accept runs without deadlock", "[unit]") {
  // The rule (layout_rules.cpp, MicrobatchGroupInRange): N >= min(p, M) and M mod N = 0 or >= p.
  // Exhaustive over small pipelines; Llama 3's schedule runs any M, including M < p and M not a
  // multiple of p (arXiv:2407.21783 §3.3.2).
  int checked = 0;
  for (int p : {2, 3, 4, 8})
    for (int v : {2, 3, 4})
      for (int m = 1; m <= 20; ++m)
        for (int n = std::min(p, m); n <= m; ++n) {
          if (m % n != 0 && m % n < p) continue;
          PipelineSchedule s(p, v, m, n);
          ScheduleTimes t;
          INFO("p " << p << " v " << v << " m " << m << " N " << n);
          REQUIRE_NOTHROW(time_schedule(s, std::vector<double>(static_cast<size_t>(p * v), 1.0),
                                        std::vector<double>(static_cast<size_t>(p * v), 2.0), 0.0, t));
          CHECK(t.rank_busy[0] == Approx(m * v * 3.0));
          ++checked;
        }
  CHECK(checked > 500);
}

TEST_CASE("a grouping outside the rule can deadlock: why the layout rules refuse it", "[unit]") {
  PipelineSchedule s(4, 2, 8, 2);  // N = 2 < p = 4
  ScheduleTimes t;
  CHECK_THROWS(time_schedule(s, std::vector<double>(8, 1.0), std::vector<double>(8, 2.0), 0.0, t));
}
