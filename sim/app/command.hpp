// Each subcommand lives in its own file and registers itself on the CLI11 app from main().
// Callbacks throw ConfigError / InfeasibleError on bad input; main() maps them to exit code 2.
#pragma once

#include <CLI/CLI.hpp>

namespace fleetsim::app {

void add_run_command(CLI::App& app);
void add_step_command(CLI::App& app);
void add_search_command(CLI::App& app);
void add_validate_command(CLI::App& app);
void add_catalog_commands(CLI::App& app);   // list, describe
void add_sweep_command(CLI::App& app);
void add_import_command(CLI::App& app);   // import megatron | nemo
void add_pool_command(CLI::App& app);
void add_plan_command(CLI::App& app);   // plan, plan --target (sim/plan)
void add_serve_command(CLI::App& app);  // the browser studio (sim/serve)
void add_calibrate_command(CLI::App& app);  // calibrate (sim/calibrate)

}  // namespace fleetsim::app
