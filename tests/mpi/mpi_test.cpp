// The MPI path end to end (issue 15): `mpirun --oversubscribe -n 3 fleetsim ...` against one
// process for a 12-point sweep, a 200-replication run and a search, and a sweep whose rank dies
// at a known point (the test-only FLEETSIM_TEST_KILL_AT_POINT) and is then resumed. Equality is byte for byte except where stated (host timings;
// the search's per-rank pruning counts, sim/mpi/search.hpp).
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "sim/mpi/world.hpp"
#include "tests/test_paths.hpp"

namespace fs = std::filesystem;

namespace {

using fleetsim::testing::Outcome;
using fleetsim::testing::run_shell;


std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// mpirun with 3 ranks on however many cores there are. Open MPI refuses root without these.
// Under scripts/test-sanitize, LeakSanitizer checks the ranks as well; Open MPI's own at-exit
// allocations are suppressed by library name (tests/sanitize/lsan.supp), which needs whole stacks:
// Open MPI unloads its components before the check and the fast unwinder stops in them. The slow
// unwinder costs only these few runs; other builds ignore ASAN_OPTIONS.
std::string mpirun() {
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  return "ASAN_OPTIONS=\"${ASAN_OPTIONS:-}:fast_unwind_on_malloc=0\" mpirun --oversubscribe --bind-to none -n 3 ";
}

// False (with a warning) when this build has no MPI: the commands then run in one process, as
// the single-process tests check. A build with MPI needs mpirun on PATH.
bool mpi_ready() {
  if (!fleetsim::mpi::available()) {
    WARN("built without MPI (FLEETSIM_MPI=OFF): the MPI tests do not apply");
    return false;
  }
  REQUIRE(run_shell("command -v mpirun >/dev/null 2>&1 && echo yes").out == "yes\n");
  return true;
}

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("fleetsim_mpi_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// 12 points, each a 54-day run of the default scenario; the output directory is given relative
// to the working directory so that sweep.json (which records the command) is the same too.
const std::string kSweep =
    "sweep --vary failures.rate_scale=0.5,1,2 --vary 'checkpoint.interval=10 min,20 min,30 min,60 min' "
    "--replications 40 -o out";

// The single-process sweep, the reference for the two sweep tests.
fs::path reference_sweep() {
  const fs::path d = fresh_dir("sweep_ref");
  const auto o = run_shell("cd " + d.string() + " && " + fleetsim::testing::fleetsim_binary() + " " + kSweep + " 2>&1");
  INFO(o.out);
  REQUIRE(o.code == 0);
  return d / "out";
}

// Every file of the two directories, byte for byte; prints the first difference.
void require_same_directory(const fs::path& a, const fs::path& b) {
  int files = 0;
  for (const auto& e : fs::directory_iterator(a)) {
    const fs::path other = b / e.path().filename();
    INFO("file " << e.path().filename().string());
    REQUIRE(fs::exists(other));
    CHECK(read(e.path()) == read(other));
    ++files;
  }
  int others = 0;
  for (const auto& e : fs::directory_iterator(b)) {
    INFO("only in " << b.string() << ": " << e.path().filename().string());
    CHECK(fs::exists(a / e.path().filename()));
    ++others;
  }
  CHECK(files == others);
  CHECK(files == 12 + 2);  // 12 results, index.csv, sweep.json
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

// Pids of the processes whose environment holds `marker` and `also` (from /proc).
std::vector<pid_t> processes_with(const std::string& marker, const std::string& also) {
  std::vector<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string env = read(e.path() / "environ");
    for (auto& c : env)
      if (c == '\0') c = '\n';
    env = "\n" + env;
    if (env.find("\n" + marker + "\n") != std::string::npos && (also.empty() || env.find("\n" + also + "\n") != std::string::npos))
      out.push_back(std::stoi(name));
  }
  return out;
}

}  // namespace

TEST_CASE("a sweep on 3 MPI ranks writes the same directory as one process, byte for byte", "[mpi]") {
  if (!mpi_ready()) return;
  const fs::path ref = reference_sweep();
  const fs::path d = fresh_dir("sweep3");
  const auto o = run_shell("cd " + d.string() + " && " + mpirun() + fleetsim::testing::fleetsim_binary() + " " + kSweep + " 2>&1");
  INFO(o.out);
  REQUIRE(o.code == 0);
  CHECK(o.out.find("on each of 3 ranks") != std::string::npos);
  CHECK(count(o.out, "] done ") == 12);
  require_same_directory(ref, d / "out");
  fs::remove_all(ref.parent_path());
  fs::remove_all(d);
}

// Issue 25: with replications auto each point's child run decides its own count (it is a plain
// process under mpirun: FLEETSIM_MPI_CHILD), so the ranks change nothing, intervals included.
TEST_CASE("a sweep with replications auto on 3 MPI ranks writes the same directory as one process", "[mpi]") {
  if (!mpi_ready()) return;
  const std::string sweep = "sweep --vary failures.rate_scale=0.5,1,2 --set run.duration=10d --replications auto "
                            "--precision 0.002 -o out 2>&1";
  const fs::path one = fresh_dir("auto1"), three = fresh_dir("auto3");
  const auto a = run_shell("cd " + one.string() + " && " + fleetsim::testing::fleetsim_binary() + " " + sweep);
  INFO(a.out);
  REQUIRE(a.code == 0);
  const auto b = run_shell("cd " + three.string() + " && " + mpirun() + fleetsim::testing::fleetsim_binary() + " " + sweep);
  INFO(b.out);
  REQUIRE(b.code == 0);
  CHECK(b.out.find("on each of 3 ranks") != std::string::npos);
  int files = 0;
  for (const auto& e : fs::directory_iterator(one / "out")) {
    INFO("file " << e.path().filename().string());
    CHECK(read(e.path()) == read(three / "out" / e.path().filename()));
    ++files;
  }
  CHECK(files == 3 + 2);
  const std::string index = read(one / "out" / "index.csv");
  CHECK(index.find(",replications,provenance_grade") != std::string::npos);
  fs::remove_all(one);
  fs::remove_all(three);
}

TEST_CASE("a run of 200 replications on 3 MPI ranks equals one process bit for bit", "[mpi]") {
  if (!mpi_ready()) return;
  const fs::path d = fresh_dir("run");
  const std::string args = " run --replications 200 --seed 3 --json -o ";
  const auto one = run_shell(fleetsim::testing::fleetsim_binary() + args + (d / "one.h5").string() + " 2>/dev/null");
  const auto three = run_shell(mpirun() + fleetsim::testing::fleetsim_binary() + args + (d / "three.h5").string() + " 2>/dev/null");
  REQUIRE(one.code == 0);
  REQUIRE(three.code == 0);
  // The results files are equal bytes; the JSON summaries too up to the host's wall time.
  CHECK(read(d / "one.h5") == read(d / "three.h5"));
  const auto host = [](const std::string& s) { return s.substr(0, s.find("\"host\"")); };
  REQUIRE(one.out.find("\"replications\": 200") != std::string::npos);
  CHECK(host(one.out) == host(three.out));
  fs::remove_all(d);
}

TEST_CASE("a search on 3 MPI ranks finds the same best layouts as one process", "[mpi]") {
  if (!mpi_ready()) return;
  const std::string args = " search --top 6 --json 2>/dev/null";
  const auto one = run_shell(fleetsim::testing::fleetsim_binary() + args);
  const auto three = run_shell(mpirun() + fleetsim::testing::fleetsim_binary() + args);
  REQUIRE(one.code == 0);
  REQUIRE(three.code == 0);
  // From the rejection counts to the notes: the baseline, the best layouts with their figures,
  // the explanation and the space. Before it, the timed and pruned counts are per-rank sums.
  const auto body = [](const std::string& s) {
    const size_t a = s.find("\"rejected\""), b = s.find("\"host\"");
    REQUIRE(a != std::string::npos);
    REQUIRE(b != std::string::npos);
    return s.substr(a, b - a);
  };
  CHECK(body(one.out) == body(three.out));
  REQUIRE(one.out.find("\"rank\": 6") != std::string::npos);
  for (const char* key : {"\"candidates_evaluated\"", "\"feasible\"", "\"dominated\""}) {
    const auto line = [&](const std::string& s) { return s.substr(s.find(key), s.find('\n', s.find(key)) - s.find(key)); };
    CHECK(line(one.out) == line(three.out));
  }
}

TEST_CASE("a sweep whose rank dies keeps its finished points and resumes to the same directory", "[mpi]") {
  if (!mpi_ready()) return;
  const fs::path ref = reference_sweep();
  const fs::path d = fresh_dir("kill");
  const std::string marker = "FLEETSIM_TEST_MPI_KILL=" + std::to_string(getpid());
  // The rank that is handed point 3 kills itself before starting it (FLEETSIM_TEST_KILL_AT_POINT,
  // sim/sweep/runner.hpp): a fault at a known point, not a kill after a sleep (which raced the
  // sweep: on a loaded machine 11 of 12 points could finish first). The dispatcher hands points
  // out in grid order, one per slot (3 ranks x 1 job), so point 3 goes to the first slot whose
  // point finished: at least one point is on disk and point 3 never is, whatever the timing.
  const std::string cmd = "cd " + d.string() + " && " + marker + " FLEETSIM_TEST_KILL_AT_POINT=3 " + mpirun() +
                          fleetsim::testing::fleetsim_binary() + " " + kSweep + " >log 2>&1";
  const int status = std::system(cmd.c_str());
  const auto finished = [&] {
    int n = 0;
    if (fs::exists(d / "out"))
      for (const auto& e : fs::directory_iterator(d / "out")) n += e.path().extension() == ".h5";
    return n;
  };
  const std::string log = read(d / "log");
  INFO(log);
  CHECK(status != 0);  // mpirun reports the dead rank
  CHECK(finished() >= 1);
  CHECK(finished() < 12);  // it died mid-sweep: point 3 was never run
  // Point processes of the other ranks may outlive mpirun by a moment (they die with their rank,
  // PR_SET_PDEATHSIG, and write their file atomically or not at all). This waits for that to have
  // happened, which it always does: the 60-s deadline only bounds a hang, it races nothing.
  for (int i = 0; i < 600 && !processes_with(marker, "").empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  REQUIRE(processes_with(marker, "").empty());
  const int on_disk = finished();

  const auto again = run_shell("cd " + d.string() + " && " + mpirun() + fleetsim::testing::fleetsim_binary() + " " + kSweep + " 2>&1");
  INFO(again.out);
  REQUIRE(again.code == 0);
  // Every point finished before is skipped, the others run: only points in flight were lost.
  CHECK(count(again.out, "] skipped ") == on_disk);
  CHECK(count(again.out, "] done ") == 12 - on_disk);
  require_same_directory(ref, d / "out");
  fs::remove_all(ref.parent_path());
  fs::remove_all(d);
}
