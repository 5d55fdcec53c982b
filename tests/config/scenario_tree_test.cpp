// The --set fuzz harness applies millions of --set lists to one tree read once
// (sim/config/scenario_tree.hpp) and keeps the catalog's files in memory (yaml_source.hpp). That
// is only a faithful test of `fleetsim --set` if both give what load_scenario gives and the tree
// is never written through, which these cases check.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/config/load.hpp"
#include "sim/config/resolve.hpp"
#include "sim/config/scenario_tree.hpp"
#include "sim/config/yaml_source.hpp"
#include "sim/core/error.hpp"

namespace {

// The resolved document, or the error's message.
template <class Load>
std::string outcome(Load load) {
  try {
    return load().resolved_yaml;
  } catch (const fleetsim::ConfigError& e) {
    return std::string("error: ") + e.what();
  }
}

}  // namespace

TEST_CASE("apply_sets on a tree read once equals load_scenario and leaves the tree as read", "[config]") {
  using namespace fleetsim::config;
  const ScenarioTree tree = read_scenario_tree("");
  const std::string before = YAML::Dump(tree.merged);
  const std::vector<std::vector<std::string>> lists = {
      {},
      {"cluster.gpus=8192", "workload.training.global_batch_size=1024"},
      {"cluster.gpu=a100-sxm-80gb"},
      {"cluster.gpu={memory: 40 GB}"},  // a preset name turned into a mapping by merge()
      {"cluster.gpus=7"},                // refused by the layout checks, after --set
      {"cluster.gpu_count=8"},           // refused by the schema
      {"cluster=[1, 2]"},
  };
  for (const auto& sets : lists) {
    INFO("--set " << join(sets, " --set "));
    const std::string want = outcome([&] { return load_scenario("", sets); });
    CHECK(outcome([&] { return apply_sets(tree, sets); }) == want);
    keep_files_in_memory(true);
    CHECK(outcome([&] { return apply_sets(tree, sets); }) == want);
    CHECK(outcome([&] { return apply_sets(tree, sets); }) == want);  // now from memory
    keep_files_in_memory(false);
    REQUIRE(YAML::Dump(tree.merged) == before);
  }
}

TEST_CASE("files kept in memory are served as first read until the memo is turned off", "[config]") {
  namespace fs = std::filesystem;
  using namespace fleetsim::config;
  const fs::path dir = fs::temp_directory_path() / ("fleetsim-tree-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::copy_file(default_scenario_path(), dir / "base.yaml", fs::copy_options::overwrite_existing);
  const auto write_top = [&](const std::string& description) {
    std::ofstream(dir / "top.yaml") << "extends: base.yaml\ndescription: " << description << "\n";
  };
  write_top("first");
  const std::string top = (dir / "top.yaml").string();

  keep_files_in_memory(true);
  CHECK(load_scenario(top).description == "first");
  write_top("second");
  CHECK(load_scenario(top).description == "first");  // what the fuzz harnesses want
  keep_files_in_memory(false);
  CHECK(load_scenario(top).description == "second");  // what fleetsim does: every load reads
  fs::remove_all(dir);
}
