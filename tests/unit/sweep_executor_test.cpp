// The sweep's executor hook (what the MPI dispatcher plugs into, sim/mpi/sweep.hpp): whatever
// order the points run and report in, the directory is the one the local pool writes; and equal
// results give equal HDF5 bytes (no object timestamps), which the MPI equality tests rely on.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "sim/results/hdf5_writer.hpp"
#include "sim/results/report.hpp"
#include "sim/sweep/index.hpp"
#include "sim/sweep/runner.hpp"

using namespace fleetsim;
using namespace fleetsim::sweep;
namespace fs = std::filesystem;

namespace {

fs::path fresh(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("fleetsim-executor-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_result(const std::string& out, double ettr) {
  std::lock_guard lock(hdf5_mutex());
  Report r;
  r.set_prefix("run.");
  r.add("ettr", Stat{ettr, ettr - 0.02, ettr + 0.01});
  ResultsFile f(out);
  f.write_metrics(r);
  f.commit();
}

PointRunner runner() {
  return [](const Point& p, const std::string& out, int) -> PointOutcome {
    if (p.values.front().second == "bad") return {false, "does not fit"};
    write_result(out, 0.9 + 0.01 * p.index);
    return {true, ""};
  };
}

}  // namespace

TEST_CASE("a sweep whose executor runs the points in reverse writes the same directory as the local pool", "[unit]") {
  const auto points = expand_grid({parse_axis("a.x=1,bad,3,4,5")}, false, {});
  const fs::path local = fresh("local"), reversed = fresh("reversed");
  run_sweep(points, runner(), {local.string(), {"a.x"}, 2, 1, nullptr});
  SweepOptions o{reversed.string(), {"a.x"}, 1, 1, nullptr};
  int calls = 0;
  o.execute = [&](const std::vector<size_t>& todo, const std::function<PointOutcome(size_t)>& run_point,
                  const std::function<void(size_t, const PointOutcome&, double)>& done) {
    for (auto it = todo.rbegin(); it != todo.rend(); ++it) {
      done(*it, run_point(*it), 0.0);
      ++calls;
    }
  };
  const SweepSummary s = run_sweep(points, runner(), o);
  CHECK(calls == 5);
  CHECK(s.ran == 4);
  CHECK(s.failed == 1);
  CHECK(read(local / "index.csv") == read(reversed / "index.csv"));
  for (const auto& p : points)
    if (p.index != 1) CHECK(read(local / p.file) == read(reversed / p.file));
  fs::remove_all(local);
  fs::remove_all(reversed);
}

TEST_CASE("equal results written at different times are equal bytes", "[unit]") {
  const fs::path d = fresh("bytes");
  fs::create_directories(d);
  write_result((d / "a.h5").string(), 0.91);
  // HDF5 object times have 1 s resolution: the wait makes the two writes fall in different
  // seconds, so a timestamp in the file would show. Not a race: no timing can fail this test, a
  // shorter wait would only let a timestamp go unnoticed.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  write_result((d / "b.h5").string(), 0.91);
  CHECK(read(d / "a.h5") == read(d / "b.h5"));
  fs::remove_all(d);
}
