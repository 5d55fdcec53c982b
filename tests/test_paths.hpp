// Paths the tests need and how they run a command, fixed at build time in one translation unit (test_paths.cpp), so that the
// rest of the test sources compile the same in any checkout.
#pragma once

#include <string>

namespace fleetsim::testing {

std::string fleetsim_binary();  // the fleetsim executable built with these tests
std::string source_dir();       // the checkout the tests were built from

// A shell command's exit code (-1 if it did not exit normally) and what it wrote to stdout.
struct Outcome {
  int code = -1;
  std::string out;
};
Outcome run_shell(const std::string& command);

}  // namespace fleetsim::testing
