// The one writer of user-named files (sim/core/atomic_file.hpp, issue 40): a target that is not a
// regular file is refused naming the option, at the start and again at the rename (a FIFO made
// while the file was being written), and a failed write leaves no temporary behind. Real FIFOs
// and directories in a fresh folder; never a device.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "sim/core/atomic_file.hpp"
#include "sim/core/error.hpp"

namespace fs = std::filesystem;
using fleetsim::AtomicFile;
using fleetsim::ConfigError;
using fleetsim::write_file_atomically;

namespace {

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / (name + "." + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Names in `dir` other than the ones a test made: what a writer left behind.
int entries(const fs::path& dir) {
  int n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

}  // namespace

TEST_CASE("atomic writes replace a regular file and refuse a FIFO or a directory, leaving nothing behind", "[unit][files]") {
  const fs::path dir = fresh_dir("fleetsim_atomic");
  const fs::path file = dir / "out.csv", fifo = dir / "pipe.csv", folder = dir / "folder";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  fs::create_directories(folder);
  std::ofstream(file) << "old";

  write_file_atomically(file.string(), "--write-residuals", "the residual table", [](std::ostream& o) { o << "new"; });
  CHECK(read(file) == "new");
  CHECK(refusal([&] { write_file_atomically(fifo.string(), "--write-residuals", "the residual table", [](std::ostream& o) { o << "x"; }); }) ==
        "<command line>: --write-residuals: '" + fifo.string() + "' is not a regular file (a device, FIFO or socket); "
        "the residual table is written to a new or regular file");
  CHECK(refusal([&] { write_file_atomically(folder.string(), "-o", "the plan file", [](std::ostream& o) { o << "x"; }); }) ==
        "<command line>: -o: '" + folder.string() + "' is a directory; give a file name for the plan file");
  // A body that fails: the old file stays, no temporary.
  CHECK_THROWS_AS(write_file_atomically(file.string(), "-o", "x", [](std::ostream&) { throw std::runtime_error("disk"); }),
                  std::runtime_error);
  CHECK(read(file) == "new");
  CHECK(fs::is_fifo(fifo));
  CHECK(fs::is_empty(folder));
  CHECK(entries(dir) == 3);
  fs::remove_all(dir);
}

TEST_CASE("atomic writes check the target again at the rename: a FIFO or folder made meanwhile is never replaced", "[unit][files]") {
  const fs::path dir = fresh_dir("fleetsim_atomic_late");
  for (const bool as_fifo : {true, false}) {
    const fs::path target = dir / (as_fifo ? "late.h5" : "late_dir");
    AtomicFile f(target.string(), "-o", "the results file");  // nothing there yet: accepted
    std::ofstream(f.temporary()) << "results";
    if (as_fifo) REQUIRE(::mkfifo(target.c_str(), 0600) == 0);
    else fs::create_directories(target);
    const std::string why = refusal([&] { f.commit(); });
    CHECK(why.find("-o: '" + target.string() + (as_fifo ? "' is not a regular file" : "' is a directory")) != std::string::npos);
    CHECK_FALSE(fs::exists(f.temporary()));
    CHECK((as_fifo ? fs::is_fifo(target) : fs::is_directory(target)));
  }
  CHECK(entries(dir) == 2);
  fs::remove_all(dir);
}
