// The one Catch2 main of the test suite; installs the SimGrid tier like the fleetsim binary does.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "sim/pipeline/tier.hpp"

int main(int argc, char* argv[]) {
  fleetsim::install_simgrid_tier();
  return Catch::Session().run(argc, argv);
}
