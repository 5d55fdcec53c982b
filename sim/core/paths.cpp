#include "sim/core/paths.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "sim/core/build_info.hpp"

namespace fleetsim {
namespace fs = std::filesystem;

namespace {

// The running executable's path (Linux: /proc/self/exe); empty when it cannot be read.
fs::path executable_path() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : p;
}

bool holds_catalog(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir / "models", ec);
}

std::string resolve_home() {
  if (const char* env = std::getenv("FLEETSIM_HOME"); env && *env) return env;
  const fs::path exe = executable_path();
  if (!exe.empty()) {
    const fs::path installed = exe.parent_path().parent_path() / "share" / "fleetsim";
    if (holds_catalog(installed)) return installed.string();
  }
  return build_source_dir();
}

}  // namespace

std::string home_dir() {
  // Resolved once: the environment and the executable do not change during a process.
  static const std::string home = resolve_home();
  return home;
}

std::string data_dir() { return home_dir() + "/data"; }

std::string validation_dir() { return data_dir() + "/validation"; }

}  // namespace fleetsim
