// `fleetsim pool` as scripts call it: the JSON keys of the contract (issue 14), exit code 2 with
// the key named for bad input, an HDF5 file only on success.
#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <sys/wait.h>

#include "tests/test_paths.hpp"

namespace {

std::pair<int, std::string> run_pool(const std::string& args) {
  const std::string cmd = fleetsim::testing::fleetsim_binary() + " pool " + args + " 2>&1";
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace

TEST_CASE("fleetsim pool prints the contract's JSON keys and writes HDF5, bad input exits 2 naming the key",
          "[scenario][pool]") {
  const std::string src = fleetsim::testing::source_dir();
  const auto h5 = std::filesystem::temp_directory_path() / "fleetsim_pool_cli.h5";
  std::filesystem::remove(h5);
  const auto [code, out] = run_pool(src + "/tests/unit/pool_small.yaml --set pool.duration=1d --replications 1 --json -o " + h5.string());
  INFO(out.substr(0, 2000));
  CHECK(code == 0);
  for (const char* key : {"\"pool\": {", "\"allocation_share\": {", "\"fragmentation_share\": {", "\"slo_attainment\": {",
                          "\"queue_delay_hours\": {", "\"slowdown\": {", "\"gpu_hours_lost\": {", "\"training\": {",
                          "\"development\": {", "\"inference\": {", "\"fragmentation\": {", "\"p05\":", "\"p95\":"})
    CHECK(out.find(key) != std::string::npos);
  CHECK(std::filesystem::exists(h5));
  std::filesystem::remove(h5);
  const auto bad = run_pool(src + "/tests/config/bad/pool_unknown_policy.yaml -o " + h5.string());
  CHECK(bad.first == 2);
  CHECK(bad.second.find("pool.scheduler.policy: 'sjf' is not valid") != std::string::npos);
  CHECK(!std::filesystem::exists(h5));
}

TEST_CASE("fleetsim pool with fabric interference: the contract's keys, each explicit job alone and together, a "
          "placement on a node that does not exist exits 2 naming the job and key",
          "[scenario][pool][interference]") {
  const std::string src = fleetsim::testing::source_dir();
  const auto [code, out] = run_pool(src + "/scenarios/pool-interference-pair.yaml --json");
  INFO(out.substr(0, 3000));
  CHECK(code == 0);
  for (const char* key : {"\"interference_slowdown\": {", "\"interference\": {", "\"interference_shared_jobs_share\": {",
                          "\"interference_shared_gpus_share\": {", "\"iteration_time_alone\": {",
                          "\"iteration_time_together\": {"})
    CHECK(out.find(key) != std::string::npos);
  const auto bad = run_pool(src + "/tests/config/bad/pool_interference_missing_node.yaml");
  CHECK(bad.first == 2);
  CHECK(bad.second.find("pool.interference.jobs[1].nodes: job 'b' names node 16, which does not exist") != std::string::npos);
}

TEST_CASE("fleetsim pool: counts and sizes beyond the limits exit 2 naming the key, before any work", "[scenario][pool]") {
  // Issue 30: 10^9 replications exited 1 with std::bad_alloc; each limit is in sim/core/limits.hpp.
  const std::string pool = fleetsim::testing::source_dir() + "/scenarios/pool-100k-mixed.yaml";
  const std::pair<std::string, std::string> cases[] = {
      {"--set pool.replications=1000000000", "pool.replications: must be <= 100000, got 1000000000"},
      {"--set pool.gpus=2000000000", "pool.gpus: must be <= 1048576"},
      {"--set 'pool.training.arrival_rate=1e9 /h'", "pool.training.arrival_rate: submits about"},
      {"--set 'pool.inference_interval=1 ms'", "pool.inference_interval: gives 2.59e+09 time steps per replication"},
      {"--set 'pool.scheduler.backfill_interval=1e-300 s'", "pool.scheduler.backfill_interval: gives"},
      {"--set pool.replications=100000", "pool.replications: x the jobs per replication"},
      {"--set failures.rate_scale=10000 --set 'pool.duration=60 d' --set 'pool.training.arrival_rate=1 /h' "
       "--set 'pool.development.arrival_rate=0 /h'",
       "pool.failures: 2.73e+07 expected node failures per pool replication"},
  };
  for (const auto& [args, expect] : cases) {
    const auto [code, out] = run_pool(pool + " " + args);
    INFO(args << "\n" << out.substr(0, 2000));
    CHECK(code == 2);
    CHECK(out.find(expect) != std::string::npos);
    CHECK(out.find("internal error") == std::string::npos);
  }
}
