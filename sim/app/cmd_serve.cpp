// `fleetsim serve [--port N] [--host 127.0.0.1] [SCENARIO]`: the what-if studio in a browser
// (sim/serve/README.md). Prints its URL, then serves until stopped (Ctrl-C).
#include <iostream>
#include <memory>

#include "sim/app/command.hpp"
#include "sim/core/error.hpp"
#include "sim/serve/server.hpp"

namespace fleetsim::app {

void add_serve_command(CLI::App& app) {
  auto o = std::make_shared<serve::ServerOptions>();
  auto* c = app.add_subcommand("serve", "the what-if studio: a local web page that runs scenarios and plans as you turn knobs");
  c->add_option("SCENARIO", o->scenario, "scenario the page opens with: a catalog name or a file (default: llama3-405b-16k)");
  c->add_option("--port", o->port, "TCP port (default 8765; 0 picks a free one and prints it)")->check(CLI::Range(0, 65535));
  c->add_option("--host", o->host, "address to listen on (default 127.0.0.1, loopback only; 0.0.0.0 listens on every interface)");
  c->add_option("--threads", o->threads, "worker threads of each computation (default: all cores)")->check(CLI::Range(0, 1024));
  c->callback([o] {
    serve::serve(*o, [](const std::string& url) {
      // Tests and scripts wait for this line (never for a fixed time).
      std::cout << "fleetsim serve: listening on " << url << std::endl;
      std::cerr << "fleetsim serve: open " << url << " in a browser; Ctrl-C stops it\n";
    });
  });
}

}  // namespace fleetsim::app
