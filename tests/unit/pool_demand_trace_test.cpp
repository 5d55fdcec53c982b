// Inference demand read from a trace (pool.inference[i].demand_trace): the replicas a service
// holds follow the trace, and a bad trace is an exit-2 error naming the file, line and column.
// Sample trace: Alibaba's DLRM inference fleet (cluster-trace-gpu-v2025, Prism NSDI'25), alive
// GPU instances every 10 minutes over 31 days (data/validation/pool/, derived from the trace).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include "sim/config/load.hpp"
#include "sim/core/csv.hpp"
#include "sim/core/error.hpp"
#include "sim/core/paths.hpp"
#include "sim/pool/pool_model.hpp"
#include "tests/test_paths.hpp"

namespace {

const std::string kTrace = "alibaba_v2025_dlrm_alive_instances_10min_DERIVED.csv";

std::string service(const std::string& trace, const std::string& extra = "") {
  return "pool.inference=[{name: dlrm, services: 1, replica_gpus: 1, demand_trace: '" + trace +
         "', demand_time_column: t_sec, demand_column: hn_gpus, demand_in: gpus, demand_scale: 0.5" + extra + "}]";
}

fleetsim::pool::PoolResult run(const std::vector<std::string>& sets) {
  const auto s = fleetsim::config::load_scenario(fleetsim::testing::source_dir() + "/tests/unit/pool_small.yaml", sets);
  return fleetsim::pool::simulate_pool(s);
}

}  // namespace

TEST_CASE("pool: an inference service follows its demand trace", "[unit][pool]") {
  const std::string path = fleetsim::validation_dir() + "/pool/" + kTrace;
  // Tidal co-location: the service holds what the trace needs, so its GPU-hours are the trace's.
  const auto r = run({service(path), "pool.colocation=tidal", "pool.failures=false"});
  // Expected: ceil(0.5 x GPUs) replicas of one GPU, step by step over the measured span (the
  // scenario measures days 1-5 after a 1-day warm-up, the trace steps every 10 minutes).
  const auto t = fleetsim::read_csv(path);
  double expected = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    const double ts = t.num(i, "t_sec");
    if (ts >= 86400.0 && ts < 5 * 86400.0) expected += std::ceil(0.5 * t.num(i, "hn_gpus") - 1e-9) * 600.0 / 3600.0;
  }
  for (const auto& rep : r.replications) {
    std::printf("demand trace: inference GPU-hours %.1f simulated vs %.1f from the trace; SLO attainment %.4f\n",
                rep.allocated_gpu_hours[2], expected, rep.slo_attainment);
    CHECK(rep.allocated_gpu_hours[2] == Approx(expected).epsilon(0.01));
    CHECK(rep.slo_attainment > 0.99);
  }
}

TEST_CASE("pool: a bad demand trace is an error naming the file, line and column", "[unit][pool][config]") {
  const std::string dir = fleetsim::testing::source_dir() + "/tests/unit/";
  auto message = [&](const std::vector<std::string>& sets) {
    try {
      run(sets);
    } catch (const fleetsim::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string neg = message({"pool.inference=[{name: s, replica_gpus: 8, demand_trace: '" + dir + "pool_demand_negative.csv'}]"});
  INFO(neg);
  CHECK(neg.find("pool_demand_negative.csv:4") != std::string::npos);
  CHECK(neg.find("replicas") != std::string::npos);
  CHECK(neg.find(">= 0") != std::string::npos);
  const std::string col = message({service(dir + "pool_demand_negative.csv")});
  INFO(col);
  CHECK(col.find("pool_demand_negative.csv") != std::string::npos);
  CHECK(col.find("t_sec") != std::string::npos);
  CHECK(col.find("time_s, replicas") != std::string::npos);  // lists the columns there are
  const std::string missing = message({"pool.inference=[{name: s, demand_trace: no-such-trace.csv}]"});
  INFO(missing);
  CHECK(missing.find("pool.inference[0].demand_trace") != std::string::npos);
  CHECK(missing.find("not found") != std::string::npos);
}
