// Running a sweep: every point of the grid once, several at a time, resumable.
//
// A point is finished when its result file exists (results files are written to a temporary
// name and renamed, so an interrupted point leaves nothing). Finished points are skipped; a point
// that fails (bad layout, does not fit, crashed) is recorded with its error and the sweep goes on.
// DIR/index.csv is rewritten (atomically) after a point at most once a second and at the end, so
// a long sweep can be read while it runs.
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/sweep/grid.hpp"
#include "sim/sweep/index.hpp"

namespace fleetsim::sweep {

struct PointOutcome {
  bool ok = false;
  std::string error;  // one line when !ok
  // The point's headline figures when whoever ran it has read them back already (an MPI worker
  // rank does, so that rank 0 does not open every results file itself); empty: run_sweep reads
  // them. Both come from read_headlines on the same file, so the index is the same either way.
  std::optional<std::vector<std::optional<double>>> headlines = std::nullopt;
};

// Runs one point and writes its result to `output_path` (atomically); `threads` for its replications.
using PointRunner = std::function<PointOutcome(const Point& point, const std::string& output_path, int threads)>;

// Runs the points `todo` (indices into the grid) and calls `done(i, outcome, seconds)` once for
// each; `run_point(i)` runs point i here (its runner, timed exceptions caught). `done` may be
// called from any thread. The default runs them on SweepOptions::jobs local threads; the MPI
// dispatcher (sim/mpi/sweep.hpp) hands them to ranks as well.
using PointExecutor = std::function<void(const std::vector<size_t>& todo,
                                         const std::function<PointOutcome(size_t i)>& run_point,
                                         const std::function<void(size_t i, const PointOutcome&, double seconds)>& done)>;

struct SweepOptions {
  std::string dir;             // output directory (created when missing)
  std::vector<std::string> keys;  // the varied keys, in axis order (index columns)
  int jobs = 1;                // points run at the same time
  int threads_per_point = 1;   // replication threads inside one point
  std::ostream* log = nullptr; // one line per point (stderr in the CLI)
  PointExecutor execute = {};  // empty: jobs local threads
};

struct SweepSummary {
  int total = 0, ran = 0, skipped = 0, failed = 0;
  std::vector<PointRow> rows;  // grid order
};

SweepSummary run_sweep(const std::vector<Point>& points, const PointRunner& runner, const SweepOptions& options);

// The PointRunner of the CLI: runs `<binary> run [SCENARIO] --set ... -o OUTPUT` in a child
// process (so a crash or an abort in one point cannot take the sweep down, and the SimGrid tier,
// one engine per process, works), and takes the error from the child's stderr.
//
// Test-only fault injection: with FLEETSIM_TEST_KILL_AT_POINT=K in the environment, the process
// that is about to start point K (grid index, 0-based) kills itself with SIGKILL before starting
// it: the sweep (or, under mpirun, the rank that was handed point K) dies at a known point rather
// than after a test's sleep. Point K is then never written, and with one point in flight per
// slot every point handed out before it minus the other slots' is finished (tests/mpi/mpi_test.cpp,
// tests/scenario/bad_input_cli_test.cpp). Nothing else reads it; never set it outside a test.
PointRunner process_runner(std::string binary, GridBase base);

// The point K of FLEETSIM_TEST_KILL_AT_POINT (above), -1 when unset or not a number.
long long test_kill_at_point();

// The argument vector process_runner passes to the binary (without argv[0]).
std::vector<std::string> run_arguments(const GridBase& base, const Point& point, const std::string& output_path,
                                       int threads);

// The error line of a failed child from its stderr: the last "error: ..." line, else the last
// non-empty line; `status_note` ("exit code 2", "killed by signal 9") when stderr is empty.
std::string error_from_stderr(const std::string& stderr_text, const std::string& status_note);

}  // namespace fleetsim::sweep
