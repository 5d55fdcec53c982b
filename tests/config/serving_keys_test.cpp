// The serving: section refuses bad input with exit 2 naming the key (issue 39): an SLO below the
// one-token decode time, a model that does not fit in a replica, a request rate <= 0, an input
// beyond the model's context, a layout that does not divide the model.
#include <catch2/catch.hpp>

#include <cmath>

#include <filesystem>
#include <fstream>

#include "sim/config/load.hpp"
#include "sim/core/error.hpp"
#include "sim/pool/pool_model.hpp"
#include "sim/serving/serving_model.hpp"
#include "tests/test_paths.hpp"

namespace {

// The message of the ConfigError that loading and evaluating the scenario raises, or "accepted".
std::string refusal(std::vector<std::string> sets) {
  try {
    const auto s = fleetsim::config::load_scenario("infer-llama31-70b-h100", sets);
    (void)fleetsim::serving::evaluate_serving(s.cluster, s.serving, s.file);
  } catch (const fleetsim::ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("an SLO below the one-token decode time is refused naming serving.slo.tpot_p99", "[config][serving]") {
  const std::string m = refusal({"serving.slo.tpot_p99=1 ms"});
  INFO(m);
  CHECK(m.find("serving.slo.tpot_p99") != std::string::npos);
  CHECK(m.find("one-token decode time") != std::string::npos);
  const std::string t = refusal({"serving.slo.ttft_p99=1 ms"});
  INFO(t);
  CHECK(t.find("serving.slo.ttft_p99") != std::string::npos);
}

TEST_CASE("a model that does not fit in a replica is refused naming the TP key", "[config][serving]") {
  const std::string m = refusal({"serving.model=llama3.1-405b", "serving.tensor_model_parallel_size=1", "serving.precision=bf16"});
  INFO(m);
  CHECK(m.find("serving.tensor_model_parallel_size") != std::string::npos);
  CHECK(m.find("does not fit") != std::string::npos);
}

TEST_CASE("a request rate <= 0 is refused naming serving.requests_per_s", "[config][serving]") {
  for (const char* v : {"serving.requests_per_s=0", "serving.requests_per_s=-3"}) {
    const std::string m = refusal({v});
    INFO(v << " -> " << m);
    CHECK(m.find("serving.requests_per_s") != std::string::npos);
  }
}

TEST_CASE("an input beyond the model's context is refused naming serving.input_tokens", "[config][serving]") {
  const std::string m = refusal({"serving.input_tokens=200000"});
  INFO(m);
  CHECK(m.find("serving.input_tokens") != std::string::npos);
  CHECK(m.find("beyond the context") != std::string::npos);
}

TEST_CASE("a TP that does not divide the heads and an EP on a dense model are refused", "[config][serving]") {
  CHECK(refusal({"serving.tensor_model_parallel_size=3"}).find("serving.tensor_model_parallel_size") != std::string::npos);
  CHECK(refusal({"serving.expert_model_parallel_size=2"}).find("serving.expert_model_parallel_size") != std::string::npos);
}

TEST_CASE("the shipped infer scenario meets its SLO at a positive rate below saturation", "[serving]") {
  const auto s = fleetsim::config::load_scenario("infer-llama31-70b-h100");
  const auto r = fleetsim::serving::evaluate_serving(s.cluster, s.serving, s.file);
  CHECK(r.requests_per_s_per_replica > 0);
  CHECK(r.requests_per_s_per_replica <= r.capacity_requests_per_s);
  CHECK(r.ttft_p99_s <= 2.0);
  CHECK(r.tpot_p99_s <= 0.050);
  CHECK(r.kv_cache_gib > 0);
}

TEST_CASE("latency grows with the offered load and the batch with it", "[serving]") {
  auto at = [](double rate) {
    const auto s = fleetsim::config::load_scenario("infer-llama31-70b-h100", {"serving.slo.ttft_p99=10 s", "serving.slo.tpot_p99=1 s"});
    auto spec = s.serving;
    spec.slo = {};
    spec.requests_per_s = rate;
    return fleetsim::serving::evaluate_serving(s.cluster, spec, s.file);
  };
  const auto lo = at(0.5), hi = at(5);
  CHECK(hi.tpot_mean_s > lo.tpot_mean_s);
  CHECK(hi.batch_size_mean > lo.batch_size_mean);
  CHECK(hi.output_tokens_per_s_per_gpu > lo.output_tokens_per_s_per_gpu);
}

TEST_CASE("a pool inference group given by model and requests gets its replicas from the serving model", "[config][serving][pool]") {
  const auto s = fleetsim::config::load_scenario("pool-colocation-slo");
  REQUIRE(s.pool.inference.size() == 1);
  const auto& g = s.pool.inference[0];
  CHECK(g.replica_gpus == 4);
  REQUIRE(g.replica_requests_per_s > 0);
  CHECK(g.peak_replicas == static_cast<int>(std::ceil(g.requests_per_s / g.replica_requests_per_s - 1e-9)));
  // Without requests_per_s, with an unreachable SLO or an input beyond the context, the group is
  // refused naming its key (scenarios written to a temporary folder, extending the shipped one).
  auto refusal = [](const std::string& row_extra) {
    const auto dir = std::filesystem::temp_directory_path() / "fleetsim_serving_keys_test";
    std::filesystem::create_directories(dir);
    const auto file = dir / "bad_group.yaml";
    std::ofstream(file) << "extends: " << fleetsim::testing::source_dir() << "/scenarios/pool-colocation-slo.yaml\n"
                        << "pool:\n  inference:\n    - {name: x, model: llama3.1-70b, layout: {tensor_model_parallel_size: 4, "
                           "precision: fp8}, input_tokens: 2000, output_tokens: 500, " << row_extra << "}\n";
    try {
      (void)fleetsim::config::load_scenario(file.string());
    } catch (const fleetsim::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(refusal("slo: {ttft_p99: 2 s}").find("pool.inference[0].requests_per_s") != std::string::npos);
  CHECK(refusal("requests_per_s: 100, slo: {tpot_p99: 1 ms}").find("pool.inference[0].slo.tpot_p99") != std::string::npos);
  CHECK(refusal("requests_per_s: 100, input_tokens: 200000").find("pool.inference[0].input_tokens") != std::string::npos);
  CHECK(refusal("requests_per_s: 100, layout: {tensor_model_parallel_size: 3}").find("pool.inference[0].layout.tensor_model_parallel_size") !=
        std::string::npos);
}

TEST_CASE("tidal co-location of request-sized services lends GPU-hours, raises the pool's allocation and counts the "
          "requests it leaves beyond the running replicas", "[serving][pool]") {
  auto sim = [](const char* colocation) {
    const auto s = fleetsim::config::load_scenario("pool-colocation-slo", {"pool.duration=7 d", std::string("pool.colocation=") + colocation});
    return fleetsim::pool::simulate_pool(s, 1);
  };
  const auto tidal = sim("tidal"), none = sim("none");
  const auto& t = tidal.replications.at(0);
  const auto& n = none.replications.at(0);
  CHECK(t.inference_gpu_hours_lent > 0);
  CHECK(n.inference_gpu_hours_lent == 0);
  CHECK(t.allocation_share > n.allocation_share);
  CHECK(t.inference_slo_violation_share >= 0);
  CHECK(t.inference_slo_violation_share < 0.05);
}
