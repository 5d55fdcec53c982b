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

TEST_CASE("fleetsim pool prints the contract's JSON keys and writes HDF5; bad input exits 2 naming the key",
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

TEST_CASE("fleetsim pool with fabric interference: the contract's keys, each explicit job alone and together; a "
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
