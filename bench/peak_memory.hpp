// Peak resident memory for the benchmark programs' printed figures.
#pragma once

#include <sys/resource.h>

namespace fleetsim::bench_util {

// RUSAGE_SELF for this process, RUSAGE_CHILDREN for reaped children (the SimGrid tier forks).
inline double peak_rss_mib(int who = RUSAGE_SELF) {
  rusage u{};
  getrusage(who, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // Linux reports KiB
}

}  // namespace fleetsim::bench_util
