// Runs a computation in a forked child and returns its numbers through a pipe.
//
// SimGrid 3.32 allows one engine per process and never resets its clock (docs/research/simgrid.md
// §5), so every SimGrid run happens in a child that writes its result and _exit()s; the parent never
// creates an engine, and any number of evaluations work in one process. Children started together
// run in parallel. An exception in the child is rethrown in the parent with its message.
#pragma once

#include <functional>
#include <vector>

namespace fleetsim::sgtier {

class IsolatedRun {
 public:
  // The child's stderr is captured: copied to ours when `echo_stderr`, and quoted in the error
  // when the child dies without a result (an abort inside SimGrid).
  explicit IsolatedRun(const std::function<std::vector<double>()>& work, bool echo_stderr = false);
  IsolatedRun(IsolatedRun&& other) noexcept;
  IsolatedRun(const IsolatedRun&) = delete;
  IsolatedRun& operator=(const IsolatedRun&) = delete;
  IsolatedRun& operator=(IsolatedRun&&) = delete;
  ~IsolatedRun();
  // Waits for the child; returns what `work` returned or throws what it threw.
  std::vector<double> get();

 private:
  int pid_ = -1;
  int fd_ = -1;
  int err_fd_ = -1;  // a temporary file holding the child's stderr
  bool echo_ = false;
};

}  // namespace fleetsim::sgtier
