#include "sim/core/cli_guards.hpp"

#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "sim/core/error.hpp"
#include "sim/core/files.hpp"

namespace fleetsim::guards {
namespace fs = std::filesystem;
namespace {

std::string quoted(const std::string& path) { return "'" + path + "'"; }

// Why `dir` cannot hold new files, or "".
std::string folder_problem(const fs::path& dir) {
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (ec == std::errc::filename_too_long) return "its folder name is too long";
  if (st.type() == fs::file_type::not_found || ec == std::errc::no_such_file_or_directory)
    return "its folder " + quoted(dir.string()) + " does not exist";
  if (ec == std::errc::not_a_directory || (!ec && !fs::is_directory(st)))
    return quoted(dir.string()) + " is not a folder";
  if (ec) return "its folder " + quoted(dir.string()) + " cannot be used: " + ec.message();
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return "its folder " + quoted(dir.string()) + " is not writable";
  return "";
}

}  // namespace

void input_file(const std::string& path, const std::string& option, const std::string& what, std::uintmax_t max_bytes) {
  if (const std::string problem = file_problem(path, max_bytes, what); !problem.empty())
    throw ConfigError("", option, quoted(path) + " " + problem);
}

void output_file(const std::string& path, const std::string& option, const std::string& what) {
  if (path.empty()) throw ConfigError("", option, "an empty path; give a file name for " + what);
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec == std::errc::filename_too_long)
    throw ConfigError("", option, quoted(path) + " is not a usable path (" + std::to_string(path.size()) +
                                      " characters): " + ec.message());
  if (!ec && fs::is_directory(st))
    throw ConfigError("", option, quoted(path) + " is a directory; give a file name for " + what);
  if (!ec && fs::exists(st) && !fs::is_regular_file(st))
    throw ConfigError("", option, quoted(path) + " is not a regular file (a device, FIFO or socket); " + what +
                                      " is written to a new or regular file");
  const fs::path parent = fs::absolute(fs::path(path), ec).parent_path();
  if (const std::string problem = folder_problem(parent); !problem.empty())
    throw ConfigError("", option, "cannot write " + what + " to " + quoted(path) + ": " + problem);
}

void output_dir(const std::string& path, const std::string& option) {
  if (path.empty()) throw ConfigError("", option, "an empty path; give a directory");
  std::error_code ec;
  fs::path p = fs::absolute(fs::path(path), ec);
  const fs::file_status st = fs::status(p, ec);
  if (ec == std::errc::filename_too_long)
    throw ConfigError("", option, quoted(path) + " is not a usable path (" + std::to_string(path.size()) +
                                      " characters): " + ec.message());
  if (!ec && fs::exists(st)) {
    if (!fs::is_directory(st)) throw ConfigError("", option, quoted(path) + " exists and is not a directory");
    if (::access(p.c_str(), W_OK | X_OK) != 0) throw ConfigError("", option, quoted(path) + " is not writable");
    return;
  }
  // The nearest existing ancestor must be a writable directory: the rest is created.
  for (p = p.parent_path(); !p.empty(); p = p.parent_path()) {
    const fs::file_status a = fs::status(p, ec);
    if (ec == std::errc::not_a_directory || (!ec && fs::exists(a) && !fs::is_directory(a)))
      throw ConfigError("", option, "cannot create " + quoted(path) + ": " + quoted(p.string()) + " is not a directory");
    if (!ec && fs::is_directory(a)) {
      if (::access(p.c_str(), W_OK | X_OK) != 0)
        throw ConfigError("", option, "cannot create " + quoted(path) + ": " + quoted(p.string()) + " is not writable");
      return;
    }
    if (p == p.root_path()) break;
  }
}

void count(long long value, const std::string& option, long long min, long long max, const std::string& meaning) {
  if (value < min || value > max)
    throw ConfigError("", option, std::to_string(value) + " " + meaning + " is out of range; give " +
                                      std::to_string(min) + " to " + std::to_string(max));
}

}  // namespace fleetsim::guards
