// Guards for what a command reads and writes and the counts it takes from the command line, so
// that every command refuses bad input the same way: a ConfigError (exit 2) naming the option, the
// path and what would be valid, before any work is done (a bad -o costs nothing, not a finished
// run), never a hang on a FIFO, a read of /dev/zero, or a rename over a device or a directory.
// Used by run, step, pool, sweep, search and import (sim/app/cmd_*.cpp); a new command calls the
// same ones for its own options.
#pragma once

#include <cstdint>
#include <string>

namespace fleetsim::guards {

// An input file named by `option` ("FILE", "--space-file"): it must exist, be a regular file
// (symbolic links followed; not a FIFO, device, socket or directory) of at most `max_bytes`, with
// a name the system accepts. `what` names the expected content: "a YAML recipe", "a CSV file".
void input_file(const std::string& path, const std::string& option, const std::string& what,
                std::uintmax_t max_bytes = 64u << 20);

// An output file that is written atomically (a temporary next to it, then renamed over it): the
// path must be a regular file or nothing yet, never a directory, device, FIFO or socket (a rename
// would replace the node: as root, `-o /dev/null` would delete the device); its folder must exist
// and be writable. `what` names the file: "the results file", "the trace".
void output_file(const std::string& path, const std::string& option, const std::string& what);

// An output directory: an existing directory, or a new path whose nearest existing ancestor is a
// writable directory (it is created). Refuses a path that is or passes through a file.
void output_dir(const std::string& path, const std::string& option);

// A count from the command line: `value` within [min, max], else the option, the value and the
// valid range. `meaning` says what is counted ("layouts to report").
void count(long long value, const std::string& option, long long min, long long max, const std::string& meaning);

}  // namespace fleetsim::guards
