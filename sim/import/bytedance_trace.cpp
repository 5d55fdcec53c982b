#include "sim/import/bytedance_trace.hpp"

#include <algorithm>
#include <cstddef>
#include <map>
#include <string_view>

#include "sim/core/csv.hpp"
#include "sim/core/error.hpp"
#include "sim/step/pipeline_schedule.hpp"

namespace fleetsim::importer {
namespace {

// Which statistic of an operation type stands for its duration in the tail. Compute (the
// optimizer step) is the mean of the worker's operations; a collective's recorded duration
// includes the wait for its slowest member, and its median over the worker's steps stands for the
// transfer itself (the artifact subtracts the wait per operation, `get_transfer_time` in
// analyzer/wia.py; the start times that needs are not in the summary).
struct Field {
  std::string_view optype;
  double TraceWorker::*member;
  bool compute;
};
constexpr Field kFields[] = {
    {"forward-compute", &TraceWorker::forward, true},
    {"backward-compute", &TraceWorker::backward, true},
    {"optimizer", &TraceWorker::optimizer, true},
    {"grads-reduce-scatter", &TraceWorker::reduce_scatter, false},
    {"embedding-grads-all-reduce", &TraceWorker::embedding_all_reduce, false},
    {"optimizer-clip-main-grad", &TraceWorker::clip, false},
    {"params-all-gather", &TraceWorker::all_gather, false},
};

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// A rank or index column's value, bounded so the arrays they size stay small.
int bounded(const CsvTable& t, size_t i, std::string_view column, int lo, int hi) {
  const int v = t.integer(i, column);
  if (v < lo || v > hi)
    throw ConfigError(t.path, std::string(column), "line " + std::to_string(t.row_lines[i]) + ": " +
                                                       std::to_string(v) + " is outside [" + std::to_string(lo) +
                                                       ", " + std::to_string(hi) + "]");
  return v;
}

constexpr int kMaxRanks = 4096, kMaxMicrobatches = 4096;

}  // namespace

ByteDanceTrace read_bytedance_trace(const std::string& summary_path, const std::string& microbatch_path,
                                    const std::string& name) {
  ByteDanceTrace tr;
  tr.name = name;
  // The summary: workers, their tail operations, sends and the traced step time.
  const CsvTable t = read_csv(summary_path);
  t.require_columns({"trace", "dp_rank", "stage", "optype", "count", "mean_ms", "median_ms"});
  std::vector<double> sends;
  bool has_step = false;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t.at(i, "trace") != name) continue;
    if (t.at(i, "optype") == "step") {
      tr.measured_step = t.num(i, "mean_ms") * 1e-3;
      has_step = true;
      continue;
    }
    tr.dp = std::max(tr.dp, bounded(t, i, "dp_rank", 0, kMaxRanks - 1) + 1);
    tr.pp = std::max(tr.pp, bounded(t, i, "stage", 0, kMaxRanks - 1) + 1);
  }
  if (tr.dp == 0 || !has_step)
    throw ConfigError(summary_path, "trace", "no trace named '" + name + "' with worker rows and a step row (AR, SE, ST)");
  tr.workers.assign(static_cast<size_t>(tr.dp * tr.pp), TraceWorker{});
  for (size_t i = 0; i < t.size(); ++i) {
    if (t.at(i, "trace") != name || t.at(i, "optype") == "step") continue;
    TraceWorker& w = tr.workers[static_cast<size_t>(t.integer(i, "dp_rank") * tr.pp + t.integer(i, "stage"))];
    const std::string& op = t.at(i, "optype");
    if (op == "forward-send" || op == "backward-send") sends.push_back(t.num(i, "median_ms") * 1e-3);
    for (const Field& f : kFields)
      if (op == f.optype) w.*f.member = (f.compute ? t.num(i, "mean_ms") : t.num(i, "median_ms")) * 1e-3;
  }
  tr.p2p = sends.empty() ? 0.0 : *std::min_element(sends.begin(), sends.end());

  // The microbatches: one row per step, worker and microbatch.
  const CsvTable mb = read_csv(microbatch_path);
  mb.require_columns({"trace", "step", "dp_rank", "stage", "mb_id", "forward_ms", "backward_ms"});
  std::map<int, size_t> step_index;
  struct Row { size_t row; int step, worker, mb; };
  std::vector<Row> rows;
  for (size_t i = 0; i < mb.size(); ++i) {
    if (mb.at(i, "trace") != name) continue;
    const int d = bounded(mb, i, "dp_rank", 0, tr.dp - 1), s = bounded(mb, i, "stage", 0, tr.pp - 1);
    const int m = bounded(mb, i, "mb_id", 0, kMaxMicrobatches - 1);
    tr.microbatches = std::max(tr.microbatches, m + 1);
    rows.push_back({i, mb.integer(i, "step"), d * tr.pp + s, m});
    step_index.emplace(rows.back().step, 0);
  }
  if (rows.empty()) throw ConfigError(microbatch_path, "trace", "no microbatch rows for trace '" + name + "'");
  for (auto& [step, k] : step_index) {
    k = tr.steps.size();
    tr.steps.push_back({step, {}, {}});
  }
  const size_t per_step = tr.workers.size() * static_cast<size_t>(tr.microbatches);
  for (auto& s : tr.steps) {
    s.forward.assign(per_step, -1.0);
    s.backward.assign(per_step, -1.0);
  }
  for (const Row& r : rows) {
    TracedStep& s = tr.steps[step_index[r.step]];
    const size_t at = static_cast<size_t>(r.worker) * static_cast<size_t>(tr.microbatches) + static_cast<size_t>(r.mb);
    s.forward[at] = mb.num(r.row, "forward_ms") * 1e-3;
    s.backward[at] = mb.num(r.row, "backward_ms") * 1e-3;
  }
  for (const auto& s : tr.steps)
    for (size_t k = 0; k < per_step; ++k)
      if (!(s.forward[k] > 0) || !(s.backward[k] > 0))
        throw ConfigError(microbatch_path, "forward_ms",
                          "trace " + name + " step " + std::to_string(s.step) + ": worker dp " +
                              std::to_string(k / tr.microbatches / tr.pp) + " stage " +
                              std::to_string(k / tr.microbatches % tr.pp) + " microbatch " +
                              std::to_string(k % tr.microbatches) + " lacks a positive forward and backward");
  return tr;
}

ByteDanceTrace ideal(const ByteDanceTrace& trace) {
  ByteDanceTrace out = trace;
  for (const Field& f : kFields) {
    std::vector<double> v;
    double sum = 0;
    for (const auto& w : trace.workers) {
      if (w.*f.member <= 0) continue;  // a stage without the operation (the embedding all-reduce)
      v.push_back(w.*f.member);
      sum += w.*f.member;
    }
    if (v.empty()) continue;
    const double x = f.compute ? sum / static_cast<double>(v.size()) : median(v);
    for (auto& w : out.workers)
      if (w.*f.member > 0) w.*f.member = x;
  }
  double sum_f = 0, sum_b = 0, n = 0;
  for (const auto& s : trace.steps)
    for (size_t k = 0; k < s.forward.size(); ++k) {
      sum_f += s.forward[k];
      sum_b += s.backward[k];
      n += 1;
    }
  for (auto& s : out.steps) {
    std::fill(s.forward.begin(), s.forward.end(), sum_f / n);
    std::fill(s.backward.begin(), s.backward.end(), sum_b / n);
  }
  return out;
}

double replay_step(const ByteDanceTrace& tr, size_t k) {
  const int p = tr.pp, m = tr.microbatches;
  const TracedStep& st = tr.steps.at(k);
  const step::PipelineSchedule schedule(p, 1, m);
  step::ScheduleTimes times;
  std::vector<double> fwd(static_cast<size_t>(p * m)), bwd(static_cast<size_t>(p * m));
  // Pipeline end of each stage: the latest over the replicas (the reduce-scatter waits for it).
  std::vector<double> stage_end(static_cast<size_t>(p), 0.0);
  for (int d = 0; d < tr.dp; ++d) {
    const auto first = static_cast<std::ptrdiff_t>(d * p * m);
    std::copy(st.forward.begin() + first, st.forward.begin() + first + p * m, fwd.begin());
    std::copy(st.backward.begin() + first, st.backward.begin() + first + p * m, bwd.begin());
    // Blocking sends, as Megatron-LM's 1F1B without overlap_p2p_comm (sim/step/step_model.cpp).
    step::add_blocking_sends(fwd, bwd, tr.p2p, m);
    step::time_schedule_per_op(schedule, fwd, bwd, 0.0, times);
    for (int s = 0; s < p; ++s)
      stage_end[static_cast<size_t>(s)] = std::max(stage_end[static_cast<size_t>(s)], times.rank_end[static_cast<size_t>(s)]);
  }
  // A collective over the replicas of stage s lasts as long as its slowest member's.
  auto slowest = [&](int s, double TraceWorker::*member) {
    double x = 0;
    for (int d = 0; d < tr.dp; ++d) x = std::max(x, tr.at(d, s).*member);
    return x;
  };
  std::vector<double> t(static_cast<size_t>(p));
  for (int s = 0; s < p; ++s)
    t[static_cast<size_t>(s)] = stage_end[static_cast<size_t>(s)] + slowest(s, &TraceWorker::reduce_scatter);
  if (p > 1) {  // the tied embedding's gradients, first and last stage together
    const double emb = std::max(slowest(0, &TraceWorker::embedding_all_reduce),
                                slowest(p - 1, &TraceWorker::embedding_all_reduce));
    const double both = std::max(t.front(), t.back()) + emb;
    t.front() = both;
    t.back() = both;
  }
  // Gradient clipping: an all-reduce of the norm over every rank.
  double clip = 0;
  for (int s = 0; s < p; ++s) clip = std::max(clip, slowest(s, &TraceWorker::clip));
  const double clipped = *std::max_element(t.begin(), t.end()) + clip;
  double end = clipped;
  for (int s = 0; s < p; ++s)
    end = std::max(end, clipped + slowest(s, &TraceWorker::optimizer) + slowest(s, &TraceWorker::all_gather));
  return end;
}

TraceReplay replay(const ByteDanceTrace& trace) {
  const ByteDanceTrace best = ideal(trace);
  TraceReplay r;
  for (size_t k = 0; k < trace.steps.size(); ++k) {
    r.iteration += replay_step(trace, k) / static_cast<double>(trace.steps.size());
    r.ideal_iteration += replay_step(best, k) / static_cast<double>(trace.steps.size());
  }
  return r;
}

}  // namespace fleetsim::importer
