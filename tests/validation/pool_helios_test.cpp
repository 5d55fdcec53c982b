// Helios: a workload fitted to one cluster (Venus) gives another cluster's (Earth) allocation. The
// fit, the split (calibrate on Venus, judge on Earth May 2020) and the cases are in
// sim/reproduce/pool_helios.cpp. Checked: the fit's round trip reproduces Venus' run-time mean,
// median and GPU-time per job within 1% (calibration), and on Earth the simulated mean allocation
// (16 replications) is within 5 points of Earth's and the simulated p10-p90 band of the 10-minute
// allocation overlaps Earth's (judged).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include "sim/reproduce/pool_sources.hpp"

TEST_CASE("a workload fitted to Helios Venus gives Helios Earth's allocation within 5 points, p10-p90 bands overlap",
          "[validation][pool]") {
  const auto h = fleetsim::reproduce::helios_reproduction();
  const auto& rt = h.run_times;
  std::printf("Helios calibration on Venus: %.4f GPU jobs per GPU-day over %.1f days; daily cycle %.2f (peak %02.0f:00)\n",
              h.jobs_per_gpu_day, h.span_days, h.cycle.peak_to_trough, h.cycle.peak_hour);
  std::printf("  sizes: %.0f single-submission bins, %zu sizes, mean %.2f GPUs (all Venus GPU jobs: %s)\n",
              h.sampled_bins, h.size_count, h.sampled_mean_gpus, h.venus_mean_gpus.c_str());
  std::printf("  run times: median %.0f s x GPUs^%.3f, sigma %.3f -> mean %.0f s (Venus %.0f), median %.0f s (%.0f), "
              "GPU-s per job %.0f (%.0f): %.2f of the cluster offered\n",
              rt.median_1gpu_s, rt.beta, rt.sigma, h.fitted.mean, h.venus.mean, h.fitted.median, h.venus.median,
              h.fitted.gpu_s_per_job, h.venus.gpu_s_per_job, h.fitted.gpu_s_per_job * h.jobs_per_gpu_day / 86400.0);
  for (const auto& g : {1.0, 8.0, 32.0, 128.0})
    std::printf("    median run time of a %3.0f-GPU job: %8.0f s\n", g, rt.median_s(g));
  std::printf("  Earth as %d VCs (%d GPUs): offered GPU-time %.2f of the cluster (jobs larger than a VC not submitted to it)\n",
              h.vcs, h.earth_gpus, h.offered);
  std::printf("  Earth May 2020: allocation mean %.3f, p10 %.3f, p90 %.3f (published: 0.667, 0.530, 0.813)\n",
              h.earth_mean, h.earth_p10, h.earth_p90);
  std::printf("  simulated:      allocation mean %.3f [p05 %.3f, p95 %.3f over %zu replications], p10 %.3f, p90 %.3f; "
              "error %+.1f points\n",
              h.sim_mean, h.sim_p05, h.sim_p95, h.replications, h.sim_p10, h.sim_p90, 100 * (h.sim_mean - h.earth_mean));
  std::printf("  target: within 5 points (%s)\n", std::abs(h.sim_mean - h.earth_mean) <= 0.05 ? "met" : "NOT met");
  CHECK(h.earth_gpus == 856);
  CHECK(std::abs(h.sim_mean - h.earth_mean) <= 0.05);
  CHECK(h.sim_p10 <= h.earth_p90);
  CHECK(h.earth_p10 <= h.sim_p90);
  // The cases `fleetsim validate --only pool` prints: 3 calibration (Venus), 3 judged (Earth).
  REQUIRE(h.cases.size() == 6);
  for (size_t i = 0; i < h.cases.size(); ++i) {
    const auto& c = h.cases[i];
    INFO(c.case_name << ": " << c.predicted << " vs " << c.published);
    CHECK(c.pass);
    CHECK(c.role == (i < 3 ? fleetsim::CaseRole::Calibration : fleetsim::CaseRole::Judged));
  }
  CHECK(h.cases[3].predicted == h.sim_mean);
  CHECK(h.cases[3].tolerance == 0.05);
}
