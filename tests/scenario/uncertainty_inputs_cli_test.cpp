// Declared uncertain inputs on the command line (issue 25): `step` and `run` report which inputs
// were declared and widen their intervals; bad declarations exit 2 naming the key.
#include <catch2/catch.hpp>

#include <string>

#include "tests/test_paths.hpp"

namespace {

fleetsim::testing::Outcome run_fleetsim(const std::string& args) {
  return fleetsim::testing::run_shell("timeout 300 " + fleetsim::testing::fleetsim_binary() + " " + args + " 2>&1");
}

}  // namespace

TEST_CASE("step --json with a declared uncertain input lists it with its share and widens the interval",
          "[scenario][uncertainty]") {
  const auto plain = run_fleetsim("step --json");
  const auto o = run_fleetsim("step --json --draws 100 --set 'cluster.gpu.gemm_efficiency={value: 0.8, range: [0.7, 0.9]}'");
  INFO(o.out);
  REQUIRE(o.code == 0);
  CHECK(o.out.find("\"uncertain_inputs\": {") != std::string::npos);
  CHECK(o.out.find("\"key\": \"cluster.gpu.gemm_efficiency\"") != std::string::npos);
  CHECK(o.out.find("\"share_of_width\":") != std::string::npos);
  CHECK(o.out.find("\"draws\": 100") != std::string::npos);
  // The headline keeps its key and the point number of the plain scenario.
  const auto at = [](const std::string& s, const std::string& key) {
    const size_t p = s.find("\"" + key + "\": ");
    return p == std::string::npos ? std::string() : s.substr(p, s.find(',', p) - p);
  };
  CHECK(at(o.out, "iteration_time_s") == at(plain.out, "iteration_time_s"));
  CHECK_FALSE(at(o.out, "iteration_time_s").empty());
}

TEST_CASE("run --json draws the declared inputs per replication and names them", "[scenario][uncertainty]") {
  const auto o = run_fleetsim("run --json --replications 4 --set 'run.duration=5 d' "
                              "--set 'failures.rate_scale={value: 1, range: [0.7, 1.5]}'");
  INFO(o.out);
  REQUIRE(o.code == 0);
  CHECK(o.out.find("\"uncertain_inputs\": {") != std::string::npos);
  CHECK(o.out.find("\"key\": \"failures.rate_scale\"") != std::string::npos);
  CHECK(o.out.find("each drawing the declared uncertain inputs") != std::string::npos);
}

TEST_CASE("bad declarations and draw counts exit 2 naming the key", "[scenario][uncertainty]") {
  const std::pair<std::string, std::string> cases[] = {
      {"step --set 'failures.rate_scale={value: 1, range: [1.5, 0.7]}'", "failures.rate_scale.range"},
      {"step --set 'failures.rate_scale={value: 1, distribution: normal, sd: -1}'", "failures.rate_scale.sd"},
      {"run --replications 2 --set 'cluster.gpus={value: 8192, range: [4096, 8192]}'", "cluster.gpus"},
      {"step --draws 5", "--draws"},
  };
  for (const auto& [cmd, key] : cases) {
    const auto o = run_fleetsim(cmd);
    INFO(cmd << ": " << o.out);
    CHECK(o.code == 2);
    CHECK(o.out.find(key) != std::string::npos);
  }
}

TEST_CASE("describe scenarios documents the uncertainty keys", "[scenario][uncertainty]") {
  const auto o = run_fleetsim("describe scenarios llama3-405b-16k");
  REQUIRE(o.code == 0);
  CHECK(o.out.find("{value: V, range: [lo, hi]}") != std::string::npos);
  CHECK(o.out.find("distribution: lognormal") != std::string::npos);
  CHECK(o.out.find("run.replications:") != std::string::npos);
  CHECK(o.out.find("run.precision:") != std::string::npos);
  CHECK(o.out.find("--level") != std::string::npos);
  CHECK(o.out.find("declared uncertain in this scenario: none") != std::string::npos);
}
