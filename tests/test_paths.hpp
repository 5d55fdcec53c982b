// Paths the tests need, fixed at build time in one translation unit (test_paths.cpp), so that the
// rest of the test sources compile the same in any checkout.
#pragma once

#include <string>

namespace fleetsim::testing {

std::string fleetsim_binary();  // the fleetsim executable built with these tests
std::string source_dir();       // the checkout the tests were built from

}  // namespace fleetsim::testing
