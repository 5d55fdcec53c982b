// What the studio (fleetsim serve) takes from a browser: names and scenario text, never a path
// (sim/serve/client_input.hpp); and the engine's answers: the cache, cancellation, and the
// downloadable scenario that reproduces a request.
#include <catch2/catch.hpp>

#include <atomic>

#include "sim/config/catalog.hpp"
#include "sim/config/load.hpp"
#include "sim/core/error.hpp"
#include "sim/core/paths.hpp"
#include "sim/serve/client_input.hpp"
#include "sim/serve/studio.hpp"

#include <fstream>
#include <sstream>

using namespace fleetsim;
using serve::looks_like_path;

TEST_CASE("a client's value that reads as a path is told apart from a quantity", "[unit][serve]") {
  for (const char* path : {"/etc/passwd", "../models/gpus/h100", "~/x", "./h100", "gpus/h100", "h100.yaml", "x.CSV",
                           "a\\b", "h100/1", "foo/bar/baz", "..", "data/site.csv", "1/2"})
    CHECK(looks_like_path(path));
  for (const char* value : {"h100-sxm-80gb", "3.35 TB/s", "2TB/s", "0.4 kg/kWh", "normal(2 TB/s, 5%)", "25 GB/s", "8192",
                            "daly", "30 min", ".5", "1e3 GB/s", "833 /h", "0 /d", "[15,16,16,16,16,16,16,15]", "llama3-405b"})
    CHECK_FALSE(looks_like_path(value));
}

TEST_CASE("a client's --set that names a file is refused with its key", "[unit][serve]") {
  auto refused_key = [](const std::string& set) {
    try {
      serve::check_client_set(set);
    } catch (const ConfigError& e) {
      return e.key();
    }
    return std::string("(accepted)");
  };
  CHECK(refused_key("cluster.gpu=/etc/passwd") == "cluster.gpu");
  CHECK(refused_key("cluster.fabric={preset: ../x.yaml}") == "cluster.fabric.preset");
  CHECK(refused_key("facility.site.hourly_csv=temps") == "facility.site.hourly_csv");
  CHECK(refused_key("pool.training.trace=jobs") == "pool.training.trace");
  CHECK(refused_key("cluster.gpus") == "");
  CHECK(refused_key("cluster.gpus=8192") == "(accepted)");
  CHECK(refused_key("checkpoint.storage_bandwidth=3.2 TB/s") == "(accepted)");
}

TEST_CASE("every shipped scenario passes the upload check, and an upload extends shipped scenarios only", "[unit][serve]") {
  for (const auto& name : config::list_scenarios()) {
    std::ifstream in(config::scenarios_dir() + "/" + name + ".yaml");
    std::stringstream text;
    text << in.rdbuf();
    INFO(name);
    CHECK_NOTHROW(serve::check_client_scenario_text(text.str(), "uploaded.yaml"));
  }
  CHECK_THROWS_AS(serve::check_client_scenario_text("extends: /etc/passwd\n", "uploaded.yaml"), ConfigError);
  CHECK_THROWS_AS(serve::check_client_scenario_text("extends: ../../x.yaml\n", "uploaded.yaml"), ConfigError);
  CHECK_NOTHROW(serve::check_client_scenario_text("extends: llama3-405b-16k.yaml\ncluster: {gpus: 8192}\n", "uploaded.yaml"));
  CHECK_THROWS_AS(serve::check_client_scenario_text(std::string(serve::kMaxUploadBytes + 1, '#'), "uploaded.yaml"), ConfigError);
  CHECK_THROWS_AS(serve::check_client_scenario_text("[1, 2]", "uploaded.yaml"), ConfigError);
  // A billion laughs: nine levels of ten aliases is 10^9 values once expanded; refused at once.
  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 9; ++i) {
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) bomb += (k ? ", *a" : "*a") + std::to_string(i - 1);
    bomb += "]\n";
  }
  CHECK_THROWS_AS(serve::check_client_scenario_text(bomb, "uploaded.yaml"), ConfigError);
}

TEST_CASE("the studio answers a state once, then from its cache, and a refused progress cancels the run", "[unit][serve]") {
  serve::Studio studio(1);
  serve::ScenarioRequest r;
  r.sets = {"run.replications=3", "run.duration=5 d", "cluster.gpus=8192"};
  const auto p = studio.prepare(r);
  CHECK(studio.cached(p.key) == nullptr);
  int calls = 0;
  const auto first = studio.run(p, [&](int, int) { return ++calls > 0; });
  CHECK(calls == 3);
  CHECK(studio.cached(p.key) == first);
  // The same state spelled differently (the default scenario by name) resolves to the same key.
  serve::ScenarioRequest named = r;
  named.scenario = "llama3-405b-16k";
  CHECK(studio.prepare(named).key == p.key);
  serve::ScenarioRequest other = r;
  other.sets.push_back("failures.rate_scale=2");
  const auto q = studio.prepare(other);
  CHECK_THROWS_AS(studio.run(q, [](int, int) { return false; }), serve::Cancelled);
  CHECK(studio.cached(q.key) == nullptr);
}

TEST_CASE("the downloaded scenario resolves to the request's scenario", "[unit][serve]") {
  serve::Studio studio(1);
  serve::ScenarioRequest r;
  r.sets = {"cluster.gpus=8192", "cluster.fabric.oversubscription=2", "checkpoint.interval=30 min",
            "failures.rate_scale=1.5", "workload.training.precision=fp8"};
  const auto p = studio.prepare(r);
  const std::string yaml = studio.scenario_yaml(p);
  CHECK(yaml.find("extends: llama3-405b-16k.yaml") != std::string::npos);
  CHECK(config::load_scenario_text(yaml, config::scenarios_dir() + "/x.yaml").resolved_yaml == p.scenario.resolved_yaml);
  // An upload: its own text with the overrides merged in.
  serve::ScenarioRequest up;
  up.upload = "extends: h100-10k.yaml\ndescription: mine\n";
  up.sets = {"failures.rate_scale=2", "cluster.fabric.oversubscription=2"};
  const auto pu = studio.prepare(up);
  CHECK(config::load_scenario_text(studio.scenario_yaml(pu), config::scenarios_dir() + "/y.yaml").resolved_yaml ==
        pu.scenario.resolved_yaml);
}

TEST_CASE("a message shown to a client names catalog files relative to the catalog", "[unit][serve]") {
  CHECK(serve::client_message(home_dir() + "/scenarios/a.yaml: x") == "scenarios/a.yaml: x");
  CHECK(serve::client_message(home_dir() + "/scenarios/uploaded.yaml: cluster.gpus: bad") == "uploaded.yaml: cluster.gpus: bad");
}
