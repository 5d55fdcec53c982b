// Every file in tests/config/bad/ must be refused before anything runs, with a ConfigError that
// names the file and contains the message given on its "# expect:" line.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "sim/config/load.hpp"
#include "sim/config/resolve.hpp"
#include "sim/config/yaml_source.hpp"
#include "sim/core/error.hpp"
#include "tests/test_paths.hpp"

namespace fs = std::filesystem;

namespace {
std::string expected_message(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  if (!line.empty() && line.back() == '\r') line.pop_back();  // crlf_unknown_key.yaml
  const std::string tag = "# expect: ";
  if (line.rfind(tag, 0) == 0) return line.substr(tag.size());
  return "is empty";  // empty.yaml has no room for a comment
}
}  // namespace

TEST_CASE("every bad scenario in the corpus is refused with its message", "[config]") {
  const fs::path dir = fs::path(fleetsim::testing::source_dir()) / "tests/config/bad";
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string expect = expected_message(entry.path());
    INFO("scenario " << entry.path().filename().string() << " should fail with: " << expect);
    try {
      fleetsim::config::load_scenario(entry.path().string());
      FAIL("accepted a bad scenario");
    } catch (const fleetsim::ConfigError& e) {
      const std::string what = e.what();
      INFO("got: " << what);
      CHECK(what.find(expect) != std::string::npos);
      CHECK(what.find(".yaml") != std::string::npos);  // names a file
      CHECK(what.find('\r') == std::string::npos);      // no raw control characters
    } catch (const std::exception& e) {
      FAIL("refused with " << e.what() << " instead of a ConfigError");
    }
    ++checked;
  }
  CHECK(checked >= 48);
}

TEST_CASE("a --set override is checked like the file and names the command line", "[config]") {
  using fleetsim::config::load_scenario;
  auto message = [](std::vector<std::string> sets) {
    try {
      load_scenario("", sets);
    } catch (const fleetsim::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(message({"cluster.gpus=abc"}).find("--set cluster.gpus=abc: cluster.gpus: 'abc' is not an integer") != std::string::npos);
  CHECK(message({"cluster.fabric.oversubscription=0.5"}).find("must be >= 1") != std::string::npos);
  CHECK(message({"checkpoint.interval=30"}).find("has no unit") != std::string::npos);
  CHECK(message({"nonsense"}).find("expected key.path=value") != std::string::npos);
  CHECK(message({"workload.parallel.tensor_model_parallel_size=3"}).find("after --set") != std::string::npos);
}

TEST_CASE("overrides reach preset fields given by name", "[config]") {
  auto s = fleetsim::config::load_scenario("", {"cluster.fabric.oversubscription=4", "cluster.gpus=8192",
                                               "checkpoint.interval=30 min"});
  CHECK(s.cluster.fabric.oversubscription == 4.0);
  CHECK(s.cluster.fabric.name == "llama3-clos");
  CHECK(s.cluster.fabric.pod_oversubscription == 7.0);  // the rest of the preset is kept
  CHECK(s.workload.parallel.data_parallel_size == 64);
  CHECK(s.checkpoint.interval.si() == Approx(1800.0));
}

TEST_CASE("the default scenario is Llama 3 405B on 16,384 H100 as Table 4 describes it", "[config]") {
  auto s = fleetsim::config::load_scenario("");
  CHECK(s.cluster.gpus == 16384);
  CHECK(s.cluster.gpu.name == "h100-sxm-80gb");
  CHECK(s.workload.model.num_layers == 126);
  CHECK(s.workload.parallel.tensor_model_parallel_size == 8);
  CHECK(s.workload.parallel.pipeline_model_parallel_size == 16);
  CHECK(s.workload.parallel.data_parallel_size == 128);
  CHECK(s.workload.training.global_batch_size == 2048);
  CHECK(s.run.duration.si() == Approx(54 * 86400.0));
}

TEST_CASE("a YAML alias bomb cannot make the loader walk more nodes than its budget", "[config]") {
  // Ten levels of ten aliases each would be 10^10 nodes once expanded.
  std::string doc = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 10; ++i) {
    doc += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) doc += (k ? ", *l" : "*l") + std::to_string(i - 1);
    doc += "]\n";
  }
  YAML::Node node = fleetsim::config::parse_yaml_text(doc, "bomb.yaml");
  fleetsim::config::Resolver r(100000);
  CHECK_THROWS_WITH(r.clone(node), Catch::Contains("too many nodes"));
}
