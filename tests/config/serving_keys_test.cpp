// The serving: section refuses bad input with exit 2 naming the key (issue 39): an SLO below the
// one-token decode time, a model that does not fit in a replica, a request rate <= 0, an input
// beyond the model's context, a layout that does not divide the model.
#include <catch2/catch.hpp>

#include "sim/config/load.hpp"
#include "sim/core/error.hpp"
#include "sim/serving/serving_model.hpp"

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
