#include "sim/serve/server.hpp"

#include <httplib.h>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "sim/config/yaml_source.hpp"
#include "sim/core/error.hpp"
#include "sim/core/paths.hpp"
#include "sim/results/json.hpp"
#include "sim/serve/client_input.hpp"
#include "sim/serve/studio.hpp"

namespace fleetsim::serve {
namespace {

// Request bounds (the "request and upload size limits"): the request line and each header
// line are bounded by cpp-httplib (8 kB each, CPPHTTPLIB_REQUEST_URI_MAX_LENGTH and
// CPPHTTPLIB_HEADER_MAX_LENGTH); a body beyond kMaxBodyBytes is refused with 413 before it is read.
constexpr size_t kMaxBodyBytes = kMaxUploadBytes;
constexpr auto kProgressEvery = std::chrono::milliseconds(50);

// Every response: nothing but this origin's own scripts, styles and API (no inline script, no
// external fetch), no framing, no sniffing, no referrer.
const httplib::Headers& security_headers() {
  static const httplib::Headers h = {
      {"Content-Security-Policy",
       "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; "
       "form-action 'none'; frame-ancestors 'none'; base-uri 'none'"},
      {"X-Content-Type-Options", "nosniff"},
      {"Referrer-Policy", "no-referrer"},
      {"X-Frame-Options", "DENY"},
      {"Cache-Control", "no-store"}};
  return h;
}

struct Asset {
  std::string body, type;
};

std::string read_whole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The page's files, read once at start: the client can only name one of these keys.
std::map<std::string, Asset> load_assets(std::string& chart_js_note) {
  const std::string dir = home_dir() + "/sim/serve/web";
  std::map<std::string, Asset> a;
  const std::pair<const char*, const char*> files[] = {
      {"index.html", "text/html; charset=utf-8"}, {"app.js", "text/javascript; charset=utf-8"},
      {"charts.js", "text/javascript; charset=utf-8"}, {"views.js", "text/javascript; charset=utf-8"},
      {"style.css", "text/css; charset=utf-8"}};
  for (const auto& [name, type] : files) {
    std::string body = read_whole(dir + "/" + name);
    if (body.empty()) throw ConfigError(dir + "/" + name, "", "the studio's page is missing (reinstall fleetsim)");
    a["/" + std::string(name)] = {std::move(body), type};
  }
  // Chart.js 3 from Debian's libjs-chart.js (scripts/setup installs it), served from this origin:
  // the page never fetches anything from elsewhere.
  const std::string chart = read_whole("/usr/share/javascript/chart.js/chart.min.js");
  if (chart.empty())
    chart_js_note = "fleetsim serve: /usr/share/javascript/chart.js/chart.min.js is missing: the page shows its numbers "
                    "without figures (apt-get install libjs-chart.js)";
  a["/chart.js"] = {chart.empty() ? std::string("window.FLEETSIM_NO_CHART = true;\n") : chart,
                    "text/javascript; charset=utf-8"};
  return a;
}

Json error_json(const std::string& message, const std::string& key = "", const std::string& file = "") {
  Json e = Json::object();
  e["message"] = client_message(message);
  e["key"] = key;
  e["file"] = client_message(file);
  Json j = Json::object();
  j["error"] = e;
  return j;
}

void reply_error(httplib::Response& res, int status, const Json& body) {
  res.status = status;
  res.set_content(body.dump(0) + "\n", "application/json");
}

// %XX and '+' decoded; a bad escape is kept as typed (the loader then names the odd value).
std::string url_decode(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
               std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// The query as typed: a name is what comes before the FIRST '=' ("set=cluster.gpus=8192" is the
// override cluster.gpus=8192, as a hand-edited link writes it; the page sends %3D).
std::vector<std::pair<std::string, std::string>> query_pairs(const httplib::Request& req) {
  std::vector<std::pair<std::string, std::string>> out;
  const size_t q = req.target.find('?');
  if (q == std::string::npos) return out;
  const std::string query = req.target.substr(q + 1);
  for (size_t start = 0; start <= query.size();) {
    size_t amp = query.find('&', start);
    if (amp == std::string::npos) amp = query.size();
    const std::string part = query.substr(start, amp - start);
    if (!part.empty()) {
      const size_t eq = part.find('=');
      out.emplace_back(url_decode(part.substr(0, eq)), eq == std::string::npos ? "" : url_decode(part.substr(eq + 1)));
    }
    start = amp + 1;
  }
  return out;
}

// Query: scenario=NAME (or plan=NAME), set=K=V (repeatable); body: an uploaded scenario's text.
ScenarioRequest scenario_request(const httplib::Request& req, std::string* plan = nullptr) {
  ScenarioRequest r;
  int scenarios = 0;
  for (const auto& [name, value] : query_pairs(req)) {
    if (name == "set") {
      if (r.sets.size() >= kMaxSets) throw ConfigError("", "set", "at most " + std::to_string(kMaxSets) + " overrides in one request");
      r.sets.push_back(value);
    } else if (name == "scenario") {
      r.scenario = value;
      ++scenarios;
    } else if (name == "plan" && plan) {
      *plan = value;
    }
  }
  if (scenarios > 1) throw ConfigError("", "scenario", "give one scenario");
  if (!req.body.empty()) r.upload = req.body;
  return r;
}

// Runs `work` inside a streamed answer: progress lines while it runs, then its envelope (or the
// error), one JSON document a line. The browser cancels by closing the connection: the next
// progress write fails and the computation stops at the next replication.
using Work = std::function<std::shared_ptr<const std::string>(const ProgressFn&)>;

void stream_work(httplib::Response& res, Work work) {
  res.set_chunked_content_provider("application/x-ndjson", [work = std::move(work)](size_t, httplib::DataSink& sink) {
    auto last = std::chrono::steady_clock::now() - kProgressEvery;
    const ProgressFn progress = [&](int done, int total) {
      const auto now = std::chrono::steady_clock::now();
      if (done != total && now - last < kProgressEvery) return true;
      last = now;
      const std::string line = "{\"progress\":{\"done\":" + std::to_string(done) + ",\"total\":" + std::to_string(total) + "}}\n";
      return sink.write(line.data(), line.size());
    };
    std::string out;
    try {
      out = *work(progress) + "\n";
    } catch (const Cancelled&) {
      return false;  // the client went away
    } catch (const ConfigError& e) {
      out = error_json(e.what(), e.key(), e.file()).dump(0) + "\n";
    } catch (const InfeasibleError& e) {
      out = error_json(e.what()).dump(0) + "\n";
    } catch (const std::exception& e) {
      out = error_json(std::string("internal error: ") + e.what()).dump(0) + "\n";
    }
    if (!sink.write(out.data(), out.size())) return false;
    sink.done();
    return true;
  });
}

bool host_allowed(const httplib::Request& req, const std::string& bound_host, int port) {
  if (bound_host == "0.0.0.0" || bound_host == "::") return true;  // told to listen everywhere
  const std::string host = req.get_header_value("Host");
  const std::string p = ":" + std::to_string(port);
  return host == bound_host + p || host == "127.0.0.1" + p || host == "localhost" + p || host == "[::1]" + p;
}

}  // namespace

void serve(const ServerOptions& o, const std::function<void(const std::string&)>& on_listening) {
  std::string chart_note;
  const auto assets = load_assets(chart_note);
  if (!chart_note.empty()) std::cerr << chart_note << "\n";
  // The scenario the page opens with: a catalog name, or a file the operator named (read here,
  // once, and offered to the page as if uploaded; the client itself never names a path).
  Json start = Json::object();
  bool start_in_catalog = false;
  if (!o.scenario.empty()) {
    if (is_catalog_name(o.scenario) && config::file_problem(o.scenario) == "does not exist") {
      start["scenario"] = o.scenario;
      start_in_catalog = true;
    } else {
      if (const std::string problem = config::file_problem(o.scenario); !problem.empty())
        throw ConfigError(o.scenario, "SCENARIO", problem);
      std::string text = read_whole(o.scenario);
      if (text.size() > kMaxUploadBytes)
        throw ConfigError(o.scenario, "SCENARIO", "larger than the studio's upload limit (" + std::to_string(kMaxUploadBytes) + " bytes)");
      start["upload"] = text;
      start["name"] = std::filesystem::path(o.scenario).filename().string();
    }
  }
  auto studio = std::make_shared<Studio>(o.threads);
  if (start_in_catalog) {
    ScenarioRequest r;
    r.scenario = o.scenario;
    (void)studio->prepare(r);  // a bad name is refused now, with the loader's message
  }
  const std::string start_json = start.dump(0);
  const std::string catalog = studio->catalog_json();

  httplib::Server svr;
  const size_t workers = static_cast<size_t>(std::max(2, o.workers));
  svr.new_task_queue = [workers] { return new httplib::ThreadPool(workers); };
  svr.set_payload_max_length(kMaxBodyBytes);
  svr.set_read_timeout(5, 0);
  svr.set_write_timeout(30, 0);
  svr.set_keep_alive_timeout(5);
  svr.set_keep_alive_max_count(100);
  svr.set_default_headers(security_headers());
  int port = o.port;

  svr.set_pre_routing_handler([&](const httplib::Request& req, httplib::Response& res) {
    if (!host_allowed(req, o.host, port)) {  // DNS rebinding: another site's name pointed here
      reply_error(res, 403, error_json("this server answers to 127.0.0.1 and localhost only (Host: " +
                                       req.get_header_value("Host").substr(0, 100) + ")"));
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  svr.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.body.empty()) {
      const std::string what = res.status == 404 ? "no such page" : res.status == 413 ? "request too large"
                               : res.status == 400 ? "bad request" : "refused";
      reply_error(res, res.status, error_json(what + " (HTTP " + std::to_string(res.status) + ")"));
    }
  });
  svr.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "internal error";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what += std::string(": ") + e.what();
    } catch (...) {
    }
    reply_error(res, 500, error_json(what));
  });

  for (const auto& [path, asset] : assets) {
    svr.Get(path == "/index.html" ? "/" : path, [&asset = asset](const httplib::Request&, httplib::Response& res) {
      res.set_content(asset.body, asset.type.c_str());
    });
  }
  // Browsers ask for it unprompted; an empty answer rather than a 404 in every console.
  svr.Get("/favicon.ico", [](const httplib::Request&, httplib::Response& res) { res.status = 204; });
  svr.Get("/api/catalog", [&](const httplib::Request&, httplib::Response& res) { res.set_content(catalog, "application/json"); });
  svr.Get("/api/start", [&](const httplib::Request&, httplib::Response& res) { res.set_content(start_json, "application/json"); });

  auto run = [studio](const httplib::Request& req, httplib::Response& res) {
    PreparedRun prepared;
    try {
      prepared = studio->prepare(scenario_request(req));
    } catch (const ConfigError& e) {
      return reply_error(res, 400, error_json(e.what(), e.key(), e.file()));
    } catch (const InfeasibleError& e) {
      return reply_error(res, 400, error_json(e.what()));
    }
    if (auto hit = studio->cached(prepared.key)) {
      res.set_header("X-Fleetsim-Cached", "1");
      return res.set_content(*hit + "\n", "application/x-ndjson");
    }
    auto p = std::make_shared<PreparedRun>(std::move(prepared));
    stream_work(res, [studio, p](const ProgressFn& progress) { return studio->run(*p, progress); });
  };
  svr.Get("/api/run", run);
  svr.Post("/api/run", run);

  svr.Get("/api/plan", [studio](const httplib::Request& req, httplib::Response& res) {
    PlanRequest r;
    try {
      r.sets = scenario_request(req, &r.plan).sets;
    } catch (const ConfigError& e) {
      return reply_error(res, 400, error_json(e.what(), e.key(), e.file()));
    }
    if (auto hit = studio->cached(studio->plan_key(r))) return res.set_content(*hit + "\n", "application/x-ndjson");
    stream_work(res, [studio, r](const ProgressFn& progress) { return studio->plan(r, progress); });
  });

  auto search = [studio](const httplib::Request& req, httplib::Response& res) {
    try {
      const PreparedRun p = studio->prepare(scenario_request(req));
      res.set_content(*studio->best_layout(p), "application/json");
    } catch (const ConfigError& e) {
      reply_error(res, 400, error_json(e.what(), e.key(), e.file()));
    } catch (const InfeasibleError& e) {
      reply_error(res, 400, error_json(e.what()));
    }
  };
  svr.Get("/api/search", search);
  svr.Post("/api/search", search);

  auto yaml = [studio](const httplib::Request& req, httplib::Response& res) {
    try {
      const PreparedRun p = studio->prepare(scenario_request(req));
      res.set_header("Content-Disposition", "attachment; filename=\"fleetsim-studio.yaml\"");
      res.set_content(studio->scenario_yaml(p), "text/yaml; charset=utf-8");
    } catch (const ConfigError& e) {
      reply_error(res, 400, error_json(e.what(), e.key(), e.file()));
    } catch (const InfeasibleError& e) {
      reply_error(res, 400, error_json(e.what()));
    }
  };
  svr.Get("/api/yaml", yaml);
  svr.Post("/api/yaml", yaml);

  if (o.port == 0) {
    port = svr.bind_to_any_port(o.host);
    if (port < 0)
      throw ConfigError("", "--host", "cannot listen on " + o.host + " (not an address of this machine, or no free port)");
  } else if (!svr.bind_to_port(o.host, o.port)) {
    throw ConfigError("", "--port", "cannot listen on " + o.host + ":" + std::to_string(o.port) +
                                        " (in use, or not an address of this machine); --port 0 picks a free port");
  }
  const std::string shown = o.host.find(':') != std::string::npos ? "[" + o.host + "]" : o.host;
  std::string url = "http://" + shown + ":" + std::to_string(port) + "/";
  if (start_in_catalog) url += "?scenario=" + o.scenario;
  on_listening(url);
  if (!svr.listen_after_bind()) throw ConfigError("", "--port", "the server stopped listening");
}

}  // namespace fleetsim::serve
