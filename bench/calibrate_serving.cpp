// Fits the serving model's calibration parameters on the calibration rows of the serving split
// (sim/serving/README.md, "Calibration split"), never on the judged rows:
//   1. engine.iteration_overhead in [0, 5 ms] and engine.layer_overhead in [0, 100 us] on the
//      TensorRT-LLM v0.17 perf-overview TP 1 rows: minimize the mean |log(predicted / published)|
//      of output tokens/s per GPU (coordinate-wise golden-section search, three rounds);
//   2. the online deployment's batch limit (engine.max_batch_size, powers of two 32-2048) on the
//      Llama 3.1 8B online rows: the saturation request rates (QPS = INF).
// Prints the values to paste into sim/config/serving_schema.cpp and serving_trtllm.cpp.
// Usage: build/calibrate_serving            (the fit)
//        build/calibrate_serving --residuals FILE  (writes the judged cases' residual table)
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>

#include "sim/reproduce/serving_trtllm.hpp"

namespace {

double objective(const std::vector<fleetsim::ValidationCase>& cases) {
  double s = 0;
  int n = 0;
  for (const auto& c : cases) {
    if (c.published <= 0) continue;
    s += std::fabs(std::log(c.predicted / c.published));
    ++n;
  }
  return n ? s / n : 0;
}

double golden(const std::function<double(double)>& f, double lo, double hi, int steps) {
  const double g = (std::sqrt(5.0) - 1) / 2;
  double a = lo, b = hi, c = b - g * (b - a), d = a + g * (b - a);
  double fc = f(c), fd = f(d);
  for (int i = 0; i < steps; ++i) {
    if (fc < fd) {
      b = d; d = c; fd = fc; c = b - g * (b - a); fc = f(c);
    } else {
      a = c; c = d; fc = fd; d = a + g * (b - a); fd = f(d);
    }
  }
  // The bounds themselves are candidates (a parameter may sit at its bound).
  double best = fc < fd ? c : d, fbest = std::min(fc, fd);
  for (double x : {lo, hi}) if (const double fx = f(x); fx < fbest) { best = x; fbest = fx; }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  using fleetsim::reproduce::serving_reproduction;
  if (argc == 3 && std::string(argv[1]) == "--residuals") {
    std::ofstream(argv[2]) << fleetsim::reproduce::serving_residuals_csv(serving_reproduction());
    return 0;
  }
  double it = 1.0e-3, layer = 20e-6;
  auto f = [&](double i, double l) { return objective(serving_reproduction(i, l, true).calibration); };
  for (int round = 0; round < 3; ++round) {
    it = golden([&](double x) { return f(x, layer); }, 0.0, 5e-3, 10);
    layer = golden([&](double x) { return f(it, x); }, 0.0, 100e-6, 10);
    std::printf("round %d: iteration_overhead %.4g ms, layer_overhead %.4g us, mean |log error| %.4f\n", round + 1, it * 1e3,
                layer * 1e6, f(it, layer));
  }
  int best_batch = 0;
  double best = 1e9;
  for (int b = 32; b <= 2048; b *= 2) {
    const auto set = serving_reproduction(it, layer, true, b, true);
    const double e = objective(set.online_calibration);
    std::printf("online max_batch_size %d: mean |log error| of the 8B saturation rates %.4f\n", b, e);
    if (e < best) { best = e; best_batch = b; }
  }
  std::printf("fitted: iteration_overhead %.4g ms, layer_overhead %.4g us, online max_batch_size %d\n", it * 1e3, layer * 1e6,
              best_batch);
  return 0;
}
