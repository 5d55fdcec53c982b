// fleetsim: the command line. Subcommands live in cmd_*.cpp; this file only maps errors to exit
// codes: 0 success, 1 internal error, 2 bad input (scenario, layout, arguments).
#include <CLI/CLI.hpp>

#include <iostream>

#include "sim/app/command.hpp"
#include "sim/core/error.hpp"
#include "sim/pipeline/tier.hpp"

int main(int argc, char** argv) {
  CLI::App app{"fleetsim: a discrete-event simulator of large-model training on GPU clusters.\n"
               "Predicts MFU, scaling loss, failure-driven downtime (ETTR), facility energy and the\n"
               "five-factor effective utilization from one scenario file."};
  app.set_version_flag("--version", std::string("fleetsim ") + FLEETSIM_VERSION + " (" + FLEETSIM_GIT_REVISION + ")");
  app.require_subcommand(1);
  fleetsim::app::add_run_command(app);
  fleetsim::app::add_step_command(app);
  fleetsim::app::add_search_command(app);
  fleetsim::app::add_validate_command(app);
  fleetsim::app::add_catalog_commands(app);
  fleetsim::app::add_sweep_command(app);
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
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
