// `fleetsim import`: published configurations in, scenario YAML out, and the round trip
// published args -> scenario -> predicted iteration time equal to the hand-written scenario's
// (Megatron-LM SC'21 Table 1 as the validation code writes it; a NeMo Llama 3.1 405B recipe).
#include <catch2/catch.hpp>

#include <limits>

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
#include "sim/units/quantity.hpp"
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
  // The recipe's TP overlap, asynchronous pipeline sends and fused gradient accumulation are
  // carried into the scenario (the schema has them), not reported as not modeled.
  CHECK(imp.unsupported.empty());
  CHECK(imp.tp_comm_overlap);
  CHECK(imp.overlap_p2p_comm);
  CHECK(imp.gradient_accumulation_fusion);
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
    tp_comm_overlap: true         # ub_tp_comm_overlap
    overlap_p2p_comm: true
  training:
    micro_batch_size: 1
    global_batch_size: 2016
    precision: bf16
    gradient_accumulation_fusion: true
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

TEST_CASE("import nemo: NVIDIA's launcher recipe for Llama 3.1 405B imports with nothing left out", "[import][unit]") {
  // NeMo-Framework-Launcher's own llama3_1_405b.yaml (tests/data/import/, byte for byte below its
  // header): every key the schema can express is carried; nothing is unknown or "not modeled".
  const importer::Imported imp = importer::read_nemo_recipe(data("nemo_launcher_llama3_1_405b.yaml"));
  for (const auto& u : imp.unknown) INFO("unknown: " << u);
  CHECK(imp.unknown.empty());
  for (const auto& u : imp.unsupported) INFO("not modeled: " << u);
  CHECK(imp.unsupported.empty());
  CHECK(imp.gpus == 576 * 8);
  CHECK(imp.distributed_optimizer);  // optim.name: mcore_distributed_optim
  CHECK(imp.tp_comm_overlap);
  CHECK(imp.overlap_p2p_comm);
  CHECK(imp.gradient_accumulation_fusion);
  CHECK_FALSE(imp.dropout);          // hidden_dropout: 0.0
  CHECK(imp.train_tokens == Approx(300000.0 * 2016 * 8192));
  const Scenario s = complete_and_load(importer::scenario_yaml(imp),
                                       "  gpu: h100-sxm-80gb\n  node: dgx-h100\n  fabric: llama3-clos\n", "launcher");
  const StepResult with = evaluate_step(s.cluster, s.workload);
  // The same scenario without the three keys, as the importer wrote it before it carried them.
  WorkloadSpec w = s.workload;
  w.parallel.tp_comm_overlap = w.parallel.overlap_p2p_comm = w.training.gradient_accumulation_fusion = false;
  const StepResult without = evaluate_step(s.cluster, w);
  std::printf("import NeMo launcher llama3_1_405b.yaml on 4,608 H100: %.2f s per iteration (%.1f GiB per GPU); "
              "without TP overlap, async p2p, fused accumulation %.2f s\n",
              with.iteration_time.si(), units::to_gib(with.memory_per_gpu), without.iteration_time.si());
  CHECK(with.fits_in_memory);
  CHECK(with.iteration_time < without.iteration_time);
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
  CHECK(imp.precision == "fp8");                 // --fp8-format: Transformer Engine FP8
  CHECK(imp.fp8_recipe == "delayed");            // Megatron's default --fp8-recipe
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

TEST_CASE("fleetsim import: the command prints the scenario and its notes, bad input exits 2", "[import][scenario]") {
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

TEST_CASE("import: counts at the bound are refused naming the key, never wrapped (fuzz reproducers)", "[import][unit]") {
  // Each was signed overflow (UBSan in fuzz/import_*_fuzz.cpp) or a silently wrapped int before
  // issue 30: PP x layers per virtual stage, 4 x hidden_size, the padded vocabulary, NeMo's
  // num_nodes x devices, and a NeMo integer above INT_MAX.
  const std::vector<std::string> base = {"--num-layers", "24", "--num-attention-heads", "24", "--seq-length", "2048",
                                         "--micro-batch-size", "1", "--global-batch-size", "8"};
  auto megatron_error = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    try {
      (void)importer::scenario_yaml(importer::read_megatron_args(args));
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(megatron_error({"--hidden-size", "2304", "--pipeline-model-parallel-size", "100000",
                        "--num-layers-per-virtual-pipeline-stage", "100000"})
            .find("--num-layers-per-virtual-pipeline-stage: 100000 does not divide") != std::string::npos);
  CHECK(megatron_error({"--hidden-size", "600000000"}).find("ffn_hidden_size: not given, and Megatron's default 4 x "
                                                            "hidden_size = 2400000000") != std::string::npos);
  CHECK(megatron_error({"--hidden-size", "2304", "--vocab-size", "1000000000", "--make-vocab-size-divisible-by",
                        "1000000000", "--tensor-model-parallel-size", "1000000000"})
            .find("vocab_size: padded to a multiple") != std::string::npos);
  auto nemo_error = [](const std::string& text) {
    try {
      (void)importer::scenario_yaml(importer::read_nemo_recipe_text(text, "r.yaml"));
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(nemo_error("trainer: {num_nodes: 1000000000, devices: 8}\nmodel: {num_layers: 2}\n")
            .find("r.yaml: trainer.num_nodes: 1000000000 nodes x trainer.devices 8 = 8000000000 GPUs; fleetsim's "
                  "limit is 1048576") != std::string::npos);
  CHECK(nemo_error("model: {num_layers: 4294967297}\n").find("model.num_layers: '4294967297' is not an integer from 0 "
                                                             "to 1000000000") != std::string::npos);
}

TEST_CASE("import: a token count beyond what a count can hold is refused naming the key (fuzz finding of issue 40)",
          "[import][unit]") {
  // scripts/fuzz found, in import_nemo_fuzz, train_tokens = 3e23 cast to long long in
  // scenario_yaml (undefined behaviour). Every float-to-integer conversion of an importer now goes
  // through input_integer (sim/core/checked.hpp): a ConfigError naming the key.
  try {
    (void)importer::scenario_yaml(importer::read_nemo_recipe_text(
        "trainer: {num_nodes: 1, devices: 8, max_steps: 1000000000}\n"
        "model: {num_layers: 2, global_batch_size: 1000000, encoder_seq_length: 300000000}\n", "r.yaml"));
    FAIL("accepted");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) == "r.yaml: trainer.max_steps: trainer.max_steps x global_batch_size x seq_length tokens "
                                   "= 3e+23 is out of range; valid: 0 to 1e+18");
  }
  try {
    (void)importer::scenario_yaml(importer::read_megatron_args(
        {"--num-layers", "24", "--hidden-size", "2304", "--num-attention-heads", "24", "--seq-length", "300000000",
         "--micro-batch-size", "1", "--global-batch-size", "1000000", "--train-iters", "1000000000"}));
    FAIL("accepted");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("--train-iters: --train-iters x --global-batch-size x --seq-length tokens = 3e+23 "
                                     "is out of range; valid: 0 to 1e+18") != std::string::npos);
  }
  // The writer's own backstop, for an Imported built by other code.
  importer::Imported imp = importer::read_megatron_args({"--num-layers", "24", "--hidden-size", "2304",
                                                         "--num-attention-heads", "24", "--seq-length", "2048",
                                                         "--micro-batch-size", "1", "--global-batch-size", "8"});
  imp.train_tokens = 3e23;
  CHECK_THROWS_AS(importer::scenario_yaml(imp), ConfigError);
  imp.train_tokens = std::numeric_limits<double>::infinity();
  CHECK_THROWS_AS(importer::scenario_yaml(imp), ConfigError);
}
