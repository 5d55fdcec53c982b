// Reads a Chrome trace-event JSON file back as a viewer would (yaml-cpp: JSON is YAML 1.2 flow
// syntax) and checks what the format requires of it: on every track, complete events ordered by
// start and properly nested; counter events ordered in time. Shared by the iteration-trace tests.
#pragma once

#include <catch2/catch.hpp>

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace fleetsim::testing {

struct TraceEvent {
  int pid = 0, tid = 0;
  double ts = 0, dur = 0;  // seconds
  std::string name, cat;
  YAML::Node args;
};

struct ReadTrace {
  YAML::Node root;
  std::vector<TraceEvent> events;                           // complete events ("X"), file order
  std::map<std::pair<int, int>, std::string> thread_names;  // (pid, tid) -> name
  std::map<std::string, std::vector<std::pair<double, double>>> counters;  // name -> (time s, value)
  [[nodiscard]] std::string thread(int pid, int tid) const {
    auto it = thread_names.find({pid, tid});
    return it == thread_names.end() ? std::string() : it->second;
  }
};

inline ReadTrace read_trace(const std::string& path) {
  ReadTrace t;
  t.root = YAML::LoadFile(path);
  REQUIRE(t.root["traceEvents"].IsSequence());
  for (const auto& e : t.root["traceEvents"]) {
    const std::string ph = e["ph"].as<std::string>();
    const int pid = e["pid"].as<int>();
    if (ph == "M") {
      if (e["name"].as<std::string>() == "thread_name")
        t.thread_names[{pid, e["tid"].as<int>()}] = e["args"]["name"].as<std::string>();
      continue;
    }
    if (ph == "C") {
      const auto args = e["args"];
      REQUIRE(args.size() == 1);
      t.counters[e["name"].as<std::string>()].emplace_back(e["ts"].as<double>() * 1e-6,
                                                           args.begin()->second.as<double>());
      continue;
    }
    REQUIRE(ph == "X");
    TraceEvent ev;
    ev.pid = pid;
    ev.tid = e["tid"].as<int>();
    ev.ts = e["ts"].as<double>() * 1e-6;
    ev.dur = e["dur"].as<double>() * 1e-6;
    ev.name = e["name"].as<std::string>();
    ev.cat = e["cat"].as<std::string>();
    if (e["args"]) ev.args = e["args"];
    CHECK(ev.ts >= 0);
    CHECK(ev.dur > 0);
    t.events.push_back(ev);
  }
  return t;
}

// Events of each track in file order: starts never decrease, and each event lies inside the
// enclosing open one or after it (proper nesting, what the format requires of complete events).
// Counters: times never decrease, values are finite and not negative.
inline void check_order_and_nesting(const ReadTrace& t) {
  const double eps = 1e-12;
  std::map<std::pair<int, int>, std::vector<const TraceEvent*>> tracks;
  for (const auto& e : t.events) tracks[{e.pid, e.tid}].push_back(&e);
  for (const auto& [id, evs] : tracks) {
    INFO("track " << id.first << "/" << id.second << " " << t.thread(id.first, id.second));
    std::vector<const TraceEvent*> open;
    double last = -1;
    for (const TraceEvent* e : evs) {
      CHECK(e->ts >= last - eps);
      last = e->ts;
      while (!open.empty() && e->ts >= open.back()->ts + open.back()->dur - eps) open.pop_back();
      if (!open.empty()) {
        INFO(e->name << " inside " << open.back()->name);
        CHECK(e->ts + e->dur <= open.back()->ts + open.back()->dur + 1e-9 * (1 + e->ts));
      }
      open.push_back(e);
    }
  }
  for (const auto& [name, points] : t.counters) {
    INFO("counter " << name);
    for (size_t i = 0; i < points.size(); ++i) {
      if (i) CHECK(points[i].first >= points[i - 1].first);
      CHECK(points[i].second >= 0);
    }
  }
}

}  // namespace fleetsim::testing
