#include "sim/core/files.hpp"

#include <filesystem>
#include <system_error>

namespace fleetsim {

std::string file_problem(const std::string& path, std::uintmax_t max_bytes, const std::string& what) {
  namespace fs = std::filesystem;
  if (path.empty()) return "is an empty path; expected " + what;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);  // follows symbolic links
  if (st.type() == fs::file_type::not_found || ec == std::errc::no_such_file_or_directory ||
      ec == std::errc::not_a_directory)
    return "does not exist";
  if (ec == std::errc::filename_too_long)
    return "is not a usable path (" + std::to_string(path.size()) + " characters): " + ec.message();
  if (ec) return "cannot be read: " + ec.message();
  if (fs::is_directory(st)) return "is a directory, expected " + what;
  if (!fs::is_regular_file(st))
    return "is not a regular file (a device, FIFO or socket, which may never end); expected " + what;
  const auto size = fs::file_size(path, ec);
  if (ec) return "cannot be read: " + ec.message();
  if (size > max_bytes)
    return "is " + std::to_string(size) + " bytes; the limit for " + what + " is " +
           std::to_string(max_bytes / (1024 * 1024)) + " MiB";
  return "";
}

}  // namespace fleetsim
