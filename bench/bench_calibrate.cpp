// Speed of `fleetsim calibrate` (issue 37: a 5-row measurements CSV calibrates in under 10 s on 2
// cores): the DGX Cloud Llama 3.1 BF16 fixture (5 calibration + 12 judged rows, 200 bootstrap
// refits) five times, then vTrain's 1,549 rows once. Prints wall and process CPU time (the
// machine is shared: CPU time does not depend on the neighbours) and step evaluations per second.
//
//   bench_calibrate
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "sim/calibrate/fit.hpp"
#include "sim/calibrate/measurements.hpp"
#include "sim/config/load.hpp"

using namespace fleetsim;

namespace {
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

void one(const char* what, const std::string& csv, const std::string& base, int repeats) {
  std::vector<double> wall, cpu;
  long long evaluations = 0;
  for (int r = 0; r < repeats; ++r) {
    const double c0 = cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    const auto m = calibrate::read_measurements(csv, base);
    const auto c = calibrate::calibrate(m, calibrate::FitOptions{});
    wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    cpu.push_back(cpu_seconds() - c0);
    evaluations = c.evaluations + static_cast<long long>(m.rows.size());
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  const double mw = wall[wall.size() / 2], mc = cpu[cpu.size() / 2];
  std::printf("%s: median of %d: %.2f s wall, %.2f s CPU, %lld step evaluations (%.0f /s of CPU)\n", what, repeats, mw, mc,
              evaluations, evaluations / mc);
}
}  // namespace

int main() {
  const std::string dir = config::home_dir() + "/tests/data/calibrate/";
  one("calibrate, DGX Cloud BF16 (5 calibration rows, 12 judged, 200 bootstrap refits)", dir + "dgxc_h100_bf16.csv",
      dir + "dgxc-h100-base.yaml", 5);
  one("calibrate, vTrain A100 (1,440 calibration rows, 109 judged, 5-fold, linearized bootstrap)", dir + "vtrain_a100.csv",
      dir + "vtrain-a100-base.yaml", 1);
  return 0;
}
