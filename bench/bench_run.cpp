// Speed of the run model: wall time, replications per second and peak memory for the two sizes
// the issue sets targets for (1,000 replications of 54 days at 16,384 GPUs in <= 2 s, and of 90
// days at 131,072 GPUs in <= 10 s, on a 2-core machine).
//
// Usage: bench_run [threads] [replications]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "sim/config/load.hpp"
#include "sim/pipeline/run_pipeline.hpp"
#include "sim/reproduce/run_sources.hpp"
#include "sim/uncertainty/inputs.hpp"

#include "bench/peak_memory.hpp"

using namespace fleetsim;

namespace {

using bench_util::peak_rss_mib;

void bench(const char* name, RunInputs in, int threads, double target_s) {
  const auto t0 = std::chrono::steady_clock::now();
  const RunResult r = simulate_run(in, threads);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double ettr = 0, failures = 0;
  for (const auto& x : r.replications) {
    ettr += x.ettr;
    failures += x.unexpected;
  }
  const double n = static_cast<double>(r.replications.size());
  std::printf("%-34s %5d reps  %7.3f s  %8.0f reps/s  target %4.1f s %s  | MTTI %.2f h, %.0f failures/rep, "
              "ETTR %.3f, interval %.0f s, %zu events logged | peak RSS %.1f MiB\n",
              name, in.run.replications, s, n / s, target_s, s <= target_s ? "ok  " : "SLOW", r.mtti_hours,
              failures / n, ettr / n, r.checkpoint_interval_s, r.replications[0].events.size(), peak_rss_mib());
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 0;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 1000;
  RunInputs small = reproduce::llama3_405b_inputs(reps);
  bench("16,384 GPUs x 54 d (llama3-h100)", small, threads, 2.0);
  RunInputs large = reproduce::llama3_405b_inputs(reps);
  large.gpus = 131072;
  large.data_parallel_size = 1024;
  large.run.duration = units::days(90);
  large.recovery.spare_nodes = 512;
  bench("131,072 GPUs x 90 d (llama3-h100)", large, threads, 10.0);
  RunInputs replica = large;
  replica.recovery.policy = RestartPolicy::ReplicaRestart;
  bench("131,072 GPUs x 90 d, replica", replica, threads, 10.0);
  RunInputs thermal = large;
  thermal.throughput_factor = [](Seconds t) { return 0.99 + 0.01 * std::cos(2 * 3.141592653589793 * t.si() / 86400.0); };
  bench("131,072 GPUs x 90 d, thermal hook", thermal, threads, 10.0);
  // Issue 27: fail-slow episodes (6 h, re-balanced after 30 min) and GC / sequence factors on.
  RunInputs slow = large;
  slow.stragglers.device_speed_sigma = 0.02;
  slow.stragglers.fail_slow_rate_per_node = PerSecond(0.01 / 86400.0);
  slow.stragglers.fail_slow_slowdown = 2.0;
  slow.stragglers.fail_slow_duration = Seconds(6 * 3600.0);
  slow.stragglers.fail_slow_detect = Seconds(1800.0);
  slow.stragglers.fail_slow_policy = FailSlowPolicy::Rebalance;
  slow.straggler_iteration_factor = 1.05;
  bench("131,072 GPUs x 90 d, stragglers+fail-slow", slow, threads, 5.0);
  // Issue 27: per-node lemons (lognormal frailty, sigma 1) with retirement after 2 failures in 7 d.
  RunInputs lemons = large;
  lemons.failures.lemon_distribution = LemonDistribution::Lognormal;
  lemons.failures.lemon_sigma = 1.0;
  lemons.failures.lemon_model = LemonModel::PerNode;
  lemons.failures.lemon_retirement = {2, units::days(7)};
  bench("131,072 GPUs x 90 d, lemons+retirement", lemons, threads, 10.0);
  RunInputs weibull = small;
  for (auto& c : weibull.failures.components) c.weibull_shape = 0.7;
  bench("16,384 GPUs x 54 d, Weibull k=0.7", weibull, threads, 10.0);
  // Issue 25: the whole pipeline of `fleetsim run` on the default scenario (20 replications), as
  // is and with failures.rate_scale declared uncertain (each replication draws it and re-times
  // its own iteration); the ETTR range over the replications beside it.
  for (const bool declared : {false, true}) {
    std::vector<std::string> sets;
    if (declared) sets.push_back("failures.rate_scale={value: 1, range: [0.7, 1.5]}");
    const Scenario sc = config::load_scenario("", sets);
    PipelineOptions opt;
    opt.threads = threads;
    if (declared) opt.replication_scenario = [sc](int i) { return uncertainty::drawn_scenario(sc, i); };
    const auto t0 = std::chrono::steady_clock::now();
    const PipelineResult r = run_pipeline(sc, opt);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double lo = 1, hi = 0;
    for (const auto& x : r.run.replications) lo = std::min(lo, x.ettr), hi = std::max(hi, x.ettr);
    std::printf("%-34s %5d reps  %7.3f s  | ETTR range over the replications [%.4f, %.4f]\n",
                declared ? "default pipeline, rate_scale drawn" : "default pipeline", sc.run.replications, wall, lo, hi);
  }
  return 0;
}
