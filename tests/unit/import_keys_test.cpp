// `fleetsim import` follows the model: every workload key of the scenario schema is either set by
// a NeMo recipe key and a Megatron-LM argument the importers map (sim/import/key_map.hpp), or
// listed there with the reason it has none. A new schema key without a row, or a row whose
// spelling an importer leaves unknown, ignored or "not modeled", fails here.
#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/config/schema.hpp"
#include "sim/import/imported.hpp"
#include "sim/import/key_map.hpp"
#include "sim/import/megatron_args.hpp"
#include "sim/import/nemo_recipe.hpp"

using namespace fleetsim;
namespace fs = std::filesystem;

namespace {

// workload.model (the workloads preset's fields), workload.parallel, workload.training.
std::vector<std::string> schema_workload_keys() {
  std::vector<std::string> out;
  for (const auto& f : config::kind_schema("workloads")->fields) out.push_back("model." + f.name);
  const config::Field* workload = config::scenario_schema()->find("workload");
  REQUIRE(workload != nullptr);
  for (const char* part : {"parallel", "training"}) {
    const config::Field* sec = workload->section->find(part);
    REQUIRE(sec != nullptr);
    for (const auto& f : sec->section->fields) out.push_back(std::string(part) + "." + f.name);
  }
  return out;
}

// A nested YAML document from dotted keys.
std::string yaml_of(const std::map<std::string, std::string>& leaves) {
  struct Node {
    std::string value;
    std::map<std::string, Node> kids;
  };
  Node root;
  for (const auto& [k, v] : leaves) {
    Node* n = &root;
    size_t start = 0;
    while (true) {
      const size_t dot = k.find('.', start);
      n = &n->kids[k.substr(start, dot == std::string::npos ? std::string::npos : dot - start)];
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    n->value = v;
  }
  std::string out;
  std::function<void(const Node&, int)> write = [&](const Node& n, int depth) {
    for (const auto& [name, kid] : n.kids) {
      out += std::string(static_cast<size_t>(2 * depth), ' ') + name + ":";
      if (kid.kids.empty()) out += " " + kid.value + "\n";
      else {
        out += "\n";
        write(kid, depth + 1);
      }
    }
  };
  write(root, 0);
  return out;
}

const std::map<std::string, std::string> kNemoBase = {
    {"trainer.num_nodes", "1"},        {"trainer.devices", "8"},           {"trainer.precision", "bf16"},
    {"model.num_layers", "4"},         {"model.hidden_size", "256"},       {"model.num_attention_heads", "4"},
    {"model.encoder_seq_length", "512"}, {"model.vocab_size", "1000"},     {"model.global_batch_size", "8"},
    {"model.micro_batch_size", "1"}};
const std::vector<std::string> kMegatronBase = {"--num-layers", "4",   "--hidden-size",       "256", "--num-attention-heads",
                                                "4",            "--seq-length", "512",        "--vocab-size", "1000",
                                                "--global-batch-size", "8", "--micro-batch-size", "1", "--bf16"};

importer::Imported import_nemo(const std::map<std::string, std::string>& leaves) {
  const fs::path path = fs::temp_directory_path() / "fleetsim_import_keys.yaml";
  { std::ofstream(path) << yaml_of(leaves); }
  importer::Imported imp = importer::read_nemo_recipe(path.string());
  fs::remove(path);
  return imp;
}

// The setting named `key` did not reach the scenario if the importer lists it as unknown, ignored
// or not modeled.
void require_consumed(const importer::Imported& imp, const std::string& key) {
  for (const auto* list : {&imp.unknown, &imp.ignored, &imp.unsupported})
    for (const auto& line : *list) {
      INFO(key << " reported: " << line);
      CHECK(line.find(key) == std::string::npos);
    }
}

}  // namespace

TEST_CASE("every workload key of the scenario schema has an import mapping or a stated reason", "[import][unit][config]") {
  const auto& map = importer::workload_key_map();
  std::set<std::string> listed;
  for (const auto& m : map) {
    INFO(m.schema_key);
    CHECK(listed.insert(m.schema_key).second);  // one row per key
    // A side without a spelling says why.
    if (m.nemo.empty() || m.megatron.empty()) CHECK_FALSE(m.no_equivalent.empty());
  }
  const auto keys = schema_workload_keys();
  for (const auto& k : keys) {
    INFO("workload." << k << " has no row in sim/import/key_map.cpp (map it, or say why it has no recipe key)");
    CHECK(listed.count(k) == 1);
  }
  // No row for a key the schema no longer has.
  const std::set<std::string> schema(keys.begin(), keys.end());
  for (const auto& k : listed) {
    INFO("workload." << k << " is in key_map.cpp but not in the schema");
    CHECK(schema.count(k) == 1);
  }
}

TEST_CASE("import nemo carries every recipe key of the mapping into the scenario", "[import][unit]") {
  const std::string without = importer::scenario_yaml(import_nemo(kNemoBase));
  for (const auto& m : importer::workload_key_map())
    for (const auto& sp : m.nemo) {
      INFO(m.schema_key << " <- " << sp.key << ": " << sp.example);
      std::map<std::string, std::string> leaves = kNemoBase, context_only = kNemoBase;
      for (const auto& c : sp.context) {
        const auto eq = c.find('=');
        leaves[c.substr(0, eq)] = context_only[c.substr(0, eq)] = c.substr(eq + 1);
      }
      leaves[sp.key] = sp.example;
      const importer::Imported imp = import_nemo(leaves);
      require_consumed(imp, sp.key);
      // The value changes the scenario against the same recipe without it.
      CHECK(importer::scenario_yaml(imp) != importer::scenario_yaml(import_nemo(context_only)));
    }
  CHECK_FALSE(without.empty());
}

TEST_CASE("import megatron carries every argument of the mapping into the scenario", "[import][unit]") {
  for (const auto& m : importer::workload_key_map())
    for (const auto& sp : m.megatron) {
      INFO(m.schema_key << " <- " << sp.key << " " << sp.example);
      std::vector<std::string> context_only = kMegatronBase;
      context_only.insert(context_only.end(), sp.context.begin(), sp.context.end());
      std::vector<std::string> args = context_only;
      // A value replaces one the base already gives (argparse: the last occurrence wins).
      args.push_back(sp.key);
      if (!sp.example.empty()) args.push_back(sp.example);
      const importer::Imported imp = importer::read_megatron_args(args);
      require_consumed(imp, sp.key);
      CHECK(importer::scenario_yaml(imp) != importer::scenario_yaml(importer::read_megatron_args(context_only)));
    }
}
