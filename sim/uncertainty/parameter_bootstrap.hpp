// Parameter uncertainty of the step model's fitted GPU values (sim/uncertainty/README.md,
// "Parameter uncertainty"): a nonparametric bootstrap over each family's calibration rows
// (Efron & Tibshirani, "An Introduction to the Bootstrap", 1993, ch. 6 and 9: resample the rows
// with replacement, refit, repeat B times), and its propagation to a step prediction by
// re-evaluating the step model at every draw.
//
// The draws are precomputed (the A100 refit over 1,440 rows takes minutes) into the shipped table
// sim/uncertainty/data/parameter_bootstrap.csv by `scripts/calibrate --bootstrap`, so
// `fleetsim step` only re-evaluates; tests/validation/uncertainty_parameters_test.cpp fails,
// naming that command, when the table no longer matches the rows, the presets or the step model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/reproduce/case.hpp"
#include "sim/scenario.hpp"
#include "sim/uncertainty/parameter_fit.hpp"
#include "sim/uncertainty/step_interval.hpp"

namespace fleetsim::uncertainty {

// B: Efron & Tibshirani (1993, §6.4) find 50-200 resamples enough for a standard error; percentile
// endpoints want more (about 1,000, ch. 19), so the 10% / 90% ends carry some Monte-Carlo noise.
// The A100 refit's cost (about 1 s of CPU a draw) sets B.
inline constexpr int kBootstrapDraws = 200;
inline constexpr std::uint64_t kBootstrapSeed = 25;  // the shipped table's seed (issue 25)

// One family's bootstrap: the fit on all rows and B refits on resampled rows.
struct ParameterDraws {
  std::string family;
  std::vector<std::string> names;   // the family's parameters, in its order
  std::vector<double> preset;       // the catalog's values (what scenarios inherit)
  std::vector<double> fit;          // refit on all rows (the bootstrap's centre)
  std::vector<std::vector<double>> draws;  // [b][k]: refit b's value of parameter k
  int rows = 0;
  std::uint64_t seed = 0;
  double calibration_error = 0;     // mean |relative error| of all rows at `fit` (staleness check)
};

// Row multiplicities of resample b (n draws with replacement from n rows; xoshiro256** stream
// (seed, b, family), sim/run/rng.hpp): what the refit weights each row by.
[[nodiscard]] std::vector<double> resample_weights(int rows, std::uint64_t seed, int b, const std::string& family);
// Fit on all rows from the preset, then `draws` refits on resamples, each started from that fit.
[[nodiscard]] ParameterDraws bootstrap_family(const CalibrationFamily& f, int draws, std::uint64_t seed);

// The shipped table: <home>/sim/uncertainty/data/parameter_bootstrap.csv.
[[nodiscard]] std::string parameter_draws_file();
// Atomic write (temporary file renamed over the target); read with a ConfigError naming the file
// and column when missing or corrupt; the shipped table is cached per process.
void write_parameter_draws(const std::string& path, const std::vector<ParameterDraws>& d);
[[nodiscard]] std::vector<ParameterDraws> read_parameter_draws(const std::string& path);
[[nodiscard]] const std::vector<ParameterDraws>& shipped_parameter_draws();

// Central `level` range of one parameter's draws (percentile interval, Efron & Tibshirani ch. 13).
[[nodiscard]] std::pair<double, double> percentile_range(const ParameterDraws& d, size_t k, double level);

// The parameter term of a step prediction: the families whose every parameter the scenario's GPU
// carries at the preset value (a GPU that inherits the fit: H200 and H800 carry H100's FP8 fit,
// GB200 and B300 B200's); each draw applied as the ratio draw / fit to the scenario's value; the
// step model re-evaluated at each draw; half-width = half the central `level` range of
// log(T_draw / T). No family applies: zero, and no evaluation. One parameter applies (every FP8
// family): the time at the two ends of its range, exact for a time monotone in it (two
// evaluations, not B).
struct ParameterTerm {
  double half_width = 0;                  // log(T)
  std::vector<ParameterSpread> parameters;  // the applied parameters with their ranges
};
[[nodiscard]] ParameterTerm parameter_term(const ClusterSpec& cluster, const WorkloadSpec& workload,
                                           const std::vector<ParameterDraws>& draws, double level);

// The parameter half-width (log T) of every judged step case among `cases`, in the order of
// step_residuals(cases): each case's scenario loaded as its residual's is and parameter_term
// evaluated on it. For the coverage of the intervals with the parameter term (coverage.hpp).
[[nodiscard]] std::vector<double> case_parameter_half_widths(const std::vector<ValidationCase>& cases,
                                                             const std::vector<ParameterDraws>& draws, double level);

}  // namespace fleetsim::uncertainty
