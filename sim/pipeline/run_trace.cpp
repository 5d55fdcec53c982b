#include "sim/pipeline/run_trace.hpp"

#include <stdexcept>

#include "sim/results/hdf5_writer.hpp"
#include "sim/step/trace.hpp"

namespace fleetsim {

void add_run_trace(const Scenario& s, const PipelineResult& r, TraceWriter& out) {
  if (r.run.replications.empty() || r.run.replications.front().timeline.empty())
    throw std::logic_error("add_run_trace: replication 0 kept no timeline (RunInputs::record_timeline)");
  const ReplicationResult& rep = r.run.replications.front();
  out.other("scenario", s.file);
  out.other("description", s.description);
  out.other("replication", "0 of " + std::to_string(r.run.replications.size()) + ", seed " +
                               std::to_string(s.run.seed));
  out.other("time", "wall clock from the start of the run");
  constexpr int kPid = 1;
  out.process_name(kPid, "run: replication 0, " + std::to_string(s.cluster.gpus) + " GPUs", 0);
  enum { kState = 1, kLost = 2, kInterruptions = 3, kCheckpoints = 4 };
  out.thread_name(kPid, kState, "job state", kState);
  out.thread_name(kPid, kLost, "work rolled back", kLost);
  out.thread_name(kPid, kInterruptions, "interruptions", kInterruptions);
  out.thread_name(kPid, kCheckpoints, "durable checkpoints", kCheckpoints);
  for (const StateSpan& sp : rep.timeline) {
    const bool lost = sp.state == phase::kLostWork;
    const std::string name = sp.cause.empty() ? sp.state : sp.state + " (" + sp.cause + ")";
    TraceArgs args;
    if (!sp.cause.empty()) args.emplace_back("cause", sp.cause);
    if (lost) args.emplace_back("compute_hours", (sp.end - sp.start).si() / 3600.0);
    out.complete(kPid, lost ? kLost : kState, name, sp.state, sp.start.si(), (sp.end - sp.start).si(), args);
  }
  if (r.power) {  // facility.power_timeline: the meter as counter tracks beside the states
    const auto& run = r.power->run_levels;
    for (size_t i = 0; i < run[0].values.size(); ++i)
      out.counter(kPid, "meter power, job state levels (MW)", run[0].values[i] * 3600.0, {{"MW", run[1].values[i]}});
    const auto& w = r.power->window;
    for (size_t i = 0; i < w[0].values.size() && i < w[2].values.size(); ++i)
      out.counter(kPid, "meter power, sampled window, 1 s (MW)", w[0].values[i] * 3600.0, {{"MW", w[2].values[i]}});
  }
  for (const Event& e : rep.events) {
    switch (e.kind) {
      case EventKind::CheckpointDurable:
        out.instant(kPid, kCheckpoints, "checkpoint durable", "checkpoint", e.time.si());
        break;
      case EventKind::Failure:
      case EventKind::Planned:
      case EventKind::Eviction:
      case EventKind::FailSlow:
        out.instant(kPid, kInterruptions, std::string(to_string(e.kind)) + ": " + e.cause, to_string(e.kind),
                    e.time.si(), {{"cause", e.cause}, {"outage_s", e.duration.si()}});
        break;
      default:
        break;
    }
  }
}

namespace {
std::vector<Column> columns_of(const std::vector<TimeSeries>& series) {
  std::vector<Column> cols;
  for (const auto& ts : series) cols.push_back({ts.name, ts.unit, ts.description, ts.values});
  return cols;
}
}  // namespace

void write_power_tables(const facility::PowerDynamicsResult& p, ResultsFile& f) {
  f.write_table("power/steady", columns_of(p.steady),
                "steady training at the timeline's resolution: the first minute (sim/facility/power_dynamics.hpp)");
  f.write_table("power/window", columns_of(p.window), "the sampled window of replication 0, 1 s averages");
  f.write_table("power/run", columns_of(p.run_levels), "the meter's level at each job state change, whole run");
  std::vector<double> psd;
  for (double v : p.spectrum.variance) psd.push_back(v);
  f.write_table("power/spectrum",
                {{"frequency", "Hz", "bin centre", p.spectrum.frequency_hz},
                 {"variance", "MW^2", "meter power variance in the bin (Hann window, one-sided)", psd}},
                "meter power spectrum in steady training (radix-2 FFT)");
}

void write_iteration_schedule(const Scenario& s, ResultsFile& f) {
  const step::IterationTimeline tl = step::iteration_timeline(s.cluster, s.workload);
  std::vector<double> rank, depth, start, duration;
  std::vector<std::string> stream, name, category;
  const char* streams[] = {"compute", "dp_gradients", "dp_parameters"};
  for (const auto& sp : tl.spans) {
    rank.push_back(sp.rank);
    stream.push_back(streams[static_cast<int>(sp.stream)]);
    depth.push_back(sp.depth);
    name.push_back(sp.name);
    category.push_back(sp.category);
    start.push_back(sp.start);
    duration.push_back(sp.duration);
  }
  f.write_table("iteration_schedule",
                {{"rank", "", "pipeline rank (one representative GPU per stage)", rank},
                 {"stream", "", "compute (critical path), dp_gradients, dp_parameters", stream},
                 {"depth", "", "0 op or phase, 1-2 parts nested inside it", depth},
                 {"name", "", "op or part", name},
                 {"category", "", "forward, backward, recompute, compute, tp_comm, pp_comm, bubble, dp_comm, ...",
                  category},
                 {"start_s", "s", "from the start of the iteration", start},
                 {"duration_s", "s", "length", duration}},
                "one iteration on the analytical tier, as its schedule placed it (sim/step/trace.hpp)");
}

}  // namespace fleetsim
