// fleetsim: the command line. Subcommands live in cmd_*.cpp; this file only maps errors to exit
// codes: 0 success, 1 internal error, 2 bad input (scenario, layout, arguments, paths).
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>

#include "sim/app/command.hpp"
#include "sim/core/build_info.hpp"
#include "sim/core/paths.hpp"
#include "sim/core/error.hpp"
#include "sim/pipeline/tier.hpp"
#include "sim/simgrid/simgrid_tier.hpp"

int main(int argc, char** argv) {
  CLI::App app{"fleetsim: a discrete-event simulator of large-model training on GPU clusters.\n"
               "Predicts MFU, scaling loss, failure-driven downtime (ETTR), facility energy and the\n"
               "five-factor effective utilization from one scenario file."};
  // The version line also names the home the binary reads its catalog and data from (paths.hpp),
  // so a user (and the install test) can see which copy an installed binary uses.
  app.set_version_flag("--version", std::string("fleetsim ") + fleetsim::fleetsim_version() + " (" +
                                        fleetsim::git_revision() + ")\nhome " + fleetsim::home_dir());
  app.require_subcommand(1);
  // Expert pass-through to SimGrid (the simgrid tier of step, run, search --verify), given before
  // or after the subcommand: --sg-cfg network/model:CM02 (repeatable), --sg-verbose.
  app.fallthrough();
  auto sg = std::make_shared<fleetsim::SimgridOptions>();
  app.add_option("--sg-cfg", "SimGrid --cfg setting key:value for the simgrid tier (repeatable)")
      ->each([sg](const std::string& kv) {
        sg->cfg.push_back(kv);
        fleetsim::set_simgrid_default_options(*sg);
      });
  app.add_flag_callback("--sg-verbose", [sg] {
    sg->verbose = true;
    fleetsim::set_simgrid_default_options(*sg);
  }, "keep SimGrid's log output");
  fleetsim::app::add_run_command(app);
  fleetsim::app::add_step_command(app);
  fleetsim::app::add_search_command(app);
  fleetsim::app::add_validate_command(app);
  fleetsim::app::add_catalog_commands(app);
  fleetsim::app::add_sweep_command(app);
  fleetsim::app::add_import_command(app);
  fleetsim::app::add_pool_command(app);
  fleetsim::app::add_plan_command(app);
  fleetsim::app::add_serve_command(app);
  fleetsim::app::add_calibrate_command(app);
  fleetsim::install_simgrid_tier();
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();  // a command's own failure status (validate: a case out of tolerance)
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const fleetsim::ConfigError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const fleetsim::InfeasibleError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    // A path given on the command line that cannot be used (an output folder, a sweep directory).
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
