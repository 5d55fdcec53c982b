// Monte-Carlo replications on threads. Each replication owns its random streams, derived from
// (seed, replication, component) (rng.hpp), and writes only its own slot, so the result does not
// depend on the thread count or on scheduling.
#include "sim/core/workers.hpp"
#include <algorithm>
#include <cstdio>
#include <atomic>
#include <mutex>
#include <thread>

#include "sim/core/error.hpp"
#include "sim/core/limits.hpp"
#include "sim/run/run_engine.hpp"
#include "sim/run/run_model.hpp"

namespace fleetsim {

namespace {

// The figures of a run that no replication changes.
RunResult summary_of(const run::Prepared& p) {
  RunResult result;
  result.mtti_hours = p.failures.mtti().si() / 3600.0;
  result.checkpoint_interval_s = p.plan.interval.si();
  result.checkpoint_stall_s = p.plan.stall.si();
  result.checkpoint_persist_s = p.plan.persist.si();
  result.restart_s = run::seconds_of(p.restart_full);
  result.straggler_slowdown = p.straggler_slowdown;
  result.iteration_time_s = p.iteration_time_s;
  result.per_node_lemons = p.failures.per_node;
  return result;
}

}  // namespace

RunResult summarize_run(const RunInputs& in) { return summary_of(run::prepare(in)); }

RunResult simulate_run(const RunInputs& in, int threads, ProgressFn progress, ReplicationShare share) {
  const run::Prepared p = run::prepare(in);
  RunResult result = summary_of(p);

  result.replications.resize(static_cast<size_t>(in.run.replications));
  std::vector<int> mine;  // the replications of this share, in order
  for (int i = share.part; i < in.run.replications; i += std::max(1, share.parts)) mine.push_back(i);
  const int n = static_cast<int>(mine.size());
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::max(1, std::min(threads, n));

  std::atomic<int> next{0};
  std::mutex progress_mutex;
  int done = 0;
  std::exception_ptr error;
  auto worker = [&] {
    try {
      for (int k = next++; k < n; k = next++) {
        const int i = mine[static_cast<size_t>(k)];
        result.replications[static_cast<size_t>(i)] = run::simulate_replication(p, in, i);
        if (progress) {
          std::lock_guard<std::mutex> lock(progress_mutex);
          progress(++done, n);
        }
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(progress_mutex);
      if (!error) error = std::current_exception();
      next = n;
    }
  };
  core::run_workers(threads, worker);
  if (error) std::rethrow_exception(error);
  // The lower bound fit the horizon (prepare), but failures and restarts may still push a
  // replication past it: say so rather than report a truncated run as done (issue 40).
  if (p.target_iterations > 0)
    for (const int i : mine) {
      const ReplicationResult& r = result.replications[static_cast<size_t>(i)];
      if (r.tokens_trained < in.train_tokens * (1.0 - 1e-9)) {
        char buf[320];
        std::snprintf(buf, sizeof buf, "workload.training.train_tokens: replication %d trained %.4g of the %.4g tokens "
                      "by the run model's horizon of %.0f d (%s): failures and restarts take it past; valid: fewer "
                      "tokens, or a design that fails less", i, r.tokens_trained, in.train_tokens,
                      limits::kMaxRunSeconds / 86400.0, limits::kMaxRunText);
        throw InfeasibleError(buf);
      }
    }
  return result;
}

}  // namespace fleetsim
