// The studio's engine, without HTTP (sim/serve/README.md): a request names a catalog scenario or
// carries an uploaded one, plus `--set` overrides; the engine checks them as a client's input
// (client_input.hpp), loads the scenario with the loader every command uses, runs the pipeline as
// `fleetsim run --json` does (sim/pipeline/run_summary.hpp) and keeps the answer, keyed by the
// resolved scenario, so that returning to an earlier state is instant. Plans likewise
// (`fleetsim plan --json`, keyed by the plan's name and overrides).
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/scenario.hpp"

namespace fleetsim::serve {

struct ScenarioRequest {
  std::string scenario;                 // a catalog name ("" = the default scenario) ...
  std::optional<std::string> upload;    // ... or an uploaded scenario's text
  std::vector<std::string> sets;        // "key.path=value", exactly what `--set` takes
};

struct PlanRequest {
  std::string plan;                     // a catalog plan name (scenarios/plan-*.yaml)
  std::vector<std::string> sets;
};

// The loaded scenario and what identifies its answer.
struct PreparedRun {
  ScenarioRequest request;
  Scenario scenario;
  std::string key;                      // the resolved scenario (Scenario::resolved_yaml)
};

// Called with (done, total) as replications or designs finish; returns false to cancel.
using ProgressFn = std::function<bool(int done, int total)>;

// Thrown out of run()/plan() when progress returned false.
struct Cancelled {};

class Studio {
 public:
  explicit Studio(int threads = 0, size_t cache_entries = 128);

  // Checks and loads the request's scenario. Throws ConfigError / InfeasibleError with the
  // loader's own message (file paths under the catalog shown relative to it).
  [[nodiscard]] PreparedRun prepare(const ScenarioRequest& r) const;

  // The answer kept for this scenario, if any: the envelope run() returns.
  [[nodiscard]] std::shared_ptr<const std::string> cached(const std::string& key) const;

  // Runs (one at a time: the compute lane; SimGrid's engine is one per process) and returns the
  // envelope {"result": <fleetsim run --json>, "cli": ..., "resolved_key": ...} as JSON text.
  [[nodiscard]] std::shared_ptr<const std::string> run(const PreparedRun& p, const ProgressFn& progress);

  // `fleetsim search --top 1 --json` for the scenario: {"set": [the best layout as overrides], "search": ...}.
  [[nodiscard]] std::shared_ptr<const std::string> best_layout(const PreparedRun& p);

  // A plan's envelope {"result": <fleetsim plan --json>, "cli": ...}; cached by name and sets.
  [[nodiscard]] std::string plan_key(const PlanRequest& r) const;
  [[nodiscard]] std::shared_ptr<const std::string> plan(const PlanRequest& r, const ProgressFn& progress);

  // A scenario file that reproduces the request: `extends:` the catalog scenario (or the upload's
  // text) with the overrides merged in, checked by loading it again. Throws ConfigError.
  [[nodiscard]] std::string scenario_yaml(const PreparedRun& p) const;

  // The command line that prints the same JSON (values quoted for a POSIX shell).
  [[nodiscard]] static std::string cli_command(const ScenarioRequest& r);
  [[nodiscard]] static std::string plan_cli_command(const PlanRequest& r);

  // The catalog the page offers: scenarios, plans and each preset kind's names.
  [[nodiscard]] std::string catalog_json() const;

 private:
  void remember(const std::string& key, std::shared_ptr<const std::string> value);
  int threads_;
  size_t capacity_;
  std::mutex lane_;          // one computation at a time, each on all `threads_`
  mutable std::mutex load_;  // one load at a time: the loader's catalog listing keeps a static memo
  mutable std::mutex cache_mutex_;
  mutable std::list<std::string> lru_;  // most recent first
  std::unordered_map<std::string, std::pair<std::shared_ptr<const std::string>, std::list<std::string>::iterator>> cache_;
};

// "-" when the message names a file under the catalog: the client sees "scenarios/x.yaml", not
// the server's directories.
[[nodiscard]] std::string client_message(const std::string& message);

}  // namespace fleetsim::serve
