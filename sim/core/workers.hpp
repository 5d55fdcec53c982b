// Runs one worker function on `threads` threads (inline when 1) and waits for them all. The
// callers hand out work through their own atomic counter, so the result never depends on the
// thread count (the project's determinism rule); this header only owns the start-and-join.
#pragma once

#include <thread>
#include <vector>

namespace fleetsim::core {

template <class Worker>
void run_workers(int threads, Worker&& worker) {
  if (threads <= 1) {
    worker();
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
}

}  // namespace fleetsim::core
