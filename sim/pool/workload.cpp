#include "sim/pool/workload.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/run/rng.hpp"

namespace fleetsim::pool {
namespace {

// A trace cell as a number for a message (%g: a value beyond long long must not be cast).
std::string t_cell(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

constexpr double kDay = 86400.0;
constexpr double kPi = 3.141592653589793;

// Stream ids of the pool's random draws (independent of the run model's, sim/run/rng.hpp).
constexpr std::uint64_t kTrainingStream = 1001, kDevStream = 1002;

// Daily cycle with mean 1 whose peak/trough ratio is R: 1 + b cos(2 pi (h - peak) / 24),
// b = (R - 1) / (R + 1).
double diurnal(double t, double ratio, double peak_hour) {
  const double b = (ratio - 1.0) / (ratio + 1.0);
  const double h = std::fmod(t, kDay) / 3600.0;
  return 1.0 + b * std::cos(2.0 * kPi * (h - peak_hour) / 24.0);
}

int round_to_nodes(int gpus, int gpus_per_node) {
  if (gpus <= gpus_per_node) return gpus;
  return ((gpus + gpus_per_node - 1) / gpus_per_node) * gpus_per_node;
}

std::vector<JobSpec> read_trace(const TrainingStream& t, int gpus_per_node, int pool_gpus, double horizon,
                                const std::string& file) {
  const std::string key = "pool.training.trace";
  std::ifstream in(t.trace);
  if (!in) throw ConfigError(file, key, "cannot open '" + t.trace + "'");
  std::string line;
  std::getline(in, line);
  if (line.find("submit_s") == std::string::npos || line.find("gpus") == std::string::npos ||
      line.find("duration_s") == std::string::npos)
    throw ConfigError(t.trace, key, "the header must be submit_s,gpus,duration_s[,priority], got '" + line + "'", 1);
  std::vector<JobSpec> jobs;
  int row = 1;
  while (std::getline(in, line)) {
    ++row;
    if (line.empty()) continue;
    std::stringstream ss(line);
    std::string cell;
    std::vector<double> v;
    while (std::getline(ss, cell, ',')) {
      char* end = nullptr;
      const double x = std::strtod(cell.c_str(), &end);
      if (cell.empty() || *end != '\0' || !std::isfinite(x))
        throw ConfigError(t.trace, key, "row " + std::to_string(row) + ": '" + cell + "' is not a number", row);
      v.push_back(x);
    }
    if (v.size() < 3)
      throw ConfigError(t.trace, key, "row " + std::to_string(row) + " has " + std::to_string(v.size()) +
                                          " columns; need submit_s,gpus,duration_s", row);
    if (v[0] < 0 || v[1] < 1 || v[2] <= 0)
      throw ConfigError(t.trace, key, "row " + std::to_string(row) +
                                          ": submit_s must be >= 0, gpus >= 1 and duration_s > 0", row);
    if (v[1] > pool_gpus)
      throw ConfigError(t.trace, key, "row " + std::to_string(row) + ": a job of " + t_cell(v[1]) +
                                          " GPUs is larger than the pool's " + std::to_string(pool_gpus) + " schedulable GPUs", row);
    if (v[0] >= horizon) continue;
    JobSpec j;
    j.submit = v[0];
    j.gpus = round_to_nodes(static_cast<int>(v[1]), gpus_per_node);
    j.duration = v[2];
    j.priority = v.size() > 3 && v[3] > 0 ? 1 : 0;
    jobs.push_back(j);
  }
  if (jobs.empty()) throw ConfigError(t.trace, key, "holds no job submitted within pool.duration");
  return jobs;
}

}  // namespace

const char* class_key(JobClass c) {
  switch (c) {
    case JobClass::Training: return "training";
    case JobClass::Development: return "development";
    case JobClass::Inference: return "inference";
  }
  return "?";
}

std::vector<JobSpec> generate_jobs(const PoolSpec& spec, int gpus_per_node, int pool_gpus, double horizon,
                                   std::uint64_t seed, int replication, const std::string& file) {
  std::vector<JobSpec> jobs;
  const TrainingStream& t = spec.training;
  if (!t.trace.empty()) {
    jobs = read_trace(t, gpus_per_node, pool_gpus, horizon, file);
  } else if (t.arrival_rate > 0) {
    // Non-homogeneous Poisson arrivals by thinning (Lewis & Shedler 1979).
    run::Rng rng(seed, static_cast<std::uint64_t>(replication), kTrainingStream);
    const double b = (t.diurnal_peak_to_trough - 1.0) / (t.diurnal_peak_to_trough + 1.0);
    const double rate_max = t.arrival_rate * (1.0 + b);
    jobs.reserve(static_cast<size_t>(t.arrival_rate * horizon * 1.05) + 16);
    // Joint size / run-time classes: cumulative shares for an inverse-CDF draw of the class.
    std::vector<double> cum;
    for (const auto& c : t.size_classes) cum.push_back((cum.empty() ? 0.0 : cum.back()) + c.share);
    for (double now = rng.exponential(1.0 / rate_max); now < horizon; now += rng.exponential(1.0 / rate_max)) {
      const double u = rng.uniform();
      const double z = rng.normal(), zd = rng.normal(), up = rng.uniform(), ue = rng.uniform();
      if (u * (1.0 + b) > diurnal(now, t.diurnal_peak_to_trough, t.peak_hour)) continue;
      JobSpec j;
      j.submit = now;
      if (!cum.empty()) {
        // The class from z (uniform via the normal CDF), its run time from zd.
        const double uc = 0.5 * std::erfc(-z / std::sqrt(2.0)) * cum.back();
        const size_t k = std::min(cum.size() - 1, static_cast<size_t>(std::upper_bound(cum.begin(), cum.end(), uc) - cum.begin()));
        const SizeClass& c = t.size_classes[k];
        j.gpus = round_to_nodes(c.gpus, gpus_per_node);
        j.duration = std::min(t.max_duration_s, c.duration_median_s * std::exp(c.duration_sigma * zd));
      } else {
        const double log2g = std::log2(t.size_median_gpus) + t.size_sigma_log2 * z;
        const int g = static_cast<int>(std::lround(std::exp2(std::round(std::max(0.0, log2g)))));
        j.gpus = round_to_nodes(std::clamp(g, 1, t.max_gpus), gpus_per_node);
        j.duration = std::min(t.max_duration_s, t.duration_median_s * std::exp(t.duration_sigma * zd));
      }
      j.priority = up < t.high_priority_share ? 1 : 0;
      j.elastic = ue < t.elastic_share && j.gpus > 1;
      jobs.push_back(j);
    }
  }
  const DevStream& d = spec.dev;
  if (d.arrival_rate > 0) {
    run::Rng rng(seed, static_cast<std::uint64_t>(replication), kDevStream);
    for (double now = rng.exponential(1.0 / d.arrival_rate); now < horizon; now += rng.exponential(1.0 / d.arrival_rate)) {
      JobSpec j;
      j.submit = now;
      j.cls = JobClass::Development;
      j.duration = d.duration_median_s * std::exp(d.duration_sigma * rng.normal());
      if (d.gpu_fraction < 1.0) {
        j.gpus = 1;
        j.eighths = static_cast<std::uint8_t>(std::clamp(static_cast<int>(std::ceil(d.gpu_fraction * 8 - 1e-9)), 1, 8));
        if (j.eighths == 8) j.eighths = 0;
      } else {
        j.gpus = round_to_nodes(static_cast<int>(std::lround(d.gpu_fraction)), gpus_per_node);
      }
      jobs.push_back(j);
    }
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const JobSpec& a, const JobSpec& b) { return a.submit < b.submit; });
  return jobs;
}

int replicas_needed(const InferenceGroup& g, double t) {
  if (!g.trace_t.empty()) {
    const double tt = std::fmod(t, g.trace_period_s);
    const auto it = std::upper_bound(g.trace_t.begin(), g.trace_t.end(), tt);
    const size_t k = it == g.trace_t.begin() ? 0 : static_cast<size_t>(it - g.trace_t.begin()) - 1;
    const double v = g.trace_value[k] * g.trace_scale / (g.trace_in_gpus ? g.replica_gpus : 1);
    return std::max(0, static_cast<int>(std::ceil(v - 1e-9)));
  }
  const double h = std::fmod(t, kDay) / 3600.0;
  const double day_shape = g.trough_ratio + (1.0 - g.trough_ratio) * 0.5 * (1.0 + std::cos(2.0 * kPi * (h - g.peak_hour) / 24.0));
  const int weekday = static_cast<int>(std::fmod(t / kDay, 7.0));  // 0 = Monday
  const double week = weekday >= 5 ? g.weekend_ratio : 1.0;
  return std::max(0, static_cast<int>(std::ceil(g.peak_replicas * day_shape * week - 1e-9)));
}

std::vector<double> single_node_request_shares(const std::vector<JobSpec>& jobs, int gpus_per_node) {
  std::vector<double> p(gpus_per_node + 1, 0.0);
  double n = 0;
  for (const auto& j : jobs)
    if (j.gpus <= gpus_per_node) {
      p[j.gpus] += 1;
      n += 1;
    }
  if (n > 0)
    for (auto& x : p) x /= n;
  return p;
}

}  // namespace fleetsim::pool
