// `fleetsim import`: published configurations in, scenario YAML out, and the round trip
// published args -> scenario -> predicted iteration time equal to the hand-written scenario's
// (Megatron-LM SC'21 Table 1 as the validation code writes it; a NeMo Llama 3.1 405B recipe).
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

#include "sim/config/load.hpp"
#include "sim/core/error.hpp"
#include "sim/import/megatron_args.hpp"
#include "sim/import/nemo_recipe.hpp"
#include "sim/step/step_model.hpp"
#include "sim/reproduce/nemo.hpp"
#include "sim/reproduce/step_sources.hpp"
#include "tests/test_paths.hpp"

using namespace fleetsim;
namespace fs = std::filesystem;

namespace {

std::string data(const std::string& name) { return testing::source_dir() + "/tests/data/import/" + name; }

// The imported scenario completed with a cluster, as a user would: the lines go under `cluster:`.
Scenario complete_and_load(const std::string& yaml, const std::string& cluster_lines, const std::string& tag) {
  std::string text = yaml;
  const std::string anchor = "cluster:\n";
  const auto at = text.find(anchor);
  REQUIRE(at != std::string::npos);
  text.insert(at + anchor.size(), cluster_lines);
  const fs::path path = fs::temp_directory_path() / ("fleetsim_import_" + tag + ".yaml");
  { std::ofstream(path) << text; }
  Scenario s = config::load_scenario(path.string());
  fs::remove(path);
  return s;
}

struct ArgsRow {
  std::string size;
  int gpus = 0;
  std::vector<std::string> args;
};

std::vector<ArgsRow> sc21_args() {
  std::ifstream in(data("megatron_sc21_run_table_1.args"));
  REQUIRE(in);
  std::vector<ArgsRow> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    ArgsRow r;
    ls >> r.size >> r.gpus;
    std::string tok;
    while (ls >> tok) r.args.push_back(tok);
    rows.push_back(r);
  }
  return rows;
}

double relative(double a, double b) { return std::fabs(a - b) / b; }

}  // namespace

TEST_CASE("import megatron: SC'21 run_table_1.sh arguments give the validation scenarios' iteration times",
          "[import][unit]") {
  const auto rows = sc21_args();
  const auto cases = reproduce::megatron_sc21_table1_cases();
  REQUIRE(rows.size() == cases.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    const reproduce::StepCase& c = cases[i];
    INFO(row.size << " (" << c.name << ")");
    const importer::Imported imp = importer::read_megatron_args(row.args);
    CHECK(imp.unknown.empty());
    const Scenario s = complete_and_load(importer::scenario_yaml(imp),
                                         "  gpu: a100-sxm-80gb\n  gpus: " + std::to_string(row.gpus) +
                                             "\n  node: dgx-a100\n  fabric: selene-fat-tree\n",
                                         "sc21");
    const auto& m = s.workload.model;
    const auto& hm = c.scenario.workload.model;
    REQUIRE(m.num_layers == hm.num_layers);
    REQUIRE(m.hidden_size == hm.hidden_size);
    REQUIRE(s.cluster.gpus == c.scenario.cluster.gpus);
    const double hand = evaluate_step(c.scenario.cluster, c.scenario.workload).iteration_time.si();
    const double imported = evaluate_step(s.cluster, s.workload).iteration_time.si();
    // Megatron pads the GPT-2 vocabulary (50,257) to a multiple of 128 x TP: 51,200 at TP 8, the
    // table's V; 50,304 / 50,432 / 50,688 at TP 1 / 2 / 4, where the paper's eq. 3 still uses 51,200.
    if (m.vocab_size == hm.vocab_size) {
      std::printf("import round trip %-5s TP%d: imported %.6f s, hand-written %.6f s, |diff| %.1e\n", row.size.c_str(),
                  imp.tp, imported, hand, relative(imported, hand));
      CHECK(relative(imported, hand) < 1e-12);
    } else {
      WorkloadSpec w = s.workload;
      w.model.vocab_size = hm.vocab_size;
      const double same_vocab = evaluate_step(s.cluster, w).iteration_time.si();
      std::printf("import round trip %-5s TP%d: imported %.6f s (vocab %d, Megatron's padding), hand-written %.6f s "
                  "(vocab %d): %+.2f%%; with the table's vocab %.1e\n",
                  row.size.c_str(), imp.tp, imported, m.vocab_size, hand, hm.vocab_size,
                  100 * (imported - hand) / hand, relative(same_vocab, hand));
      CHECK(m.vocab_size == importer::padded_vocab(50257, 128, imp.tp));
      CHECK(relative(same_vocab, hand) < 1e-12);
    }
  }
}

TEST_CASE("import nemo: the Llama 3.1 405B recipe gives the hand-written scenario's iteration time", "[import][unit]") {
  const importer::Imported imp = importer::read_nemo_recipe(data("nemo_llama3_1_405b.yaml"));
  CHECK(imp.gpus == 576 * 8);
  CHECK(imp.unknown.empty());
  // Read but not modeled: listed, not dropped.
  bool tp_overlap = false, p2p_overlap = false;
  for (const auto& u : imp.unsupported) {
    tp_overlap |= u.find("TP communication overlap") != std::string::npos;
    p2p_overlap |= u.find("overlap_p2p_comm") != std::string::npos;
  }
  CHECK(tp_overlap);
  CHECK(p2p_overlap);
  const Scenario s = complete_and_load(importer::scenario_yaml(imp),
                                       "  gpu: h100-sxm-80gb\n  node: dgx-h100\n  fabric: llama3-clos\n", "nemo");
  // What a person writes from the same recipe.
  const fs::path hand_path = fs::temp_directory_path() / "fleetsim_import_nemo_hand.yaml";
  {
    std::ofstream(hand_path) << R"(description: Llama 3.1 405B as NeMo's launcher recipe lays it out, by hand
cluster: {gpu: h100-sxm-80gb, gpus: 4608, node: dgx-h100, fabric: llama3-clos}
workload:
  model:
    preset: llama3-405b
    num_query_groups: 16          # the recipe's value
    vocab_size: 129024            # Llama 3 tokenizer 128,256 padded to a multiple of 128 x TP 8
    untie_embeddings_and_output_weights: true
  parallel:
    tensor_model_parallel_size: 8
    pipeline_model_parallel_size: 9
    virtual_pipeline_model_parallel_size: 7
    context_parallel_size: 2
    sequence_parallel: true
    use_distributed_optimizer: true
    overlap_grad_reduce: true
    overlap_param_gather: true
  training:
    micro_batch_size: 1
    global_batch_size: 2016
    precision: bf16
)";
  }
  const Scenario hand = config::load_scenario(hand_path.string());
  fs::remove(hand_path);
  const double t_imp = evaluate_step(s.cluster, s.workload).iteration_time.si();
  const double t_hand = evaluate_step(hand.cluster, hand.workload).iteration_time.si();
  std::printf("import round trip NeMo Llama 3.1 405B on 4,608 H100: imported %.6f s, hand-written %.6f s\n", t_imp,
              t_hand);
  CHECK(relative(t_imp, t_hand) < 1e-12);
}

TEST_CASE("import megatron: unknown and unsupported arguments are listed, bad values refused", "[import][unit]") {
  const std::vector<std::string> args = {"--num-layers", "2", "--hidden-size", "256", "--num-attention-heads", "4",
                                         "--seq-length", "512", "--vocab-size", "1000", "--global-batch-size", "8",
                                         "--bf16", "--fp8-format", "hybrid", "--frobnicate", "3", "--lr", "1e-4",
                                         "--swiglu", "--group-query-attention", "--num-query-groups", "2"};
  const importer::Imported imp = importer::read_megatron_args(args);
  REQUIRE(imp.unknown.size() == 1);
  CHECK(imp.unknown[0] == "--frobnicate 3");
  REQUIRE(imp.ignored.size() == 1);
  CHECK(imp.ignored[0] == "--lr 1e-4");
  bool fp8 = false;
  for (const auto& u : imp.unsupported) fp8 |= u.find("--fp8-format hybrid") != std::string::npos;
  CHECK(fp8);
  CHECK(imp.vocab_size == 1024);                 // padded to a multiple of 128
  CHECK(imp.ffn_hidden_size == 640);             // SwiGLU default: 2/3 of 4h, multiple of 64
  CHECK(imp.num_query_groups == 2);
  CHECK_THROWS_AS(importer::read_megatron_args({"--num-layers", "many"}), ConfigError);
  CHECK_THROWS_AS(importer::scenario_yaml(importer::read_megatron_args({"--num-layers", "2"})), ConfigError);
}

namespace {
struct Run {
  int code = -1;
  std::string out;
};
Run fleetsim_cli(const std::string& args) {
  const std::string cmd = testing::fleetsim_binary() + " " + args + " 2>&1";
  Run r;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}
}  // namespace

TEST_CASE("fleetsim import: the command prints the scenario and its notes; bad input exits 2", "[import][scenario]") {
  const Run ok = fleetsim_cli("import megatron -- --num-layers 2 --hidden-size 256 --num-attention-heads 4 "
                              "--seq-length 512 --vocab-size 1000 --global-batch-size 8 --bf16 --frobnicate 3");
  CHECK(ok.code == 0);
  CHECK(ok.out.find("num_layers: 2") != std::string::npos);
  CHECK(ok.out.find("unknown, not imported: --frobnicate 3") != std::string::npos);
  const Run strict = fleetsim_cli("import megatron --strict -- --num-layers 2 --hidden-size 256 --num-attention-heads 4 "
                                  "--seq-length 512 --vocab-size 1000 --global-batch-size 8 --bf16 --frobnicate 3");
  CHECK(strict.code == 2);
  const Run missing = fleetsim_cli("import nemo /nonexistent/recipe.yaml");
  CHECK(missing.code == 2);
  CHECK(missing.out.find("/nonexistent/recipe.yaml") != std::string::npos);
}
