// Bootstrap of the fitted GPU parameters and its propagation to a step prediction
// (parameter_bootstrap.hpp).
#include "sim/uncertainty/parameter_bootstrap.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "sim/config/load.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/csv.hpp"
#include "sim/core/error.hpp"
#include "sim/core/paths.hpp"
#include "sim/run/rng.hpp"
#include "sim/step/step_model.hpp"
#include "sim/uncertainty/residuals.hpp"

namespace fleetsim::uncertainty {
namespace {

// FNV-1a of the family id: the resampling stream of each family is its own (sim/run/rng.hpp's
// (seed, index, component) streams), so adding a family leaves the others' draws unchanged.
std::uint64_t family_stream(const std::string& id) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : id) h = (h ^ c) * 1099511628211ULL;
  return h;
}

std::string number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

std::vector<double> split_numbers(const CsvTable& t, size_t row, const char* column) {
  std::vector<double> out;
  std::stringstream ss(t.at(row, column));
  std::string item;
  while (std::getline(ss, item, ' ')) {
    if (item.empty()) continue;
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (end == item.c_str() || *end != '\0' || !std::isfinite(v))
      throw ConfigError(t.path, column, "line " + std::to_string(t.row_lines[row]) + ": '" + item +
                                            "' is not a number (space-separated finite numbers expected)");
    out.push_back(v);
  }
  return out;
}

bool carries(const GpuSpec& g, const FittedParameter& p, double preset) {
  const double v = p.get(g);
  return preset != 0 && std::fabs(v - preset) <= 1e-9 * std::fabs(preset);
}

}  // namespace

std::vector<double> resample_weights(int rows, std::uint64_t seed, int b, const std::string& family) {
  run::Rng rng(seed, static_cast<std::uint64_t>(b), family_stream(family));
  std::vector<double> w(static_cast<size_t>(rows), 0.0);
  for (int i = 0; i < rows; ++i) {
    // Lemire's multiply-shift: an index uniform on [0, rows) from 64 random bits (bias < rows / 2^64).
    const auto idx = static_cast<size_t>((static_cast<unsigned __int128>(rng.next()) * static_cast<unsigned>(rows)) >> 64);
    w[idx] += 1;
  }
  return w;
}

ParameterDraws bootstrap_family(const CalibrationFamily& f, int draws, std::uint64_t seed) {
  ParameterDraws d;
  d.family = f.id;
  for (const auto& p : f.params) d.names.push_back(p.name);
  d.preset = f.preset();
  d.rows = static_cast<int>(f.rows.size());
  d.seed = seed;
  d.fit = fit_family(f, d.preset);
  d.calibration_error = calibration_error(f, d.fit);
  for (int b = 1; b <= draws; ++b) d.draws.push_back(fit_family(f, d.fit, resample_weights(d.rows, seed, b, f.id), true));
  return d;
}

std::string parameter_draws_file() { return home_dir() + "/sim/uncertainty/data/parameter_bootstrap.csv"; }

void write_parameter_draws(const std::string& path, const std::vector<ParameterDraws>& all) {
  write_file_atomically(path, "--bootstrap", "the parameter draws", [&](std::ostream& out) {
    out << "family,parameter,rows,seed,calibration_error,preset,fit,draws\n";
    for (const auto& d : all)
      for (size_t k = 0; k < d.names.size(); ++k) {
        out << d.family << ',' << d.names[k] << ',' << d.rows << ',' << d.seed << ',' << number(d.calibration_error)
            << ',' << number(d.preset[k]) << ',' << number(d.fit[k]) << ',';
        for (size_t b = 0; b < d.draws.size(); ++b) out << (b ? " " : "") << number(d.draws[b][k]);
        out << '\n';
      }
  });
}

std::vector<ParameterDraws> read_parameter_draws(const std::string& path) {
  const CsvTable t = read_csv(path);
  t.require_columns({"family", "parameter", "rows", "seed", "calibration_error", "preset", "fit", "draws"});
  std::vector<ParameterDraws> out;
  for (size_t i = 0; i < t.size(); ++i) {
    const std::string family = t.at(i, "family");
    if (out.empty() || out.back().family != family) {
      ParameterDraws d;
      d.family = family;
      d.rows = t.integer(i, "rows");
      d.seed = static_cast<std::uint64_t>(t.num(i, "seed"));
      d.calibration_error = t.num(i, "calibration_error");
      out.push_back(std::move(d));
    }
    ParameterDraws& d = out.back();
    const auto values = split_numbers(t, i, "draws");
    if (!d.names.empty() && values.size() != d.draws.size())
      throw ConfigError(path, "draws", "line " + std::to_string(t.row_lines[i]) + ": " + std::to_string(values.size()) +
                                           " draws, the family's first parameter has " + std::to_string(d.draws.size()));
    if (d.names.empty()) d.draws.assign(values.size(), {});
    for (size_t b = 0; b < values.size(); ++b) d.draws[b].push_back(values[b]);
    d.names.push_back(t.at(i, "parameter"));
    d.preset.push_back(t.num(i, "preset"));
    d.fit.push_back(t.num(i, "fit"));
    if (!(d.fit.back() > 0)) throw ConfigError(path, "fit", "line " + std::to_string(t.row_lines[i]) + ": must be > 0");
  }
  return out;
}

const std::vector<ParameterDraws>& shipped_parameter_draws() {
  static std::once_flag once;
  static std::vector<ParameterDraws> d;
  std::call_once(once, [] { d = read_parameter_draws(parameter_draws_file()); });
  return d;
}

std::pair<double, double> percentile_range(const ParameterDraws& d, size_t k, double level) {
  std::vector<double> v;
  for (const auto& b : d.draws) v.push_back(b[k]);
  if (v.empty()) return {d.fit[k], d.fit[k]};
  return {quantile(v, (1 - level) / 2), quantile(v, (1 + level) / 2)};
}

ParameterTerm parameter_term(const ClusterSpec& cluster, const WorkloadSpec& workload,
                             const std::vector<ParameterDraws>& all, double level) {
  ParameterTerm out;
  std::vector<const ParameterDraws*> applied;
  for (const auto& d : all) {
    bool all_carried = !d.draws.empty();
    for (size_t k = 0; k < d.names.size() && all_carried; ++k) {
      const FittedParameter p{d.names[k], 0, 0, false, ""};
      all_carried = carries(cluster.gpu, p, d.preset[k]);
    }
    if (!all_carried) continue;
    applied.push_back(&d);
    for (size_t k = 0; k < d.names.size(); ++k) {
      const auto [lo, hi] = percentile_range(d, k, level);
      const double scale = d.preset[k] / d.fit[k];
      out.parameters.push_back({d.family, d.names[k], d.preset[k], lo * scale, hi * scale, d.rows,
                                static_cast<int>(d.draws.size())});
    }
  }
  if (applied.empty()) return out;
  if (out.parameters.size() == 1) {
    // One parameter (an efficiency: the time never rises as it rises): the central range of the
    // time is the time at the two ends of the parameter's range (quantiles commute with a monotone
    // map), two evaluations instead of one per draw.
    const ParameterSpread& p = out.parameters.front();
    const FittedParameter f{p.name, 0, 0, false, ""};
    ClusterSpec lo = cluster, hi = cluster;
    f.set(lo.gpu, p.lo);
    f.set(hi.gpu, p.hi);
    out.half_width = 0.5 * std::fabs(std::log(evaluate_step(lo, workload).iteration_time.si() /
                                              evaluate_step(hi, workload).iteration_time.si()));
    return out;
  }
  const double t0 = evaluate_step(cluster, workload).iteration_time.si();
  size_t draws = 0;
  for (const auto* d : applied) draws = std::max(draws, d->draws.size());
  std::vector<double> log_ratio;
  for (size_t b = 0; b < draws; ++b) {
    ClusterSpec c = cluster;
    for (const auto* d : applied) {
      if (b >= d->draws.size()) continue;
      for (size_t k = 0; k < d->names.size(); ++k) {
        const FittedParameter p{d->names[k], 0, 0, false, ""};
        // The draw as a ratio to the full-sample fit, applied to the value the scenario carries.
        p.set(c.gpu, p.get(cluster.gpu) * d->draws[b][k] / d->fit[k]);
      }
    }
    log_ratio.push_back(std::log(evaluate_step(c, workload).iteration_time.si() / t0));
  }
  out.half_width = 0.5 * (quantile(log_ratio, (1 + level) / 2) - quantile(log_ratio, (1 - level) / 2));
  return out;
}

std::vector<double> case_parameter_half_widths(const std::vector<ValidationCase>& cases,
                                               const std::vector<ParameterDraws>& draws, double level) {
  std::vector<double> out;
  for (const auto& c : cases) {
    if (!is_judged_step_case(c)) continue;
    const Scenario s = config::load_scenario(c.scenario, c.overrides);
    out.push_back(parameter_term(s.cluster, s.workload, draws, level).half_width);
  }
  return out;
}

}  // namespace fleetsim::uncertainty
