// A progress line on stderr for long work, only when stderr is a terminal (never in pipes or CI).
#pragma once

#include <chrono>
#include <mutex>
#include <string>

namespace fleetsim {

class Progress {
 public:
  Progress(std::string what, long long total);
  ~Progress();
  void advance(long long n = 1);  // thread-safe

 private:
  std::string what_;
  long long total_, done_ = 0;
  bool enabled_;
  std::mutex m_;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace fleetsim
