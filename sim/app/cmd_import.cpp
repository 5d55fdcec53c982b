// `fleetsim import megatron -- ARGS...` and `fleetsim import nemo FILE.yaml`: another tool's
// training configuration as a fleetsim scenario (model, layout, training) on stdout or -o FILE;
// what was ignored, not modeled, assumed or not understood is listed on stderr (sim/import/).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "sim/app/command.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/cli_guards.hpp"
#include "sim/core/error.hpp"
#include "sim/import/megatron_args.hpp"
#include "sim/import/nemo_recipe.hpp"

namespace fleetsim::app {
namespace {

struct ImportArgs {
  std::vector<std::string> megatron;
  std::string nemo;
  std::string output;
  bool strict = false;
};

void emit(const importer::Imported& imp, const ImportArgs& a) {
  const std::string yaml = importer::scenario_yaml(imp);
  std::cerr << importer::import_notes(imp);
  if (a.strict && (!imp.unknown.empty() || !imp.unsupported.empty()))
    throw ConfigError(imp.source, "--strict",
                      std::to_string(imp.unknown.size()) + " unknown and " + std::to_string(imp.unsupported.size()) +
                          " unsupported settings (listed above)");
  if (a.output.empty()) {
    std::cout << yaml;
    return;
  }
  write_file_atomically(a.output, "-o", "the scenario", [&](std::ostream& out) { out << yaml; });
  std::cerr << "scenario written to " << a.output << "\n";
}

}  // namespace

void add_import_command(CLI::App& app) {
  auto args = std::make_shared<ImportArgs>();
  auto* c = app.add_subcommand("import", "a Megatron-LM argument list or a NeMo recipe as a scenario (YAML)");
  c->require_subcommand(1);
  auto* m = c->add_subcommand("megatron", "pretrain_gpt.py arguments after '--', e.g. import megatron -- --num-layers 24 ...");
  m->add_option("-o,--output", args->output, "write the scenario here instead of stdout");
  m->add_flag("--strict", args->strict, "exit 2 when an argument is unknown or not modeled");
  m->add_option("ARGS", args->megatron, "the Megatron-LM arguments (after --)")->required();
  m->callback([args] {
    std::vector<std::string> argv;
    for (const auto& s : args->megatron) {  // one quoted string with a whole command line is fine too
      if (s.find_first_of(" \t\n") == std::string::npos) {
        argv.push_back(s);
        continue;
      }
      for (const auto& t : importer::split_command_line(s)) argv.push_back(t);
    }
    if (!args->output.empty()) guards::output_file(args->output, "-o", "the scenario");
    emit(importer::read_megatron_args(argv), *args);
  });
  auto* n = c->add_subcommand("nemo", "a NeMo (1.x launcher) or Megatron-Bridge recipe in YAML");
  n->add_option("FILE", args->nemo, "recipe YAML")->required();
  n->add_option("-o,--output", args->output, "write the scenario here instead of stdout");
  n->add_flag("--strict", args->strict, "exit 2 when a setting is unknown or not modeled");
  n->callback([args] {
    if (!args->output.empty()) guards::output_file(args->output, "-o", "the scenario");
    emit(importer::read_nemo_recipe(args->nemo), *args);
  });
}

}  // namespace fleetsim::app
