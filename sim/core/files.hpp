// Input files named by a user (scenario, extends target, preset, hourly climate CSV) are read only
// when they are regular files of bounded size: a FIFO would block forever, /dev/zero or
// /dev/urandom would never end, and a directory or an over-long name is an error to name.
#pragma once

#include <cstdint>
#include <string>

namespace fleetsim {

// Why `path` cannot be read as an input file, or "" when it can: it must exist, be a regular file
// (symbolic links followed), have a name the system accepts, and hold at most `max_bytes`.
// The phrases read after the path: "does not exist", "is a directory, expected a YAML file"...
// `what` names the expected content ("a YAML file", "a CSV file").
std::string file_problem(const std::string& path, std::uintmax_t max_bytes, const std::string& what);

}  // namespace fleetsim
