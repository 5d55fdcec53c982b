#include "sim/mpi/sweep.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <mutex>
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
// Idle ranks poll with a sleep that doubles from 50 us to 5 ms and restarts at 50 us after any
// message: a reply expected soon arrives within ~0.1 ms, and a rank waiting on a long point
// wakes 200 times a second at most (negligible CPU next to the point processes).
class Backoff {
 public:
  void reset() { wait_ = kMin; }
  void sleep() {
    std::this_thread::sleep_for(wait_);
    grow();
  }
  std::chrono::microseconds wait_for() const { return wait_; }
  void grow() { wait_ = std::min(kMax, wait_ * 2); }

 private:
  static constexpr std::chrono::microseconds kMin{50}, kMax{5000};
  std::chrono::microseconds wait_ = kMin;
};

// A request: the point a slot finished (-1 when the slot is new), whether it succeeded, its
// seconds, then its error text.
struct Request {
  long long point = -1;
  int ok = 0;
  double seconds = 0;
  std::string error;
};

std::vector<char> pack(const Request& r) {
  std::vector<char> b(sizeof r.point + sizeof r.ok + sizeof r.seconds + r.error.size());
  char* p = b.data();
  std::memcpy(p, &r.point, sizeof r.point), p += sizeof r.point;
  std::memcpy(p, &r.ok, sizeof r.ok), p += sizeof r.ok;
  std::memcpy(p, &r.seconds, sizeof r.seconds), p += sizeof r.seconds;
  std::memcpy(p, r.error.data(), r.error.size());
  return b;
}

Request unpack(const std::vector<char>& b) {
  Request r;
  const char* p = b.data();
  std::memcpy(&r.point, p, sizeof r.point), p += sizeof r.point;
  std::memcpy(&r.ok, p, sizeof r.ok), p += sizeof r.ok;
  std::memcpy(&r.seconds, p, sizeof r.seconds), p += sizeof r.seconds;
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
    Backoff backoff;
    while (closed < slots) {
      int from = 0;
      if (!try_receive(kTagRequest, MPI_ANY_SOURCE, buf, from)) {
        backoff.sleep();
        continue;
      }
      backoff.reset();
      const Request req = unpack(buf);
      if (req.point >= 0) {
        done(static_cast<size_t>(req.point), {req.ok != 0, req.error}, req.seconds);
        rate.tick();
      }
      const size_t k = next++;
      long long assign = k < todo.size() ? static_cast<long long>(todo[k]) : -1;
      if (assign < 0) ++closed;
      MPI_Send(&assign, 1, MPI_LONG_LONG, from, kTagAssign, MPI_COMM_WORLD);
    }
    for (auto& t : local) t.join();
  };
}

int sweep_worker(const std::vector<sweep::Point>& points, const sweep::PointRunner& runner, const std::string& dir,
                 int jobs, int threads) {
  jobs = std::max(1, jobs);
  std::mutex m;
  std::condition_variable finished_cv;  // wakes the main thread as soon as a point finishes
  std::deque<Request> finished;  // filled by point threads, sent by the main thread (MPI_THREAD_FUNNELED)
  Backoff backoff;
  std::vector<std::pair<long long, std::thread>> running;  // joined once their result is sent
  const auto hello = pack(Request{});
  for (int j = 0; j < jobs; ++j)
    MPI_Send(hello.data(), static_cast<int>(hello.size()), MPI_CHAR, 0, kTagRequest, MPI_COMM_WORLD);
  int open = jobs, ran = 0;
  std::vector<char> buf;
  while (open > 0) {
    bool idle = true;
    int from = 0;
    if (try_receive(kTagAssign, 0, buf, from)) {
      idle = false;
      long long i = -1;
      std::memcpy(&i, buf.data(), sizeof i);
      if (i < 0 || static_cast<size_t>(i) >= points.size()) {
        --open;
      } else {
        ++ran;
        running.emplace_back(i, std::thread([&, i] {
          const auto start = std::chrono::steady_clock::now();
          const sweep::Point& p = points[static_cast<size_t>(i)];
          sweep::PointOutcome r;
          try {
            r = runner(p, (std::filesystem::path(dir) / p.file).string(), threads);
          } catch (const std::exception& e) {
            r = {false, e.what()};
          }
          {
            std::lock_guard lock(m);
            finished.push_back({i, r.ok ? 1 : 0, since(start), r.error});
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
      for (auto it = running.begin(); it != running.end(); ++it)
        if (it->first == req.point) {
          it->second.join();
          running.erase(it);
          break;
        }
    }
    if (idle) {
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
