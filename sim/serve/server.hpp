// `fleetsim serve`: the studio's HTTP front (sim/serve/README.md) on cpp-httplib, Debian's
// libcpp-httplib-dev 0.11 (https://github.com/yhirose/cpp-httplib): one page, its assets, and a
// small JSON API over the Studio engine. Only this file's .cpp includes httplib.h.
#pragma once

#include <functional>
#include <string>

namespace fleetsim::serve {

struct ServerOptions {
  std::string host = "127.0.0.1";  // loopback unless told otherwise
  int port = 8765;                 // 0: the system picks a free port (printed)
  std::string scenario;            // the scenario the page opens with ("" = the default)
  int threads = 0;                 // of each computation (0 = all cores)
  int workers = 16;                // HTTP worker pool: connections served at once
};

// Binds, calls `on_listening(url)` once the socket accepts connections, and serves until the
// process is stopped. Throws ConfigError when the address cannot be bound or the page's assets
// are missing.
void serve(const ServerOptions& options, const std::function<void(const std::string& url)>& on_listening);

}  // namespace fleetsim::serve
