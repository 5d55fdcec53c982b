#include "sim/simgrid/isolate.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>

#include "sim/core/error.hpp"

namespace fleetsim::sgtier {

namespace {
void write_all(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    n -= static_cast<size_t>(w);
  }
}
// Message kinds written by the child: 0 = numbers, 1 = InfeasibleError, 2 = other error.
}  // namespace

IsolatedRun::IsolatedRun(const std::function<std::vector<double>()>& work, bool echo_stderr) : echo_(echo_stderr) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("simgrid tier: pipe() failed: " + std::string(std::strerror(errno)));
  if (std::FILE* tmp = std::tmpfile()) {
    err_fd_ = ::dup(::fileno(tmp));
    std::fclose(tmp);
  }
  std::fflush(stdout);
  std::fflush(stderr);
  pid_ = ::fork();
  if (pid_ < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error("simgrid tier: fork() failed: " + std::string(std::strerror(errno)));
  }
  if (pid_ == 0) {
    ::close(fds[0]);
    // The parent's crash handlers (a test framework's, say) must not run in the child.
    for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTERM, SIGINT}) std::signal(sig, SIG_DFL);
    if (err_fd_ >= 0) ::dup2(err_fd_, 2);
    std::int32_t kind = 0;
    std::string text;
    std::vector<double> out;
    try {
      out = work();
    } catch (const InfeasibleError& e) {
      kind = 1;
      text = e.what();
    } catch (const std::exception& e) {
      kind = 2;
      text = e.what();
    } catch (...) {
      kind = 2;
      text = "unknown exception";
    }
    write_all(fds[1], &kind, sizeof kind);
    if (kind == 0) {
      const std::uint64_t n = out.size();
      write_all(fds[1], &n, sizeof n);
      write_all(fds[1], out.data(), n * sizeof(double));
    } else {
      const std::uint64_t n = text.size();
      write_all(fds[1], &n, sizeof n);
      write_all(fds[1], text.data(), n);
    }
    ::close(fds[1]);
    std::fflush(stdout);
    std::fflush(stderr);
    ::_exit(0);  // skip the engine's and the platform's teardown
  }
  ::close(fds[1]);
  fd_ = fds[0];
}

IsolatedRun::IsolatedRun(IsolatedRun&& o) noexcept : pid_(o.pid_), fd_(o.fd_), err_fd_(o.err_fd_), echo_(o.echo_) {
  o.pid_ = o.fd_ = o.err_fd_ = -1;
}

IsolatedRun::~IsolatedRun() {
  if (fd_ >= 0) ::close(fd_);
  if (err_fd_ >= 0) ::close(err_fd_);
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
}

std::vector<double> IsolatedRun::get() {
  if (pid_ <= 0) throw std::logic_error("simgrid tier: result already taken");
  std::string buf;
  char tmp[65536];
  for (;;) {
    const ssize_t r = ::read(fd_, tmp, sizeof tmp);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    buf.append(tmp, static_cast<size_t>(r));
  }
  ::close(fd_);
  fd_ = -1;
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  std::string err;
  if (err_fd_ >= 0) {
    ::lseek(err_fd_, 0, SEEK_SET);
    for (;;) {
      const ssize_t r = ::read(err_fd_, tmp, sizeof tmp);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      err.append(tmp, static_cast<size_t>(r));
    }
    ::close(err_fd_);
    err_fd_ = -1;
    if (echo_ && !err.empty()) std::fwrite(err.data(), 1, err.size(), stderr);
  }
  std::int32_t kind = -1;
  std::uint64_t n = 0;
  if (buf.size() < sizeof kind + sizeof n) {
    std::string why = WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                          : "exit status " + std::to_string(WEXITSTATUS(status));
    if (err.size() > 2000) err = "..." + err.substr(err.size() - 2000);
    throw std::runtime_error("simgrid tier: the simulation process died (" + why + ")" +
                             (err.empty() ? std::string() : ": " + err));
  }
  std::memcpy(&kind, buf.data(), sizeof kind);
  std::memcpy(&n, buf.data() + sizeof kind, sizeof n);
  const char* body = buf.data() + sizeof kind + sizeof n;
  const size_t have = buf.size() - sizeof kind - sizeof n;
  if (kind == 0) {
    if (have < n * sizeof(double)) throw std::runtime_error("simgrid tier: truncated result from the simulation process");
    std::vector<double> out(n);
    std::memcpy(out.data(), body, n * sizeof(double));
    return out;
  }
  std::string text(body, std::min<size_t>(n, have));
  if (kind == 1) throw InfeasibleError(text);
  throw std::runtime_error(text);
}

}  // namespace fleetsim::sgtier
