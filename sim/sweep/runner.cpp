#include "sim/sweep/runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "sim/core/atomic_file.hpp"

extern char** environ;

namespace fleetsim::sweep {
namespace fs = std::filesystem;
namespace {

std::string one_line(std::string s) {
  for (auto& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// Removes temporary results files left by an interrupted sweep ("NAME.h5.tmp.PID").
void remove_stale_temporaries(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.find(".h5.tmp.") != std::string::npos || name.find(".stderr.tmp") != std::string::npos)
      fs::remove(e.path(), ec);
  }
}

// Starts `argv` with stdin and stdout on /dev/null and stderr into `err_path`; returns the pid, or
// -1 with `error` set (errno of the failed open, fork or exec). The child asks the kernel to kill
// it when the thread that started it dies (PR_SET_PDEATHSIG): a killed sweep must not leave its
// runs working and racing the rerun. That thread waits for the child, so it normally outlives it.
// Between fork and exec only async-signal-safe calls (the parent may have other threads).
pid_t spawn_child(const std::string& binary, std::vector<char*>& argv, const std::string& err_path, int& error) {
  const int in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const int out = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int report[2] = {-1, -1};  // the child writes its exec errno here; closed by a successful exec
  const bool ok = in >= 0 && out >= 0 && err >= 0 && ::pipe2(report, O_CLOEXEC) == 0;
  error = ok ? 0 : errno;
  const pid_t parent = ::getpid();
  const pid_t pid = ok ? ::fork() : -1;
  if (pid == 0) {
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(127);  // parent already gone
    ::dup2(in, STDIN_FILENO);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    ::execve(binary.c_str(), argv.data(), environ);
    const int e = errno;
    [[maybe_unused]] const auto n = ::write(report[1], &e, sizeof e);
    ::_exit(127);
  }
  if (ok && pid < 0) error = errno;
  for (int fd : {in, out, err, report[1]})
    if (fd >= 0) ::close(fd);
  if (pid > 0) {
    int e = 0;
    ssize_t n;
    while ((n = ::read(report[0], &e, sizeof e)) < 0 && errno == EINTR) {
    }
    if (n == static_cast<ssize_t>(sizeof e)) {  // exec failed: collect the child, report why
      int status = 0;
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      error = e;
      ::close(report[0]);
      return -1;
    }
  }
  if (report[0] >= 0) ::close(report[0]);
  return pid;
}

void write_index_file(const fs::path& dir, const std::vector<std::string>& keys, const std::vector<PointRow>& rows) {
  write_file_atomically((dir / "index.csv").string(), "-o", "the sweep's index",
                        [&](std::ostream& out) { write_index(out, keys, rows); });
}

}  // namespace

SweepSummary run_sweep(const std::vector<Point>& points, const PointRunner& runner, const SweepOptions& o) {
  const fs::path dir(o.dir);
  fs::create_directories(dir);
  remove_stale_temporaries(dir);

  SweepSummary summary;
  summary.total = static_cast<int>(points.size());
  summary.rows.resize(points.size());
  std::vector<size_t> todo;
  std::mutex m;  // guards summary, the log and index.csv
  int reported = 0;
  // One write per line: the log is stderr (unbuffered), where each << is a system call, and
  // under mpirun a pipe whose reader wakes for each (7 per point on the MPI dispatcher's path).
  auto log = [&](const std::string& line) {
    if (!o.log) return;
    std::string text = "[";
    text.append(std::to_string(++reported)).append("/").append(std::to_string(summary.total)).append("] ");
    text.append(line).append("\n");
    *o.log << text;
    o.log->flush();
  };

  for (size_t i = 0; i < points.size(); ++i) {
    PointRow& row = summary.rows[i];
    row.point = &points[i];
    const fs::path file = dir / points[i].file;
    if (fs::exists(file)) {
      try {
        row.values = read_headlines(file.string());
        row.status = "ok";
        ++summary.skipped;
        log("skipped " + points[i].label() + " (finished before: " + points[i].file + ")");
        continue;
      } catch (const std::exception& e) {
        // Not a readable results file (written by something else): run the point again.
        log("rerunning " + points[i].label() + ": " + one_line(e.what()));
      }
    }
    row.status = "pending";
    todo.push_back(i);
  }
  write_index_file(dir, o.keys, summary.rows);

  // index.csv is rewritten after a point at most once a second (and once at the end): at
  // thousands of points on hundreds of MPI ranks, rewriting megabytes after every point would
  // make rank 0 the bottleneck.
  auto last_index = std::chrono::steady_clock::now();
  auto run_point = [&](size_t i) -> PointOutcome {
    try {
      return runner(points[i], (dir / points[i].file).string(), o.threads_per_point);
    } catch (const std::exception& e) {
      return {false, e.what()};
    }
  };
  auto done = [&](size_t i, const PointOutcome& result, double secs) {
    const Point& p = points[i];
    PointOutcome outcome = result;
    std::vector<std::optional<double>> values;
    if (outcome.ok && outcome.headlines) {
      values = *outcome.headlines;
    } else if (outcome.ok) {
      try {
        values = read_headlines((dir / p.file).string());
      } catch (const std::exception& e) {
        outcome = {false, e.what()};
      }
    }
    std::lock_guard lock(m);
    PointRow& row = summary.rows[i];
    row.values = std::move(values);
    char took[32];
    std::snprintf(took, sizeof took, "%.1f s", secs);
    if (outcome.ok) {
      row.status = "ok";
      ++summary.ran;
      log("done " + p.label() + " (" + took + ")");
    } else {
      row.status = "failed";
      row.error = one_line(outcome.error.empty() ? "failed without a message" : outcome.error);
      ++summary.failed;
      log("FAILED " + p.label() + ": " + row.error);
    }
    const auto now = std::chrono::steady_clock::now();
    if (now - last_index >= std::chrono::seconds(1)) {
      write_index_file(dir, o.keys, summary.rows);
      last_index = now;
    }
  };
  if (o.execute) {
    o.execute(todo, run_point, done);
    write_index_file(dir, o.keys, summary.rows);
    return summary;
  }

  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (;;) {
      const size_t k = next.fetch_add(1);
      if (k >= todo.size()) return;
      const auto start = std::chrono::steady_clock::now();
      PointOutcome outcome = run_point(todo[k]);
      done(todo[k], outcome, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  };
  const int jobs = std::max(1, std::min<int>(o.jobs, static_cast<int>(todo.size())));
  if (jobs == 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (int j = 0; j < jobs; ++j) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  write_index_file(dir, o.keys, summary.rows);
  return summary;
}

std::vector<std::string> run_arguments(const GridBase& base, const Point& point, const std::string& output_path,
                                       int threads) {
  std::vector<std::string> args = {"run"};
  if (!base.scenario.empty()) args.push_back(base.scenario);
  for (const auto& s : base.sets) args.insert(args.end(), {"--set", s});
  for (const auto& s : point.sets()) args.insert(args.end(), {"--set", s});
  if (base.replications > 0) args.insert(args.end(), {"--replications", std::to_string(base.replications)});
  if (base.seed >= 0) args.insert(args.end(), {"--seed", std::to_string(base.seed)});
  if (!base.level.empty()) args.insert(args.end(), {"--level", base.level});
  args.insert(args.end(), {"--threads", std::to_string(std::max(1, threads)), "-o", output_path});
  return args;
}

std::string error_from_stderr(const std::string& text, const std::string& status_note) {
  std::istringstream in(text);
  std::string line, last, last_error;
  while (std::getline(in, line)) {
    // Progress lines use carriage returns; keep what follows the last one.
    if (auto cr = line.rfind('\r'); cr != std::string::npos) line = line.substr(cr + 1);
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    last = line;
    if (line.rfind("error: ", 0) == 0) last_error = line.substr(7);
    else if (line.rfind("internal error: ", 0) == 0) last_error = line;
  }
  if (!last_error.empty()) return one_line(last_error);
  if (!last.empty()) return one_line(last) + " (" + status_note + ")";
  return status_note;
}

long long test_kill_at_point() {
  const char* v = std::getenv("FLEETSIM_TEST_KILL_AT_POINT");
  if (!v || !*v) return -1;
  char* end = nullptr;
  const long long k = std::strtoll(v, &end, 10);
  return *end == '\0' && k >= 0 ? k : -1;
}

PointRunner process_runner(std::string binary, GridBase base) {
  return [binary = std::move(binary), base = std::move(base), kill_at = test_kill_at_point()](
             const Point& p, const std::string& output, int threads) -> PointOutcome {
    if (kill_at >= 0 && p.index == kill_at) ::raise(SIGKILL);  // test-only (runner.hpp)
    std::vector<std::string> args = run_arguments(base, p, output, threads);
    args.insert(args.begin(), binary);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    const std::string err_path = output + ".stderr.tmp";
    int rc = 0;
    const pid_t pid = spawn_child(binary, argv, err_path, rc);
    if (pid < 0) {
      std::error_code ec;
      fs::remove(err_path, ec);
      return {false, "cannot start '" + binary + "': " + std::strerror(rc)};
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    std::string text;
    {
      std::ifstream in(err_path);
      std::stringstream ss;
      ss << in.rdbuf();
      text = ss.str();
    }
    std::error_code ec;
    fs::remove(err_path, ec);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      if (!fs::exists(output)) return {false, "the run finished but wrote no results file"};
      return {true, ""};
    }
    std::string note = WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                           : "exit code " + std::to_string(WEXITSTATUS(status));
    return {false, error_from_stderr(text, note)};
  };
}

}  // namespace fleetsim::sweep
