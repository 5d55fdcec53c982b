// The one way fleetsim writes a file a user named (-o, --trace, --write-residuals, --bootstrap,
// a sweep's index): into a temporary next to the target, then renamed over it, so a reader never
// sees half a file and a failed or killed write leaves the old file as it was. The rename never
// replaces something that is not a regular file: a FIFO, a device (as root, `-o /dev/null` would
// delete the device), a socket or a directory is refused with a ConfigError (exit 2) naming the
// option. Commands call guards::output_file (cli_guards.hpp) with the same option BEFORE any
// work, so a bad path costs nothing; the check here is repeated at the rename for what changed
// meanwhile and for callers that write without a command line.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>

namespace fleetsim {

class AtomicFile {
 public:
  // Checks `path` as guards::output_file does (refusing with `option` and `what` in the message)
  // and removes temporaries of killed writers of the same path (PATH.tmp.PID whose process is
  // gone). Nothing is created yet: the writer creates temporary() itself.
  AtomicFile(std::string path, std::string option, std::string what);
  ~AtomicFile();  // removes the temporary unless commit() moved it into place
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // "PATH.tmp.PID": where to write.
  [[nodiscard]] const std::string& temporary() const { return tmp_; }
  [[nodiscard]] const std::string& path() const { return path_; }
  // Renames the temporary over the target after checking once more that the target is a regular
  // file or absent; on any failure the temporary is removed and a ConfigError names the option.
  void commit();

 private:
  std::string path_, option_, what_, tmp_;
  bool committed_ = false;
};

// Writes `path` atomically with `body` (which streams the content); a stream failure (disk full)
// or a refused target leaves no temporary and the target untouched. Throws ConfigError.
void write_file_atomically(const std::string& path, const std::string& option, const std::string& what,
                           const std::function<void(std::ostream&)>& body);

}  // namespace fleetsim
