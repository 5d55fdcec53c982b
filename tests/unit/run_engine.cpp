// The run engine: accounting, checkpoints, recovery policies, determinism (sim/run/run_model.hpp).
#include <catch2/catch.hpp>

#include <numeric>

#include "sim/run/profiles.hpp"
#include "sim/run/run_model.hpp"

using namespace fleetsim;
using units::days;
using units::hours;
using units::minutes;
using units::seconds;

namespace {

// A job that fails only through `rate_per_gpu_s` crashes on GPUs; 1 s iterations of 1 token.
RunInputs base(int gpus = 1024, double rate_per_gpu_s = 0.0) {
  RunInputs in;
  in.gpus = gpus;
  in.gpus_per_node = 8;
  in.gpus_per_leaf = 32;
  in.data_parallel_size = gpus / 64;
  if (rate_per_gpu_s > 0) {
    FailureComponent c;
    c.name = "gpu";
    c.category = "GPU";
    c.scope = ComponentScope::Gpu;
    c.rate = PerSecond(rate_per_gpu_s);
    in.failures.components = {c};
  }
  in.failures.repair_median = hours(2);
  in.recovery.detect_crash = seconds(30);
  in.recovery.detect_hang = minutes(10);
  in.recovery.diagnosis = minutes(3);
  in.recovery.reschedule_spare = minutes(2);
  in.recovery.reschedule_wait = minutes(20);
  in.recovery.init_base = minutes(3);
  in.recovery.planned_downtime = minutes(5);
  in.recovery.spare_nodes = 1000;
  in.checkpoint.interval_kind = CheckpointIntervalKind::Fixed;
  in.checkpoint.interval = minutes(30);
  in.checkpoint.write_time = seconds(10);
  in.checkpoint.async = false;
  in.tokens_per_iteration = 1;
  in.iteration_time = [](double s) { return Seconds(s); };
  in.run.duration = days(10);
  in.run.replications = 8;
  in.run.seed = 3;
  return in;
}

double mean_ettr(const RunResult& r) {
  double s = 0;
  for (const auto& x : r.replications) s += x.ettr;
  return s / static_cast<double>(r.replications.size());
}

double total_hours(const ReplicationResult& x) {
  double s = x.productive_hours;
  for (const auto& [k, v] : x.lost_hours) s += v;
  return s;
}

}  // namespace

TEST_CASE("without failures the job loses only its checkpoint stalls", "[unit][run]") {
  const RunResult r = simulate_run(base(), 1);
  const auto& x = r.replications[0];
  CHECK(x.unexpected == 0);
  CHECK(x.ettr == Approx(1800.0 / 1810.0).epsilon(1e-3));
  CHECK(x.tokens_trained == Approx(10 * 86400.0 * 1800.0 / 1810.0).epsilon(1e-3));
}

TEST_CASE("every hour of the run is productive or lost to exactly one phase", "[unit][run]") {
  RunInputs in = base(16384, 2e-5 / 3600);
  in.failures.planned_rate_per_job = PerSecond(1.0 / 86400);
  in.stragglers.fail_slow_rate_per_node = PerSecond(0.05 / 86400);
  in.stragglers.fail_slow_detect = minutes(30);
  in.stragglers.fail_slow_slowdown = 1.5;
  const RunResult r = simulate_run(in, 2);
  for (const auto& x : r.replications) {
    CHECK(total_hours(x) == Approx(x.wall_clock_days * 24).epsilon(1e-6));
    CHECK(x.compute_hours + x.stalled_hours == Approx(x.wall_clock_days * 24).epsilon(1e-6));
  }
}

TEST_CASE("the results do not depend on the number of threads", "[unit][run]") {
  RunInputs in = base(16384, 2e-5 / 3600);
  in.run.replications = 12;
  const RunResult one = simulate_run(in, 1), two = simulate_run(in, 2), four = simulate_run(in, 4);
  for (size_t i = 0; i < one.replications.size(); ++i) {
    CHECK(one.replications[i].ettr == two.replications[i].ettr);
    CHECK(one.replications[i].ettr == four.replications[i].ettr);
    CHECK(one.replications[i].unexpected == four.replications[i].unexpected);
  }
}

TEST_CASE("replications differ from each other and the seed changes them", "[unit][run]") {
  RunInputs in = base(16384, 2e-5 / 3600);
  const RunResult a = simulate_run(in, 2);
  CHECK(a.replications[0].unexpected != a.replications[1].unexpected);
  in.run.seed = 4;
  const RunResult b = simulate_run(in, 2);
  CHECK(a.replications[0].ettr != b.replications[0].ettr);
}

TEST_CASE("the event log is kept for the first replication only", "[unit][run]") {
  const RunResult r = simulate_run(base(16384, 2e-5 / 3600), 2);
  CHECK_FALSE(r.replications[0].events.empty());
  CHECK(r.replications[1].events.empty());
  int failures = 0;
  for (const auto& e : r.replications[0].events) failures += e.kind == EventKind::Failure;
  CHECK(failures == r.replications[0].unexpected);
}

TEST_CASE("the number of interruptions is Poisson with the profile's rate", "[unit][run]") {
  RunInputs in = base(16384, 2e-5 / 3600);
  in.run.replications = 200;
  const RunResult r = simulate_run(in, 2);
  double n = 0;
  for (const auto& x : r.replications) n += x.unexpected;
  const double expected = 16384 * 2e-5 * 240;  // 78.6
  CHECK(n / 200 == Approx(expected).margin(3 * std::sqrt(expected / 200)));
}

TEST_CASE("a lost checkpoint interval is redone: lost work averages half an interval per failure", "[unit][run]") {
  RunInputs in = base(16384, 2e-5 / 3600);
  in.run.replications = 100;
  const RunResult r = simulate_run(in, 2);
  double lost = 0, n = 0;
  for (const auto& x : r.replications) {
    lost += x.lost_hours.at("lost_work");
    n += x.unexpected;
  }
  // Per failure: about half of the 30-min compute interval (slightly less: intervals cut short).
  CHECK(lost / n * 60 == Approx(15.0).margin(2.0));
}

TEST_CASE("an asynchronous checkpoint that is not yet durable does not protect the work", "[unit][run]") {
  RunInputs sync = base(16384, 2e-5 / 3600), async = sync;
  async.checkpoint.async = true;
  async.checkpoint.write_time = seconds(1);
  async.checkpoint.storage_bandwidth = BytesPerSecond(1e9);
  async.checkpoint.load_bandwidth = BytesPerSecond(1e12);
  async.checkpoint_bytes = Bytes(1.2e12);  // 20-minute persist inside a 30-minute interval
  sync.run.replications = async.run.replications = 100;
  const RunResult rs = simulate_run(sync, 2), ra = simulate_run(async, 2);
  double ls = 0, la = 0;
  for (size_t i = 0; i < rs.replications.size(); ++i) {
    ls += rs.replications[i].lost_hours.at("lost_work");
    la += ra.replications[i].lost_hours.at("lost_work");
  }
  CHECK(la > 1.4 * ls);  // a failure during the persist loses the previous interval too
}

TEST_CASE("a hang costs the watchdog timeout, a crash only seconds", "[unit][run]") {
  RunInputs crash = base(16384, 2e-5 / 3600), hang = crash;
  hang.failures.components[0].mode = FailureMode::Hang;
  const RunResult rc = simulate_run(crash, 2), rh = simulate_run(hang, 2);
  const auto& c = rc.replications[0];
  const auto& h = rh.replications[0];
  CHECK(c.lost_hours.at("detection") / c.unexpected * 3600 == Approx(30).margin(1));
  CHECK(h.lost_hours.at("detection") / h.unexpected * 60 == Approx(10).margin(0.5));
}

TEST_CASE("without free spares the job waits for a repaired node", "[unit][run]") {
  RunInputs in = base(16384, 2e-5 / 3600);
  in.recovery.policy = RestartPolicy::WarmSpares;
  in.recovery.spare_nodes = 1;
  in.failures.repair_median = days(2);
  in.failures.repair_sigma = 0.1;
  const RunResult few = simulate_run(in, 2);
  in.recovery.spare_nodes = 200;
  const RunResult many = simulate_run(in, 2);
  CHECK(few.replications[0].lost_hours.at("waiting_for_spares") > 10.0);
  CHECK(many.replications[0].lost_hours.at("waiting_for_spares") == 0.0);
  CHECK(mean_ettr(few) < mean_ettr(many));
}

TEST_CASE("a full restart requeues the whole job for every interruption", "[unit][run]") {
  RunInputs in = base(16384, 2e-5 / 3600);
  in.recovery.policy = RestartPolicy::FullRestart;
  const RunResult r = simulate_run(in, 2);
  int failures = 0;
  for (const auto& e : r.replications[0].events)
    if (e.kind == EventKind::Failure) {
      ++failures;  // detection 30 s + diagnosis 3 min + requeue 20 min + init 3 min
      CHECK(e.duration.si() == Approx(30 + 60 * (3 + 20 + 3)));
    }
  CHECK(failures > 0);
}

TEST_CASE("restarting only the failed data-parallel replica beats a full restart at 100k GPUs", "[unit][run]") {
  // FT-HSDP (arXiv 2602.00277): at O(100k) GPUs, 44% ETTR with full restarts vs 80% with replica restarts.
  RunInputs in = base(98304, 6.5e-3 / 86400 / 8);  // RSC-1-like: MTTI ~18 min
  in.data_parallel_size = 96;
  in.run.duration = days(3);
  in.checkpoint.async = true;
  in.checkpoint.write_time = seconds(2);
  in.checkpoint.interval_kind = CheckpointIntervalKind::Daly;
  in.recovery.policy = RestartPolicy::WarmSpares;
  const double full = mean_ettr(simulate_run(in, 2));
  in.recovery.policy = RestartPolicy::ReplicaRestart;
  const RunResult rep = simulate_run(in, 2);
  CHECK(mean_ettr(rep) > full + 0.15);
  CHECK(rep.replications[0].lost_hours.at("degraded") > 0.0);
  CHECK(rep.replications[0].lost_hours.at("lost_work") == 0.0);
}

TEST_CASE("a job-scoped failure forces a full restart even under replica restart", "[unit][run]") {
  RunInputs in = base(16384, 0);
  FailureComponent c;
  c.name = "bug";
  c.scope = ComponentScope::Job;
  c.rate = PerSecond(1.0 / 3600);
  c.needs_repair = false;
  in.failures.components = {c};
  in.recovery.policy = RestartPolicy::ReplicaRestart;
  const RunResult r = simulate_run(in, 1);
  const auto& x = r.replications[0];
  CHECK(x.lost_hours.at("lost_work") > 0.0);
  CHECK(x.lost_hours.at("degraded") == 0.0);
}

TEST_CASE("planned maintenance loses no work", "[unit][run]") {
  RunInputs in = base();
  in.failures.planned_rate_per_job = PerSecond(2.0 / 86400);
  const RunResult r = simulate_run(in, 1);
  const auto& x = r.replications[0];
  CHECK(x.planned > 5);
  CHECK(x.lost_hours.at("lost_work") == 0.0);
  CHECK(x.lost_hours.at("planned_maintenance") == Approx(x.planned * 5.0 / 60).epsilon(1e-6));
}

TEST_CASE("a run with a token target stops when the tokens are trained", "[unit][run]") {
  RunInputs in = base();
  in.train_tokens = 86400.0;  // one day of compute at 1 token/s
  const RunResult r = simulate_run(in, 1);
  const auto& x = r.replications[0];
  CHECK(x.tokens_trained == Approx(86400.0));
  CHECK(x.wall_clock_days == Approx(1810.0 / 1800.0).epsilon(1e-3));
}

TEST_CASE("stragglers slow the iterations, not the effective training time ratio", "[unit][run]") {
  RunInputs in = base();
  in.stragglers.step_jitter_cv = 0.02;
  const RunResult r = simulate_run(in, 1);
  CHECK(r.straggler_slowdown > 1.05);
  CHECK(r.replications[0].tokens_trained ==
        Approx(10 * 86400.0 * 1800.0 / 1810.0 / r.straggler_slowdown).epsilon(1e-3));
}

TEST_CASE("a fail-slow node slows the job until it is evicted", "[unit][run]") {
  RunInputs in = base();
  in.stragglers.fail_slow_rate_per_node = PerSecond(0.01 / 86400);
  in.stragglers.fail_slow_slowdown = 2.0;
  in.stragglers.fail_slow_detect = hours(1);
  const RunResult r = simulate_run(in, 1);
  const auto& x = r.replications[0];
  CHECK(x.fail_slow > 0);
  CHECK(x.slow_hours == Approx(x.fail_slow * 1.0).epsilon(0.2));
  CHECK(x.tokens_trained < 10 * 86400.0 * 1800.0 / 1810.0);
}

TEST_CASE("the throughput hook scales the work done, e.g. thermal throttling", "[unit][run]") {
  RunInputs in = base();
  in.throughput_factor = [](Seconds) { return 0.5; };
  CHECK(simulate_run(in, 1).replications[0].tokens_trained == Approx(5 * 86400.0 * 1800.0 / 1810.0).epsilon(1e-3));
}

TEST_CASE("the failure-rate hook scales every hazard", "[unit][run]") {
  RunInputs in = base(16384, 2e-5 / 3600);
  const double m1 = simulate_run(in, 1).mtti_hours;
  in.failure_rate_multiplier = 2.0;
  CHECK(simulate_run(in, 1).mtti_hours == Approx(m1 / 2));
}

TEST_CASE("progress is reported once per replication", "[unit][run]") {
  std::vector<int> seen;
  const RunResult r = simulate_run(base(), 2, [&](int done, int total) {
    CHECK(total == 8);
    seen.push_back(done);
  });
  CHECK(seen.size() == 8);
  CHECK(seen.back() == 8);
}

TEST_CASE("a run without an iteration-time function is refused", "[unit][run]") {
  RunInputs in = base();
  in.iteration_time = nullptr;
  CHECK_THROWS(simulate_run(in, 1));
}

TEST_CASE("a fresh cohort with a Weibull shape below one fails more often early on", "[unit][run]") {
  RunInputs in = base(16384, 2e-5 / 3600);
  in.run.replications = 20;
  auto failures = [&](const RunInputs& x) {
    const RunResult r = simulate_run(x, 2);
    double n = 0;
    for (const auto& y : r.replications) n += y.unexpected;
    return n / static_cast<double>(r.replications.size());
  };
  const double exponential = failures(in);
  in.failures.components[0].weibull_shape = 0.7;
  const double fresh = failures(in);
  in.failures.fleet_age = days(20 * 365);
  const double aged = failures(in);
  CHECK(fresh > 2 * exponential);
  CHECK(aged == Approx(exponential).epsilon(0.1));  // old parts: close to the stationary rate
}

TEST_CASE("a diurnal throughput swing averages out over whole days", "[unit][run]") {
  // Llama 3 §3.3.4: 1-2% diurnal throughput variation from mid-day temperatures.
  RunInputs in = base();
  in.throughput_factor = [](Seconds t) { return 1.0 - 0.02 * (1.0 + std::sin(2 * M_PI * t.si() / 86400.0)) / 2; };
  const RunResult r = simulate_run(in, 1);
  CHECK(r.replications[0].tokens_trained == Approx(0.99 * 10 * 86400.0 * 1800.0 / 1810.0).epsilon(1e-3));
}

TEST_CASE("a token target is met exactly under a time-varying throughput", "[unit][run]") {
  RunInputs in = base();
  in.train_tokens = 3 * 86400.0;
  in.throughput_factor = [](Seconds t) { return 0.8 + 0.2 * std::cos(2 * M_PI * t.si() / 86400.0); };
  const RunResult r = simulate_run(in, 1);
  CHECK(r.replications[0].tokens_trained == Approx(3 * 86400.0));
  CHECK(r.replications[0].wall_clock_days == Approx(3.0 / 0.8 * 1810.0 / 1800.0).epsilon(0.01));
}
