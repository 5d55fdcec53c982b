#include "sim/results/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace fleetsim {

Progress::Progress(std::string what, long long total)
    : what_(std::move(what)), total_(total), enabled_(isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()), last_(start_) {}

Progress::~Progress() {
  if (enabled_ && done_ > 0) std::fprintf(stderr, "\r\033[K");
}

void Progress::advance(long long n) {
  if (!enabled_) return;
  std::lock_guard lock(m_);
  done_ += n;
  auto now = std::chrono::steady_clock::now();
  if (now - last_ < std::chrono::milliseconds(100) && done_ < total_) return;
  last_ = now;
  double elapsed = std::chrono::duration<double>(now - start_).count();
  double eta = done_ > 0 ? elapsed * static_cast<double>(total_ - done_) / static_cast<double>(done_) : 0.0;
  std::fprintf(stderr, "\r%s: %lld/%lld (%.0f%%) elapsed %.1f s, eta %.1f s\033[K", what_.c_str(), done_, total_,
               100.0 * static_cast<double>(done_) / static_cast<double>(total_), elapsed, eta);
  std::fflush(stderr);
}

}  // namespace fleetsim
