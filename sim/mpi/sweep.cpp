#include "sim/mpi/sweep.hpp"

#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "sim/mpi/world.hpp"

#if FLEETSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace fleetsim::mpi {

#if FLEETSIM_HAVE_MPI
namespace {

constexpr int kTagRequest = 151;  // worker -> 0: the result of a finished point (or none) + "next, please"
constexpr int kTagAssign = 152;   // 0 -> worker: a point index, or -1 to close the slot
// A rank waiting for a message polls with a sleep that doubles from 50 us to a cap and restarts at
// 50 us after any message (Open MPI's blocking receive would spin a core that the point processes
// need when ranks share cores). A worker polls only while it waits for a reply to a request it
// sent; while its points run it sleeps on a condition variable that a finishing point signals.
// The dispatcher cannot know when the next request comes, so its cap trades two losses (see
// DispatcherCap): a request waits cap/2 on average, and each idle poll costs CPU.
class Backoff {
 public:
  explicit Backoff(std::chrono::microseconds max) : max_(max) {}
  void reset() { wait_ = kMin; }
  void set_max(std::chrono::microseconds max) {
    max_ = std::max(kMin, max);
    wait_ = std::min(wait_, max_);
  }
  void sleep() {
    std::this_thread::sleep_for(wait_);
    grow();
  }
  std::chrono::microseconds wait_for() const { return wait_; }
  void grow() { wait_ = std::min(max_, wait_ * 2); }

 private:
  static constexpr std::chrono::microseconds kMin{50};
  std::chrono::microseconds max_;
  std::chrono::microseconds wait_ = kMin;
};

// A request: the point a slot finished (-1 when the slot is new), whether it succeeded, its
// seconds, its headline figures as the worker read them back from its results file (so rank 0
// need not open the file: sim/sweep/runner.hpp), then its error text. On the wire: point, ok,
// seconds, the number of figures (-1: none read), the figures (NaN for a missing one:
// read_headlines never returns a non-finite value), the error.
struct Request {
  long long point = -1;
  int ok = 0;
  double seconds = 0;
  std::optional<std::vector<std::optional<double>>> headlines;
  std::string error;
};

template <class T>
void put(std::vector<char>& b, const T& v) {
  const char* p = reinterpret_cast<const char*>(&v);
  b.insert(b.end(), p, p + sizeof v);
}

template <class T>
T take(const char*& p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  p += sizeof v;
  return v;
}

std::vector<char> pack(const Request& r) {
  std::vector<char> b;
  const int n = r.headlines ? static_cast<int>(r.headlines->size()) : -1;
  b.reserve(sizeof r.point + sizeof r.ok + sizeof r.seconds + sizeof n + sizeof(double) * std::max(0, n) +
            r.error.size());
  put(b, r.point);
  put(b, r.ok);
  put(b, r.seconds);
  put(b, n);
  for (int i = 0; i < n; ++i) put(b, (*r.headlines)[static_cast<size_t>(i)].value_or(std::nan("")));
  b.insert(b.end(), r.error.begin(), r.error.end());
  return b;
}

Request unpack(const std::vector<char>& b) {
  Request r;
  const char* p = b.data();
  r.point = take<long long>(p);
  r.ok = take<int>(p);
  r.seconds = take<double>(p);
  const int n = take<int>(p);
  if (n >= 0) {
    r.headlines.emplace();
    for (int i = 0; i < n; ++i) {
      const double v = take<double>(p);
      r.headlines->push_back(std::isfinite(v) ? std::optional<double>(v) : std::nullopt);
    }
  }
  r.error.assign(p, b.data() + b.size());
  return r;
}

// Receives one pending message with `tag` (from any rank) without blocking; false when none.
bool try_receive(int tag, int source, std::vector<char>& buf, int& from) {
  int flag = 0;
  MPI_Status st;
  MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, &st);
  if (!flag) return false;
  int count = 0;
  MPI_Get_count(&st, MPI_CHAR, &count);
  buf.resize(static_cast<size_t>(count));
  MPI_Recv(buf.data(), count, MPI_CHAR, st.MPI_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  from = st.MPI_SOURCE;
  return true;
}

// "points done / total, rate, ETA" on stderr, at most once a second and after the last point.
// Under mpirun or srun a rank's stderr is always a pipe to the launcher (which may well print to
// a terminal), so isatty cannot tell; the line is printed there as well, as it is useful in a
// batch job's log too.
class Rate {
 public:
  explicit Rate(size_t total) : total_(total), on_(isatty(STDERR_FILENO) == 1 || world().size > 1) {}
  void tick() {
    std::lock_guard lock(m_);
    ++done_;
    const auto now = std::chrono::steady_clock::now();
    if (!on_ || (now - last_ < std::chrono::seconds(1) && done_ < total_)) return;
    last_ = now;
    const double t = std::chrono::duration<double>(now - start_).count();
    const double rate = t > 0 ? static_cast<double>(done_) / t : 0.0;
    const double eta = rate > 0 ? static_cast<double>(total_ - done_) / rate : 0.0;
    std::fprintf(stderr, "sweep: %zu/%zu points, %.3g points/s, ETA %.0f s (%d ranks)\n", done_, total_, rate, eta,
                 world().size);
    std::fflush(stderr);
  }

 private:
  size_t total_, done_ = 0;
  bool on_;
  std::mutex m_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_ = start_;
};

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// The dispatcher's sleep cap. A request that arrives while the dispatcher sleeps at the cap waits
// cap/2 on average, so a worker loses the fraction cap / (2 T) of its time, T the mean wall time
// of a point; an idle poll (MPI_Iprobe, which runs Open MPI's progress engine, plus the sleep's
// wake-up) costs c seconds of CPU, so polling at the cap takes the fraction c / cap of a core
// that the points share. The sum is smallest at cap = sqrt(2 c T), where it is sqrt(2 c / T):
// for c = 40 us and T = 0.4 s, a cap of 5.7 ms and 1.4% in all. A fixed 1 ms cap cost 4% of a
// core on the 2-core development machine (measured: the polling main threads of two ranks at
// 8% and 4% CPU). c and T are measured as the sweep goes; the cap stays within [1 ms, 50 ms]
// and is 1 ms until the first point has finished.
class DispatcherCap {
 public:
  void point_finished(double seconds) {
    ++points_;
    point_seconds_ += seconds;
  }
  void idle_poll(double cpu_seconds) {
    ++polls_;
    poll_cpu_ += cpu_seconds;
  }
  std::chrono::microseconds cap() const {
    if (points_ == 0 || polls_ == 0) return kFloor;
    const double t = point_seconds_ / static_cast<double>(points_);
    const double c = poll_cpu_ / static_cast<double>(polls_);
    const auto us = std::chrono::microseconds(static_cast<long long>(1e6 * std::sqrt(2.0 * c * t)));
    return std::clamp(us, kFloor, kCeiling);
  }
  long long polls() const { return polls_; }
  double poll_cpu() const { return poll_cpu_; }

 private:
  static constexpr std::chrono::microseconds kFloor{1000}, kCeiling{50000};
  long long points_ = 0, polls_ = 0;
  double point_seconds_ = 0, poll_cpu_ = 0;
};

// What one message from another rank costs rank 0's main thread, from its receipt to the reply
// sent (recording the finished point, its log line, the index when due, the next assignment):
// the dispatcher's capacity is one over it. Wall and CPU time, as the machine may be shared.
struct DispatchCost {
  long long points = 0;
  double wall = 0, cpu = 0;
  void print() const {
    if (points == 0) return;
    std::fprintf(stderr,
                 "sweep: dispatcher (rank 0): %lld points from other ranks, %.0f us wall and %.0f us CPU per point: "
                 "it keeps up with about %.0f points/s\n",
                 points, 1e6 * wall / static_cast<double>(points), 1e6 * cpu / static_cast<double>(points),
                 static_cast<double>(points) / std::max(wall, 1e-9));
  }
};

}  // namespace

sweep::PointExecutor sweep_dispatcher(int jobs) {
  return [jobs](const std::vector<size_t>& todo, const std::function<sweep::PointOutcome(size_t)>& run_point,
                const std::function<void(size_t, const sweep::PointOutcome&, double)>& done) {
    const World w = world();
    Rate rate(todo.size());
    std::atomic<size_t> next{0};
    // Rank 0's own slots take points from the same counter as the other ranks' requests.
    std::vector<std::thread> local;
    for (int j = 0; j < std::max(1, jobs); ++j)
      local.emplace_back([&] {
        for (size_t k = next++; k < todo.size(); k = next++) {
          const auto start = std::chrono::steady_clock::now();
          sweep::PointOutcome r = run_point(todo[k]);
          done(todo[k], r, since(start));
          rate.tick();
        }
      });
    // Every other rank opens `jobs` slots (all ranks parse the same command line); a slot closes
    // when it is told -1, after it has reported its last point.
    const long long slots = static_cast<long long>(w.size - 1) * std::max(1, jobs);
    long long closed = 0;
    std::vector<char> buf;
    DispatcherCap cap;
    Backoff backoff(cap.cap());
    DispatchCost cost;
    while (closed < slots) {
      int from = 0;
      const double poll0 = thread_cpu_seconds();
      if (!try_receive(kTagRequest, MPI_ANY_SOURCE, buf, from)) {
        backoff.sleep();
        cap.idle_poll(thread_cpu_seconds() - poll0);
        continue;
      }
      const auto wall0 = std::chrono::steady_clock::now();
      const double cpu0 = thread_cpu_seconds();
      backoff.reset();
      const Request req = unpack(buf);
      if (req.point >= 0) {
        cap.point_finished(req.seconds);
        backoff.set_max(cap.cap());
        sweep::PointOutcome outcome;
        outcome.ok = req.ok != 0;
        outcome.error = req.error;
        outcome.headlines = req.headlines;
        done(static_cast<size_t>(req.point), outcome, req.seconds);
        rate.tick();
      }
      const size_t k = next++;
      long long assign = k < todo.size() ? static_cast<long long>(todo[k]) : -1;
      if (assign < 0) ++closed;
      MPI_Send(&assign, 1, MPI_LONG_LONG, from, kTagAssign, MPI_COMM_WORLD);
      if (req.point >= 0) {
        ++cost.points;
        cost.wall += since(wall0);
        cost.cpu += thread_cpu_seconds() - cpu0;
      }
    }
    for (auto& t : local) t.join();
    cost.print();
    if (cost.points > 0 && cap.polls() > 0)
      std::fprintf(stderr, "sweep: dispatcher (rank 0): %lld idle polls, %.0f us CPU each; sleep cap %.1f ms\n",
                   cap.polls(), 1e6 * cap.poll_cpu() / static_cast<double>(cap.polls()),
                   1e-3 * static_cast<double>(cap.cap().count()));
  };
}

int sweep_worker(const std::vector<sweep::Point>& points, const sweep::PointRunner& runner, const std::string& dir,
                 int jobs, int threads) {
  jobs = std::max(1, jobs);
  std::mutex m;
  std::condition_variable finished_cv;  // wakes the main thread as soon as a point finishes
  std::deque<Request> finished;  // filled by point threads, sent by the main thread (MPI_THREAD_FUNNELED)
  Backoff backoff(std::chrono::milliseconds(1));  // only while a reply is due (the dispatcher answers within its cap)
  int awaiting = 0;  // requests sent whose assignment has not arrived: only then is there MPI to poll
  std::vector<std::pair<long long, std::thread>> running;  // joined once their result is sent
  const auto hello = pack(Request{});
  for (int j = 0; j < jobs; ++j) {
    MPI_Send(hello.data(), static_cast<int>(hello.size()), MPI_CHAR, 0, kTagRequest, MPI_COMM_WORLD);
    ++awaiting;
  }
  int open = jobs, ran = 0;
  std::vector<char> buf;
  while (open > 0) {
    bool idle = true;
    int from = 0;
    if (awaiting > 0 && try_receive(kTagAssign, 0, buf, from)) {
      idle = false;
      --awaiting;
      long long i = -1;
      std::memcpy(&i, buf.data(), sizeof i);
      if (i < 0 || static_cast<size_t>(i) >= points.size()) {
        --open;
      } else {
        ++ran;
        running.emplace_back(i, std::thread([&, i] {
          const auto start = std::chrono::steady_clock::now();
          const sweep::Point& p = points[static_cast<size_t>(i)];
          const std::string path = (std::filesystem::path(dir) / p.file).string();
          sweep::PointOutcome r;
          try {
            r = runner(p, path, threads);
            // Read back here, as rank 0 would (same call, same error when the file is unreadable).
            if (r.ok) r.headlines = sweep::read_headlines(path);
          } catch (const std::exception& e) {
            r = {false, e.what()};
          }
          {
            std::lock_guard lock(m);
            finished.push_back({i, r.ok ? 1 : 0, since(start), std::move(r.headlines), r.error});
          }
          finished_cv.notify_one();
        }));
      }
    }
    for (;;) {
      Request req;
      {
        std::lock_guard lock(m);
        if (finished.empty()) break;
        req = std::move(finished.front());
        finished.pop_front();
      }
      idle = false;
      const auto b = pack(req);
      MPI_Send(b.data(), static_cast<int>(b.size()), MPI_CHAR, 0, kTagRequest, MPI_COMM_WORLD);
      ++awaiting;
      for (auto it = running.begin(); it != running.end(); ++it)
        if (it->first == req.point) {
          it->second.join();
          running.erase(it);
          break;
        }
    }
    if (idle && awaiting == 0) {  // every slot runs a point: nothing can arrive before one finishes
      std::unique_lock lock(m);
      finished_cv.wait(lock, [&] { return !finished.empty(); });
    } else if (idle) {  // a reply is due within the dispatcher's sleep cap
      std::unique_lock lock(m);
      finished_cv.wait_for(lock, backoff.wait_for(), [&] { return !finished.empty(); });
      backoff.grow();
    } else {
      backoff.reset();
    }
  }
  for (auto& [i, t] : running) t.join();
  return ran;
}

#else  // without MPI there are no other ranks: the dispatcher is never asked for, a worker never runs

sweep::PointExecutor sweep_dispatcher(int) { return {}; }
int sweep_worker(const std::vector<sweep::Point>&, const sweep::PointRunner&, const std::string&, int, int) {
  return 0;
}

#endif

}  // namespace fleetsim::mpi
