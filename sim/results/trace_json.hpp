// A writer of the Chrome trace-event format (JSON object form), which Perfetto
// (ui.perfetto.dev), chrome://tracing and speedscope open. Format: "Trace Event Format",
// Google, docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU: complete
// events ("ph":"X") with "ts" and "dur" in microseconds, metadata events ("ph":"M") naming
// processes and threads, instant events ("ph":"i"), counter events ("ph":"C"). Complete events on
// one thread must nest.
//
// One event per line, keys in a fixed order and numbers in the shortest round-trip form
// (json_number), so the same scenario gives the same bytes. The file is written to a temporary
// name and renamed into place.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace fleetsim {

// One argument of an event: a number or a string.
struct TraceArg {
  std::string key;
  bool is_number = true;
  double number = 0;
  std::string text;
  TraceArg(std::string k, double v) : key(std::move(k)), number(v) {}
  TraceArg(std::string k, int v) : key(std::move(k)), number(v) {}
  TraceArg(std::string k, std::string v) : key(std::move(k)), is_number(false), text(std::move(v)) {}
  TraceArg(std::string k, const char* v) : key(std::move(k)), is_number(false), text(v) {}
};
using TraceArgs = std::vector<TraceArg>;

class TraceWriter {
 public:
  void process_name(int pid, const std::string& name, int sort_index);
  void thread_name(int pid, int tid, const std::string& name, int sort_index);
  // A span [start, start + duration] in seconds; zero or negative durations are skipped.
  void complete(int pid, int tid, const std::string& name, const std::string& category, double start_s,
                double duration_s, const TraceArgs& args = {});
  // A point in time (scope "t": the thread).
  void instant(int pid, int tid, const std::string& name, const std::string& category, double at_s,
               const TraceArgs& args = {});
  // A counter's value from `at_s` on (a step function; Perfetto draws one counter track per name
  // and key of the process).
  void counter(int pid, const std::string& name, double at_s, const TraceArgs& values);
  // Trace-wide facts, written under "otherData".
  void other(const std::string& key, const std::string& value) { other_.emplace_back(key, value); }

  [[nodiscard]] size_t events() const { return lines_.size(); }
  [[nodiscard]] std::string str() const;
  // Writes atomically (PATH.tmp, then rename); throws ConfigError naming the path on failure.
  void write(const std::string& path) const;

 private:
  std::vector<std::string> lines_;
  std::vector<std::pair<std::string, std::string>> other_;
};

}  // namespace fleetsim
