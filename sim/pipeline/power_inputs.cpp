#include "sim/pipeline/power_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/core/checked.hpp"

namespace fleetsim {
namespace {

bool is_compute(const std::string& cat) {
  using namespace step::trace_cat;
  for (const char* c : {kForward, kBackward, kRecompute, kCompute, kContention, kOptimizer})
    if (cat == c) return true;
  return false;
}

}  // namespace

std::vector<facility::StageActivity> stage_activities(const step::IterationTimeline& t, const FacilitySpec& f) {
  const double period = t.result.iteration_time.si();
  if (!(period > 0)) throw std::invalid_argument("stage_activities: the iteration has no length");
  const auto cells = std::clamp<size_t>(checked_cast<size_t>(std::ceil(period / 1e-3), "activity cells"), 200, 1000000);
  const double cell = period / static_cast<double>(cells);
  std::vector<facility::StageActivity> out(static_cast<size_t>(std::max(1, t.ranks)));
  for (size_t r = 0; r < out.size(); ++r) {
    out[r].name = "stage_" + std::to_string(r);
    out[r].gpus = t.gpus_per_rank;
    out[r].activity.assign(cells, f.gpu_activity_communication);
  }
  for (const auto& sp : t.spans) {
    if (sp.stream != step::TraceStream::Compute || sp.rank < 0 || static_cast<size_t>(sp.rank) >= out.size()) continue;
    const double a = is_compute(sp.category) ? f.gpu_activity_compute : f.gpu_activity_communication;
    auto& act = out[static_cast<size_t>(sp.rank)].activity;
    const double lo = std::clamp(sp.start, 0.0, period), hi = std::clamp(sp.start + sp.duration, 0.0, period);
    if (!(hi > lo)) continue;
    const auto first = std::min(cells - 1, static_cast<size_t>(lo / cell));
    const auto last = std::min(cells - 1, static_cast<size_t>(hi / cell));
    for (size_t i = first; i <= last; ++i) {
      // Paint over the share of the cell the span covers (a later, deeper span paints over it).
      const double c0 = static_cast<double>(i) * cell;
      const double covered = (std::min(hi, c0 + cell) - std::max(lo, c0)) / cell;
      act[i] += (a - act[i]) * std::clamp(covered, 0.0, 1.0);
    }
  }
  return out;
}

std::vector<facility::JobStateSpan> job_states(const ReplicationResult& rep) {
  using facility::JobState;
  std::vector<facility::JobStateSpan> out;
  for (const StateSpan& s : rep.timeline) {
    if (s.state == phase::kLostWork) continue;
    JobState js = JobState::Stopped;
    if (s.state == "training" || s.state == phase::kDegraded) js = JobState::Training;
    else if (s.state == "checkpoint_write") js = JobState::CheckpointStall;
    out.push_back({s.start, s.end, js});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
  return out;
}

}  // namespace fleetsim
