#include "sim/core/atomic_file.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "sim/core/cli_guards.hpp"
#include "sim/core/error.hpp"

namespace fleetsim {
namespace fs = std::filesystem;
namespace {

std::string in_quotes(const std::string& path) { return "'" + path + "'"; }

// Removes "PATH.tmp.PID" files left next to `path` by a writer that was killed before it could
// commit. A file whose process still exists is left alone: it may be a run writing right now.
void remove_stale_temporaries(const std::string& path) {
  const fs::path target(path);
  const std::string prefix = target.filename().string() + ".tmp.";
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto pid = static_cast<pid_t>(std::stol(digits));
    if (pid == ::getpid() || (::kill(pid, 0) == 0 || errno != ESRCH)) continue;
    std::error_code rm;
    if (fs::is_regular_file(fs::symlink_status(it->path(), rm))) fs::remove(it->path(), rm);
  }
}

}  // namespace

AtomicFile::AtomicFile(std::string path, std::string option, std::string what)
    : path_(std::move(path)), option_(std::move(option)), what_(std::move(what)) {
  guards::output_file(path_, option_, what_);
  tmp_ = path_ + ".tmp." + std::to_string(::getpid());
  remove_stale_temporaries(path_);
}

AtomicFile::~AtomicFile() {
  if (committed_) return;
  std::error_code ec;
  if (fs::is_regular_file(fs::symlink_status(tmp_, ec))) fs::remove(tmp_, ec);
}

void AtomicFile::commit() {
  auto refuse = [&](const std::string& message) {
    std::error_code ec;
    fs::remove(tmp_, ec);
    throw ConfigError("", option_, message);
  };
  std::error_code ec;
  const fs::file_status st = fs::status(path_, ec);  // a symbolic link: what it points to
  if (!ec && fs::is_directory(st))
    refuse(in_quotes(path_) + " is a directory; give a file name for " + what_);
  if (!ec && fs::exists(st) && !fs::is_regular_file(st))
    refuse(in_quotes(path_) + " is not a regular file (a device, FIFO or socket); " + what_ +
           " is written to a new or regular file");
  fs::rename(tmp_, path_, ec);
  if (ec) refuse("cannot move " + what_ + " into place at " + in_quotes(path_) + ": " + ec.message());
  committed_ = true;
}

void write_file_atomically(const std::string& path, const std::string& option, const std::string& what,
                           const std::function<void(std::ostream&)>& body) {
  AtomicFile file(path, option, what);
  {
    std::ofstream out(file.temporary(), std::ios::binary | std::ios::trunc);
    if (!out) throw ConfigError("", option, "cannot write " + what + " to " + in_quotes(path) + " (is its folder writable?)");
    body(out);
    out.flush();
    if (!out) throw ConfigError("", option, "writing " + what + " to " + in_quotes(path) + " failed (disk full?)");
  }
  file.commit();
}

}  // namespace fleetsim
