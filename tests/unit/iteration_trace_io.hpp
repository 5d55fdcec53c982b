// Writes an iteration timeline (either tier's) as the trace file `fleetsim step --trace` writes,
// and reads it back (trace_reader.hpp). Shared by the analytical and SimGrid trace tests.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

#include "sim/step/trace.hpp"
#include "tests/unit/trace_reader.hpp"

namespace fleetsim::testing {

inline void add_test_iteration_trace(const step::IterationTimeline& tl, const ClusterSpec& c, const WorkloadSpec& w,
                                     TraceWriter& writer) {
  Scenario s;
  s.file = "test";
  s.description = "iteration trace test";
  s.cluster = c;
  s.workload = w;
  step::add_iteration_trace(tl, s, writer);
}

// The trace's JSON text, for byte-for-byte comparisons.
inline std::string iteration_trace_json(const step::IterationTimeline& tl, const ClusterSpec& c,
                                        const WorkloadSpec& w) {
  TraceWriter writer;
  add_test_iteration_trace(tl, c, w, writer);
  return writer.str();
}

// The trace written to a file of this process's own (CTest runs a file's test cases in parallel
// processes) and read back as a viewer would.
inline ReadTrace write_and_read_iteration_trace(const step::IterationTimeline& tl, const ClusterSpec& c,
                                                const WorkloadSpec& w, const std::string& stem) {
  TraceWriter writer;
  add_test_iteration_trace(tl, c, w, writer);
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / (stem + "." + std::to_string(getpid()) + ".json");
  writer.write(path.string());
  ReadTrace t = read_trace(path.string());
  std::filesystem::remove(path);
  return t;
}

}  // namespace fleetsim::testing
