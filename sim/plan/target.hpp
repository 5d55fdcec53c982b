// "What it takes": `fleetsim plan --target K=V SCENARIO` searches the levers that move one factor
// of the scenario's cluster and reports the cheapest combination that reaches V, or the closest one
// and why not.
//
// Levers per factor (each lever keeps the scenario's own value as one of its choices):
//   ettr:  checkpoint policy (the scenario's; Daly + async; in-memory tier, Gemini SOSP'23), hot
//          spares (the scenario's, 1 %, 4 % of the nodes), detection and restart (the scenario's;
//          fast: 10 s crash detection, 2 min hang watchdog, 30 s diagnosis and spare swap, 45 s
//          init, the "fast recovery" of scripts/whatif/failures_50k.py), failure-rate scale (1, 0.5,
//          0.25: what better parts or burn-in would have to deliver).
//   mfu:   the layout (time-to-train search) against the scenario's.
//   pue:   cooling plant (the scenario's, air economizer, direct liquid, immersion) x site (the
//          scenario's, cold).
//   effective_utilization: the ettr levers (without the rate scale) x layout x cooling.
// Every combination runs the whole pipeline (run model with the scenario's replications). The
// cost of a combination is the owned cost of the run (cost.hpp) with the price catalog: spares
// add servers, the cooling plant changes the facility capex and the energy. Levers the catalog
// cannot price (faster detection, a lower failure rate, the in-memory tier's software) cost 0 and
// are named as such; ties go to the combination that changes fewer levers.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "sim/results/json.hpp"

namespace fleetsim::plan {

struct TargetCombination {
  std::vector<std::string> levers;     // "lever: value" for each lever changed from the scenario
  std::vector<std::string> sets;       // --set list on the scenario
  double value = 0;                    // the factor reached
  double cost_usd = 0;                 // owned cost of the run
  double capex_usd = 0;
  double ettr = 0, mfu = 0, pue = 0, effective_utilization = 0;
  std::string largest_loss;            // the biggest remaining loss, in words
};

struct TargetResult {
  std::string scenario, key;
  double target = 0;
  TargetCombination baseline;          // the scenario as it is
  std::vector<TargetCombination> tried;
  bool reached = false;
  size_t best = 0;                     // cheapest reaching it, or the closest
  std::string why_not;                 // when not reached
};

// Throws ConfigError (exit 2) for an unknown key or a value outside (0, 1] (pue: >= 1).
[[nodiscard]] TargetResult what_it_takes(const std::string& scenario, const std::vector<std::string>& sets,
                                         const std::string& target, const std::string& prices, int threads);

[[nodiscard]] Json to_json(const TargetResult& r);
void print_target(const TargetResult& r, std::ostream& out);

}  // namespace fleetsim::plan
