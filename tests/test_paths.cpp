#include "tests/test_paths.hpp"

namespace fleetsim::testing {

std::string fleetsim_binary() { return FLEETSIM_BINARY; }
std::string source_dir() { return FLEETSIM_SOURCE_DIR; }

}  // namespace fleetsim::testing
