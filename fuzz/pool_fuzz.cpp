// libFuzzer harness: pool scenarios (`fleetsim pool`). Two kinds of input:
// - `--set` lines (the input starts with a key path and '='): up to eight overrides applied to a small
//   pool (fuzz/seeds/pool/set_base.yaml) as `fleetsim pool --set` applies them. Nearly every mutation is still a
//   pool, so most inputs reach the engine (a whole mutated YAML scenario is a pool in about 1 of
//   100 inputs: the first campaign's 9,407 inputs loaded 103 pools);
// - anything else: a whole scenario file, as scenario_fuzz loads it.
// For a scenario with a `pool:` section: the pool's inputs (topology, node failure rates, the work
// limits of sim/core/limits.hpp) and, when the pool is small enough to simulate in milliseconds,
// one replication of the pool engine over at most a day. Bad input must end in ConfigError or
// InfeasibleError; any other exception, a crash, a sanitizer report, a hang, a memory blow-up, or
// a replication whose shares are not finite numbers in [0, 1] is a finding.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "sim/config/catalog.hpp"
#include "sim/config/load.hpp"
#include "sim/config/scenario_tree.hpp"
#include "sim/config/yaml_source.hpp"
#include "sim/core/error.hpp"
#include "sim/pool/engine.hpp"
#include "sim/pool/pool_model.hpp"
#include "sim/results/report.hpp"

// The metric catalog (sim/results/report.cpp) names the step, run, facility and power catalogs too; this
// harness reports no metric, and defining them empty here spares it the step, run and facility
// models those files belong to. (Only the pool's catalog, sim/pool/pool_model.cpp, is real.)
namespace fleetsim {
const std::vector<MetricDef>& step_metric_defs() { static const std::vector<MetricDef> none; return none; }
const std::vector<MetricDef>& run_metric_defs() { static const std::vector<MetricDef> none; return none; }
const std::vector<MetricDef>& facility_metric_defs() { static const std::vector<MetricDef> none; return none; }
const std::vector<MetricDef>& power_dynamics_metric_defs() { static const std::vector<MetricDef> none; return none; }
}  // namespace fleetsim

namespace {

[[noreturn]] void finding(const char* what, double value) {
  std::fprintf(stderr, "pool_fuzz: %s = %g\n", what, value);
  std::abort();
}

void check_share(const char* what, double v) {
  if (!std::isfinite(v) || v < -1e-9 || v > 1.0 + 1e-6) finding(what, v);
}

// The engine's work for one replication of `in` over its (shortened) horizon, roughly: what the
// harness is willing to spend per input (a few milliseconds under ASan).
bool cheap(const fleetsim::pool::PoolInputs& in) {
  const auto& p = in.spec;
  const double horizon = p.warmup_s + p.duration_s;
  const int nodes = in.topology.nodes;
  double services = 0;
  for (const auto& g : p.inference) services += g.services;
  const double jobs = (p.training.trace.empty() ? p.training.arrival_rate : 0.0) * horizon + p.dev.arrival_rate * horizon;
  const double samples = horizon / p.inference_interval_s;
  const double passes = p.policy == fleetsim::QueuePolicy::Backfill ? horizon / p.backfill_interval_s : 0.0;
  const double failures = in.node_failure_rate * nodes * horizon;
  return nodes <= 4096 && jobs <= 3000 && samples <= 2000 && passes <= 20000 && services <= 200 &&
         services * samples <= 1e5 && failures <= 2000 && p.training.trace.empty();
}


// FLEETSIM_FUZZ_STATS=1: how many inputs reached each stage, printed at exit (how much of the
// time goes to the engine rather than to inputs the loader refuses).
struct Stats {
  long long inputs = 0, pools = 0, simulated = 0;
  ~Stats() {
    if (const char* v = std::getenv("FLEETSIM_FUZZ_STATS"); v && std::string(v) == "1")
      std::fprintf(stderr, "pool_fuzz: %lld inputs, %lld loaded pools, %lld simulated\n", inputs, pools, simulated);
  }
} stats;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool kept = (fleetsim::config::keep_files_in_memory(true), true);
  (void)kept;
  // As if the file sat in scenarios/, so "extends: llama3-405b-16k.yaml" resolves.
  static const std::string path = fleetsim::config::scenarios_dir() + "/fuzz-pool.yaml";
  ++stats.inputs;
  const std::string text(reinterpret_cast<const char*>(data), size);
  // `--set` lines when the input starts with a key path and '=' (a scenario file cannot).
  const std::size_t eq = text.find('=');
  const bool sets_mode = eq != std::string::npos && eq > 0 &&
                         text.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_.[]") == eq;
  std::vector<std::string> sets;
  if (sets_mode)
    for (std::size_t start = 0; start <= text.size() && sets.size() < 8;) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      sets.push_back(text.substr(start, end - start));
      start = end + 1;
    }
  try {
    // The base of the `--set` inputs is read once, as set_fuzz reads the default scenario: each
    // input then costs its overrides and the pool, not re-resolving the catalog's presets.
    static const fleetsim::config::ScenarioTree base =
        fleetsim::config::read_scenario_tree(fleetsim::config::home_dir() + "/fuzz/seeds/pool/set_base.yaml");
    fleetsim::Scenario s = sets_mode ? fleetsim::config::apply_sets(base, sets)
                                     : fleetsim::config::load_scenario_text(text, path);
    if (!s.pool.enabled) return 0;
    ++stats.pools;
    (void)fleetsim::pool::pool_inputs(s);  // the limits, on the scenario as written
    // One replication of at most a day (after at most 6 h of warm-up): the engine's code paths,
    // not the length of the run, are what varies.
    s.pool.duration_s = std::min(s.pool.duration_s, 86400.0);
    s.pool.warmup_s = std::min(s.pool.warmup_s, 21600.0);
    const fleetsim::pool::PoolInputs in = fleetsim::pool::pool_inputs(s);
    if (!cheap(in)) return 0;
    ++stats.simulated;
    const fleetsim::pool::PoolReplication r = fleetsim::pool::simulate_pool_replication(in, 0);
    check_share("allocation_share", r.allocation_share);
    check_share("fragmentation_share", r.fragmentation_share);
    check_share("slo_attainment", r.slo_attainment);
    for (double h : r.lost_gpu_hours)
      if (!std::isfinite(h) || h < -1e-6 * r.pool_gpu_hours - 1e-9) finding("lost_gpu_hours", h);
    for (double a : r.alloc) check_share("alloc sample", a);
  } catch (const fleetsim::ConfigError&) {
  } catch (const fleetsim::InfeasibleError&) {
  }
  return 0;
}
