// The run timeline (`fleetsim run --trace`): replication 0's states cover its wall clock without
// gaps or overlaps, the time in each state equals the engine's own accounting (lost_hours per
// phase, productive hours), and the trace-event file reads back with the same spans.
#include <catch2/catch.hpp>

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>
#include <string>
#include <unistd.h>

#include "sim/config/load.hpp"
#include "sim/pipeline/run_pipeline.hpp"
#include "sim/pipeline/run_trace.hpp"

using namespace fleetsim;
namespace fs = std::filesystem;

TEST_CASE("run trace: replication 0's states tile the run and sum to the engine's phase hours", "[trace][unit]") {
  // The default scenario for 10 days with failures ten times as frequent: every kind of outage
  // phase occurs in a short run.
  const Scenario s = config::load_scenario("", {"run.duration=10d", "run.replications=2", "failures.rate_scale=10",
                                                "failures.planned_rate_per_job=0.5 /d"});
  PipelineOptions opt;
  opt.threads = 1;
  opt.record_timeline = true;
  const PipelineResult r = run_pipeline(s, opt);
  const ReplicationResult& rep = r.run.replications.front();
  REQUIRE(!rep.timeline.empty());
  CHECK(r.run.replications.back().timeline.empty());  // replication 0 only

  std::map<std::string, double> hours;
  double cursor = 0, lost = 0, lost_end = 0;
  for (const StateSpan& sp : rep.timeline) {
    CHECK(sp.end.si() > sp.start.si());
    if (sp.state == phase::kLostWork) {
      lost += (sp.end - sp.start).si() / 3600.0;
      CHECK(sp.start.si() >= lost_end);  // rolled-back stretches do not overlap (their own track)
      lost_end = sp.end.si();
      continue;
    }
    CHECK(sp.start.si() == Approx(cursor).margin(1e-6));  // contiguous
    cursor = sp.end.si();
    hours[sp.state] += (sp.end - sp.start).si() / 3600.0;
  }
  CHECK(cursor == Approx(rep.wall_clock_days * 86400.0).epsilon(1e-12));
  CHECK(rep.unexpected > 5);
  CHECK(rep.planned > 0);
  // Outage phases and checkpoint stalls: the engine's own hours (a planned stop's synchronous
  // checkpoint is an outage phase named checkpoint_stalls; periodic ones are checkpoint_write).
  for (const auto& [name, h] : rep.lost_hours) {
    if (name == phase::kLostWork || name == phase::kDegraded) continue;
    INFO(name);
    double traced = hours.count(name) ? hours.at(name) : 0.0;
    if (name == phase::kCheckpointStalls) traced += hours["checkpoint_write"];
    CHECK(traced == Approx(h).epsilon(1e-9).margin(1e-9));
  }
  CHECK(lost == Approx(rep.lost_hours.at(phase::kLostWork)).epsilon(1e-9).margin(1e-9));
  // Training time = compute kept + compute rolled back (+ replicas missing under replica restart).
  CHECK(hours["training"] == Approx(rep.productive_hours + rep.lost_hours.at(phase::kLostWork) +
                                    rep.lost_hours.at(phase::kDegraded)).epsilon(1e-9));

  // The file: valid trace-event JSON, one span per timeline entry, instants per interruption.
  TraceWriter w;
  add_run_trace(s, r, w);
  // One file per process: CTest runs the test cases of this file in parallel processes.
  const fs::path path = fs::temp_directory_path() / ("fleetsim_run_trace_test." + std::to_string(getpid()) + ".json");
  w.write(path.string());
  const YAML::Node root = YAML::LoadFile(path.string());
  fs::remove(path);
  size_t spans = 0, interruptions = 0;
  for (const auto& e : root["traceEvents"]) {
    const std::string ph = e["ph"].as<std::string>();
    if (ph == "X") ++spans;
    if (ph == "i" && e["tid"].as<int>() == 3) ++interruptions;
  }
  CHECK(spans == rep.timeline.size());
  CHECK(interruptions >= static_cast<size_t>(rep.unexpected + rep.planned));
}
