// `fleetsim search`: the best parallel layouts for the scenario's model on its cluster, from the
// analytical step model (DESIGN.md §2), and why the best one beats the scenario's own layout.
//
// How: the space (space.hpp) is enumerated in layout groups; each group is checked for
// divisibility (feasibility.hpp), then for memory with the step model's own accounting before
// any timing, including the memory-balanced uneven split and chunked loss (uneven_split.hpp).
// Feasible candidates are timed best-first by a lower bound on their iteration time (the
// busiest pipeline rank plus the pipeline's fill and drain), and a candidate whose bound exceeds
// the K-th best time found so far is pruned. Both phases run on all cores; the result does not
// depend on the number of threads or their timing (the bound threshold changes only between
// fixed batches, ties are broken by a stable order that prefers the simpler layout).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/scenario.hpp"
#include "sim/search/space.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/step/step_model.hpp"

namespace fleetsim::search {

enum class Objective { Mfu, TimeToTrain };

// "mfu" or "time-to-train"; throws ConfigError naming the valid ones.
[[nodiscard]] Objective parse_objective(const std::string& name);
[[nodiscard]] const char* objective_name(Objective o);

struct SearchOptions {
  int top = 5;                          // K layouts reported
  Objective objective = Objective::Mfu;
  int threads = 0;                      // 0 = every core
  bool progress = true;                 // progress line on stderr when it is a terminal
  bool prune = true;                    // bound pruning; false times every feasible layout (tests)
  std::optional<Space> space;           // default_space(scenario) when empty
  // MPI (sim/mpi/search.hpp): this process searches only the layout groups g with
  // g % parts == part; the parts' best layouts are merged with merge_top().
  int part = 0;
  int parts = 1;
};

struct Evaluated {
  Candidate layout;
  StepResult step;                      // memory includes the chunked-loss bound when used
  Seconds time_to_train;                // 0 when workload.training.train_tokens is 0
  std::optional<StepResult> simgrid;    // the same layout on the SimGrid tier (--verify simgrid)
  std::string simgrid_error;            // why the SimGrid tier could not time it
};

struct SearchResult {
  Objective objective = Objective::Mfu;
  long long candidates_evaluated = 0;   // layouts decided: feasible + rejected
  long long feasible = 0;               // divide and fit in memory
  long long timed = 0;                  // feasible ones timed by the step model
  long long pruned_by_bound = 0;        // feasible, bound above the K-th best time
  long long dominated = 0;              // feasible, same time as a simpler variant that fits
  std::map<std::string, long long> rejected;   // reason key -> count
  std::optional<Evaluated> baseline;    // the scenario's own layout
  std::string baseline_error;           // why it could not be evaluated
  bool baseline_in_space = false;
  std::vector<Evaluated> top;           // best first (by the SimGrid time once verified)
  bool verified_on_simgrid = false;
  std::string explanation;
  bool dualpipe = false;                // the scenario's schedule is DualPipe (the explanation's bubble)
  Bytes usable_memory;
  Space space;                          // what was searched
  // Host figures (not part of the deterministic output).
  double wall_s = 0;
  int threads = 1;
};

// One candidate through the analytical step model, with chunked loss applied to its memory.
// Throws ConfigError / InfeasibleError as evaluate_step does.
[[nodiscard]] Evaluated evaluate_candidate(const Scenario& s, const Candidate& c);

// A lower bound on the iteration time of the layout whose per-chunk costs are `costs`: the
// busiest pipeline rank's work plus the forward fill before its first op and the backward drain
// after its last (exact for 1F1B with equal stages: (m + p - 1)(f + b)).
[[nodiscard]] Seconds iteration_time_lower_bound(const step::StageCosts& costs);

[[nodiscard]] SearchResult run_search(const Scenario& s, const SearchOptions& options = {});

// The best `top` of `all` in the search's order (time, then the simpler layout), each layout
// once: merging the best layouts of disjoint parts of a space gives those of the whole.
[[nodiscard]] std::vector<Evaluated> merge_top(std::vector<Evaluated> all, int top);

}  // namespace fleetsim::search
