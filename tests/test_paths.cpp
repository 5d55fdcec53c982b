#include "tests/test_paths.hpp"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <stdexcept>

namespace fleetsim::testing {

std::string fleetsim_binary() { return FLEETSIM_BINARY; }
std::string source_dir() { return FLEETSIM_SOURCE_DIR; }

Outcome run_shell(const std::string& command) {
  Outcome o;
  FILE* p = popen(command.c_str(), "r");
  if (!p) throw std::runtime_error("cannot start: " + command);
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) o.out.append(buf.data(), n);
  const int status = pclose(p);
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

}  // namespace fleetsim::testing
