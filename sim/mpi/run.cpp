#include "sim/mpi/run.hpp"

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/mpi/world.hpp"

#if FLEETSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace fleetsim::mpi {

#if FLEETSIM_HAVE_MPI
namespace {

// A field added to ReplicationResult must be added to put()/get() below as well, or the ranks
// would silently drop it; this fails the build until it is (x86-64 layout).
static_assert(sizeof(ReplicationResult) == 256, "ReplicationResult changed: serialize the new field in sim/mpi/run.cpp");

// Bytes of plain values, copied as they are (the same bits on every rank of one machine type).
class Writer {
 public:
  template <class T>
  void put(const T& v) {
    const char* p = reinterpret_cast<const char*>(&v);
    bytes.insert(bytes.end(), p, p + sizeof v);
  }
  void put(const std::string& s) {
    put(static_cast<unsigned long long>(s.size()));
    bytes.insert(bytes.end(), s.begin(), s.end());
  }
  std::vector<char> bytes;
};

class Reader {
 public:
  Reader(const char* p, const char* end) : p_(p), end_(end) {}
  template <class T>
  void get(T& v) {
    need(sizeof v);
    std::memcpy(&v, p_, sizeof v);
    p_ += sizeof v;
  }
  void get(std::string& s) {
    unsigned long long n = 0;
    get(n);
    need(n);
    s.assign(p_, p_ + n);
    p_ += n;
  }

 private:
  void need(size_t n) {
    if (static_cast<size_t>(end_ - p_) < n) throw std::runtime_error("MPI: truncated replication message");
  }
  const char* p_;
  const char* end_;
};

void put(Writer& w, const ReplicationResult& r) {
  w.put(r.ettr), w.put(r.wall_clock_days), w.put(r.tokens_trained);
  w.put(r.unexpected), w.put(r.planned), w.put(r.fail_slow), w.put(r.lemon_failures);
  w.put(r.lemon_nodes_start), w.put(r.lemon_nodes_end), w.put(r.retired_nodes), w.put(r.retired_lemon_nodes);
  w.put(r.retirement_gpu_hours);
  w.put(static_cast<unsigned long long>(r.by_cause.size()));
  for (const auto& [k, v] : r.by_cause) w.put(k), w.put(v);
  w.put(static_cast<unsigned long long>(r.lost_hours.size()));
  for (const auto& [k, v] : r.lost_hours) w.put(k), w.put(v);
  w.put(r.productive_hours), w.put(r.compute_hours), w.put(r.stalled_hours), w.put(r.slow_hours);
  w.put(r.fail_slow_lost_hours), w.put(r.fail_slow_outage_hours);
  w.put(static_cast<unsigned long long>(r.events.size()));
  for (const auto& e : r.events) w.put(e.time.si()), w.put(static_cast<int>(e.kind)), w.put(e.cause), w.put(e.duration.si());
  w.put(static_cast<unsigned long long>(r.timeline.size()));
  for (const auto& t : r.timeline) w.put(t.start.si()), w.put(t.end.si()), w.put(t.state), w.put(t.cause);
}

void get(Reader& in, ReplicationResult& r) {
  in.get(r.ettr), in.get(r.wall_clock_days), in.get(r.tokens_trained);
  in.get(r.unexpected), in.get(r.planned), in.get(r.fail_slow), in.get(r.lemon_failures);
  in.get(r.lemon_nodes_start), in.get(r.lemon_nodes_end), in.get(r.retired_nodes), in.get(r.retired_lemon_nodes);
  in.get(r.retirement_gpu_hours);
  unsigned long long n = 0;
  in.get(n);
  for (unsigned long long i = 0; i < n; ++i) {
    std::string k;
    int v = 0;
    in.get(k), in.get(v);
    r.by_cause[k] = v;
  }
  in.get(n);
  for (unsigned long long i = 0; i < n; ++i) {
    std::string k;
    double v = 0;
    in.get(k), in.get(v);
    r.lost_hours[k] = v;
  }
  in.get(r.productive_hours), in.get(r.compute_hours), in.get(r.stalled_hours), in.get(r.slow_hours);
  in.get(r.fail_slow_lost_hours), in.get(r.fail_slow_outage_hours);
  in.get(n);
  r.events.resize(n);
  for (auto& e : r.events) {
    double t = 0, d = 0;
    int kind = 0;
    in.get(t), in.get(kind), in.get(e.cause), in.get(d);
    e.time = Seconds(t);
    e.kind = static_cast<EventKind>(kind);
    e.duration = Seconds(d);
  }
  in.get(n);
  r.timeline.resize(n);
  for (auto& t : r.timeline) {
    double a = 0, b = 0;
    in.get(a), in.get(b), in.get(t.state), in.get(t.cause);
    t.start = Seconds(a);
    t.end = Seconds(b);
  }
}

}  // namespace

bool gather_replications(RunResult& result) {
  const World w = world();
  if (w.size <= 1) return true;
  const int n = static_cast<int>(result.replications.size());
  Writer out;
  for (int i = w.rank; i < n; i += w.size) put(out, result.replications[static_cast<size_t>(i)]);
  int mine = static_cast<int>(out.bytes.size());
  std::vector<int> counts(static_cast<size_t>(w.size)), displs(static_cast<size_t>(w.size));
  MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<char> all;
  if (w.root()) {
    long long total = 0;
    for (int q = 0; q < w.size; ++q) {
      displs[static_cast<size_t>(q)] = static_cast<int>(total);
      total += counts[static_cast<size_t>(q)];
    }
    if (total > 2'000'000'000LL) throw std::runtime_error("MPI: replication results exceed 2 GB; use fewer replications");
    all.resize(static_cast<size_t>(total));
  }
  MPI_Gatherv(out.bytes.data(), mine, MPI_CHAR, all.data(), counts.data(), displs.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  if (!w.root()) return false;
  for (int q = 1; q < w.size; ++q) {
    const char* p = all.data() + displs[static_cast<size_t>(q)];
    Reader in(p, p + counts[static_cast<size_t>(q)]);
    for (int i = q; i < n; i += w.size) {
      ReplicationResult r;
      get(in, r);
      result.replications[static_cast<size_t>(i)] = std::move(r);
    }
  }
  return true;
}

#else

bool gather_replications(RunResult&) { return true; }

#endif

}  // namespace fleetsim::mpi
