#include <catch2/catch.hpp>

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>

#include "sim/results/hdf5_writer.hpp"
#include "sim/results/report.hpp"
#include "sim/sweep/index.hpp"
#include "sim/sweep/runner.hpp"

using namespace fleetsim;
using namespace fleetsim::sweep;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("fleetsim-sweep-test-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(counter()++));
    fs::remove_all(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  static int& counter() {
    static int c = 0;
    return c;
  }
};

// A fake point runner: fails where a.x=bad, otherwise writes a results file with an ETTR that
// encodes the point's index; counts its calls.
struct FakeRunner {
  std::atomic<int> calls{0};
  PointRunner fn() {
    return [this](const Point& p, const std::string& out, int) -> PointOutcome {
      ++calls;
      for (const auto& [k, v] : p.values)
        if (v == "bad") return {false, "the layout does not divide:\nTP 8 x PP 16 > 12 GPUs"};
      std::lock_guard lock(hdf5_mutex());
      Report r;
      r.set_prefix("run.");
      const double e = 0.9 + 0.01 * p.index;
      r.add("ettr", Stat{e, e - 0.02, e + 0.01});
      r.add("mtti_hours", 3.0);
      ResultsFile f(out);
      f.write_metrics(r);
      f.commit();
      return {true, ""};
    };
  }
};

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

size_t column_of(const std::string& header, const std::string& name) {
  std::stringstream ss(header);
  std::string cell;
  for (size_t i = 0; std::getline(ss, cell, ','); ++i)
    if (cell == name) return i;
  FAIL("no column " << name);
  return 0;
}

}  // namespace

TEST_CASE("a failing point is recorded with its error and the other points still run", "[unit]") {
  TempDir dir;
  auto points = expand_grid({parse_axis("a.x=1,bad,3")}, false, {});
  FakeRunner fake;
  auto s = run_sweep(points, fake.fn(), {dir.path.string(), {"a.x"}, 2, 1, nullptr});
  CHECK(s.total == 3);
  CHECK(s.ran == 2);
  CHECK(s.failed == 1);
  CHECK(s.rows[1].status == "failed");
  CHECK(s.rows[1].error == "the layout does not divide: TP 8 x PP 16 > 12 GPUs");
  CHECK(fs::exists(dir.path / points[0].file));
  CHECK_FALSE(fs::exists(dir.path / points[1].file));

  const std::string csv = read(dir.path / "index.csv");
  std::stringstream lines(csv);
  std::string header, r0, r1, r2;
  std::getline(lines, header);
  std::getline(lines, r0);
  std::getline(lines, r1);
  std::getline(lines, r2);
  CHECK(header.rfind("point,file,a.x,status,error,mfu,", 0) == 0);
  CHECK(column_of(header, "ettr_p05") == column_of(header, "ettr") + 1);
  CHECK(r0.find(",1,ok,,") != std::string::npos);
  // ettr mean, p05, p95, its interval (none in this fake file: empty), mtti_hours
  CHECK(r0.find(",0.9,0.88,0.91,,,3,") != std::string::npos);
  CHECK(r1.find(",bad,failed,the layout does not divide: TP 8 x PP 16 > 12 GPUs,") != std::string::npos);
}

TEST_CASE("a rerun skips the points whose results file exists and retries the failed ones", "[unit]") {
  TempDir dir;
  auto points = expand_grid({parse_axis("a.x=1,bad,3")}, false, {});
  FakeRunner first;
  run_sweep(points, first.fn(), {dir.path.string(), {"a.x"}, 1, 1, nullptr});
  CHECK(first.calls == 3);
  const std::string index_before = read(dir.path / "index.csv");

  FakeRunner second;
  auto s = run_sweep(points, second.fn(), {dir.path.string(), {"a.x"}, 1, 1, nullptr});
  CHECK(second.calls == 1);  // only the failed point
  CHECK(s.skipped == 2);
  CHECK(s.failed == 1);
  CHECK(read(dir.path / "index.csv") == index_before);  // skipped points read their figures back
}

TEST_CASE("a leftover temporary file from an interrupted point does not count as finished", "[unit]") {
  TempDir dir;
  auto points = expand_grid({parse_axis("a.x=1")}, false, {});
  fs::create_directories(dir.path);
  std::ofstream(dir.path / (points[0].file + ".tmp.12345")) << "partial";
  FakeRunner fake;
  auto s = run_sweep(points, fake.fn(), {dir.path.string(), {"a.x"}, 1, 1, nullptr});
  CHECK(fake.calls == 1);
  CHECK(s.ran == 1);
  CHECK_FALSE(fs::exists(dir.path / (points[0].file + ".tmp.12345")));
}

TEST_CASE("every point runs exactly once when points run in parallel", "[unit]") {
  TempDir dir;
  auto points = expand_grid({parse_axis("a.x=1,2,3,4"), parse_axis("b.y=p,q")}, false, {});
  FakeRunner fake;
  auto s = run_sweep(points, fake.fn(), {dir.path.string(), {"a.x", "b.y"}, 4, 1, nullptr});
  CHECK(fake.calls == 8);
  CHECK(s.ran == 8);
  std::set<std::string> files;
  for (const auto& e : fs::directory_iterator(dir.path)) files.insert(e.path().filename().string());
  for (const auto& p : points) CHECK(files.count(p.file) == 1);
}

TEST_CASE("the child's error line is the last 'error:' line of its stderr", "[unit]") {
  CHECK(error_from_stderr("loading...\nerror: scenarios/x.yaml: cluster.gpus: 12 is not a multiple of 8\n",
                          "exit code 2") == "scenarios/x.yaml: cluster.gpus: 12 is not a multiple of 8");
  CHECK(error_from_stderr("", "killed by signal 9") == "killed by signal 9");
  CHECK(error_from_stderr("terminate called\n", "killed by signal 6") == "terminate called (killed by signal 6)");
}

TEST_CASE("a point runs as `fleetsim run` with the base and the point's overrides", "[unit]") {
  GridBase base{"selene-a100", {"run.duration=5d"}, 3, 7, ""};
  auto points = expand_grid({parse_axis("checkpoint.interval=10 min")}, false, base);
  auto args = run_arguments(base, points[0], "out/p.h5", 2);
  CHECK(args == std::vector<std::string>{"run", "selene-a100", "--set", "run.duration=5d", "--set",
                                         "checkpoint.interval=10 min", "--replications", "3", "--seed", "7",
                                         "--threads", "2", "-o", "out/p.h5"});
}

TEST_CASE("index CSV fields with commas or quotes are quoted", "[unit]") {
  CHECK(csv_field("plain") == "plain");
  CHECK(csv_field("a, b") == "\"a, b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_number(std::nullopt).empty());
  CHECK(csv_number(0.5) == "0.5");
}
