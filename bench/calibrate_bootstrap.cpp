// Bootstrap of the step model's fitted GPU parameters (sim/uncertainty/README.md, "Parameter
// uncertainty"): for each calibration family (sim/uncertainty/parameter_fit.hpp), the fit on all
// its calibration rows and B refits on rows resampled with replacement (Efron & Tibshirani 1993),
// written to the table `fleetsim step` and `run` read (sim/uncertainty/data/parameter_bootstrap.csv)
// and summarized per parameter. Run through `scripts/calibrate --bootstrap`.
//   calibrate_bootstrap [--draws B] [--seed S] [--family ID]... [-o FILE]
// Defaults: B = 200, seed 25, every family, the shipped table.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "sim/uncertainty/parameter_bootstrap.hpp"

using namespace fleetsim;
using namespace fleetsim::uncertainty;

int main(int argc, char** argv) {
  try {
    int draws = kBootstrapDraws;
    std::uint64_t seed = kBootstrapSeed;
    std::vector<std::string> only;
    std::string out = parameter_draws_file();
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--bootstrap") continue;  // scripts/calibrate passes its own flag through
      if (a == "--draws" && i + 1 < argc) draws = std::atoi(argv[++i]);
      else if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10);
      else if (a == "--family" && i + 1 < argc) only.push_back(argv[++i]);
      else if (a == "-o" && i + 1 < argc) out = argv[++i];
      else {
        std::fprintf(stderr, "calibrate_bootstrap: unknown argument '%s' (use --draws B, --seed S, --family ID, -o FILE)\n",
                     a.c_str());
        return 2;
      }
    }
    if (draws < 2 || draws > 100000) {
      std::fprintf(stderr, "calibrate_bootstrap: --draws must be 2..100000, got %d\n", draws);
      return 2;
    }
    std::vector<CalibrationFamily> families;
    if (only.empty()) families = calibration_families();
    for (const auto& id : only) families.push_back(calibration_family(id));
    std::vector<ParameterDraws> all;
    for (const auto& f : families) {
      const auto t0 = std::chrono::steady_clock::now();
      all.push_back(bootstrap_family(f, draws, seed));
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const ParameterDraws& d = all.back();
      std::printf("%s: %d calibration rows (%s), fitted by %s; %d resamples, seed %llu, %.1f s\n", f.id.c_str(), d.rows,
                  f.rows_what.c_str(), f.calibrator.c_str(), draws, static_cast<unsigned long long>(seed), s);
      std::printf("  calibration MAPE at the all-rows fit %.2f%%\n", 100 * d.calibration_error);
      for (size_t k = 0; k < d.names.size(); ++k) {
        const auto [lo80, hi80] = percentile_range(d, k, 0.8);
        const auto [lo95, hi95] = percentile_range(d, k, 0.95);
        std::printf("  %-26s preset %.4g  fit %.4g  80%% [%.4g, %.4g]  95%% [%.4g, %.4g]  bound [%.4g, %.4g]\n",
                    d.names[k].c_str(), d.preset[k], d.fit[k], lo80, hi80, lo95, hi95, f.params[k].lo, f.params[k].hi);
      }
      std::fflush(stdout);
    }
    write_parameter_draws(out, all);
    std::printf("written to %s\n", out.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "calibrate_bootstrap: %s\n", e.what());
    return 2;
  }
}
