#include "sim/results/trace_json.hpp"

#include <cstdio>
#include <fstream>

#include "sim/core/atomic_file.hpp"
#include "sim/core/error.hpp"
#include "sim/results/json.hpp"

namespace fleetsim {
namespace {

std::string quoted(const std::string& s) { return json_escape(s); }  // adds the quotes

std::string args_json(const TraceArgs& args) {
  std::string out = "{";
  for (size_t i = 0; i < args.size(); ++i) {
    if (i) out += ",";
    out += quoted(args[i].key) + ":" + (args[i].is_number ? json_number(args[i].number) : quoted(args[i].text));
  }
  return out + "}";
}

// Microseconds, the format's unit.
std::string micros(double seconds) { return json_number(seconds * 1e6); }

}  // namespace

void TraceWriter::process_name(int pid, const std::string& name, int sort_index) {
  lines_.push_back("{\"ph\":\"M\",\"pid\":" + std::to_string(pid) + ",\"name\":\"process_name\",\"args\":{\"name\":" +
                   quoted(name) + "}}");
  lines_.push_back("{\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
                   ",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":" + std::to_string(sort_index) + "}}");
}

void TraceWriter::thread_name(int pid, int tid, const std::string& name, int sort_index) {
  const std::string ids = "\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid);
  lines_.push_back("{\"ph\":\"M\"," + ids + ",\"name\":\"thread_name\",\"args\":{\"name\":" + quoted(name) + "}}");
  lines_.push_back("{\"ph\":\"M\"," + ids + ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":" +
                   std::to_string(sort_index) + "}}");
}

void TraceWriter::complete(int pid, int tid, const std::string& name, const std::string& category, double start_s,
                           double duration_s, const TraceArgs& args) {
  if (!(duration_s > 0)) return;
  lines_.push_back("{\"ph\":\"X\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
                   ",\"ts\":" + micros(start_s) + ",\"dur\":" + micros(duration_s) + ",\"name\":" + quoted(name) +
                   ",\"cat\":" + quoted(category) + (args.empty() ? "" : ",\"args\":" + args_json(args)) + "}");
}

void TraceWriter::instant(int pid, int tid, const std::string& name, const std::string& category, double at_s,
                          const TraceArgs& args) {
  lines_.push_back("{\"ph\":\"i\",\"s\":\"t\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
                   ",\"ts\":" + micros(at_s) + ",\"name\":" + quoted(name) + ",\"cat\":" + quoted(category) +
                   (args.empty() ? "" : ",\"args\":" + args_json(args)) + "}");
}

void TraceWriter::counter(int pid, const std::string& name, double at_s, const TraceArgs& values) {
  lines_.push_back("{\"ph\":\"C\",\"pid\":" + std::to_string(pid) + ",\"ts\":" + micros(at_s) +
                   ",\"name\":" + quoted(name) + ",\"args\":" + args_json(values) + "}");
}

std::string TraceWriter::str() const {
  std::string out = "{\"displayTimeUnit\":\"ms\",\"otherData\":{";
  for (size_t i = 0; i < other_.size(); ++i) {
    if (i) out += ",";
    out += "\n" + quoted(other_[i].first) + ":" + quoted(other_[i].second);
  }
  out += "},\n\"traceEvents\":[";
  for (size_t i = 0; i < lines_.size(); ++i) {
    out += i ? ",\n" : "\n";
    out += lines_[i];
  }
  return out + "\n]}\n";
}

void TraceWriter::write(const std::string& path) const {
  write_file_atomically(path, "--trace", "the trace", [&](std::ostream& out) { out << str(); });
}

}  // namespace fleetsim
