// One design of a plan: the choices (GPU/node, count, fabric, cooling and site, spares, checkpoint
// policy, failure profile, layout) and what the models say about it.
#pragma once

#include <string>
#include <vector>

#include "sim/plan/cost.hpp"

namespace fleetsim::plan {

enum class Constraint { Deadline, FacilityPower, Budget, GpusMax };
[[nodiscard]] const char* constraint_name(Constraint c);   // deadline, facility_power_cap, budget, gpus_max
inline constexpr Constraint kConstraints[] = {Constraint::Deadline, Constraint::FacilityPower, Constraint::Budget,
                                              Constraint::GpusMax};

struct Design {
  // Choices.
  std::string gpu, node, fabric, cooling, site, checkpoint, failures;
  std::string precision;           // workload.training.precision it trains in
  double oversubscription = 0;     // as run (the preset's when the plan gave 0)
  double spare_share = 0;
  int gpus = 0;                    // the job's
  int gpus_per_node = 1;
  int spare_nodes = 0;
  std::string layout;              // in words (search::describe)
  std::vector<std::string> sets;   // --set list that makes this design from the base scenario

  // Outcome.
  bool evaluated = false;          // the run and facility models ran
  std::string status;              // "ok", or why it was not evaluated (no layout fits, pruned: ...)
  double iteration_s = 0, mfu = 0, ettr = 0, days = 0, pue = 0;
  double days_lower_bound = 0;     // compute only (ETTR 1): known before the run model
  double peak_facility_mw = 0, mean_facility_mw = 0, peak_it_mw = 0;
  double facility_mwh = 0, co2_t = 0, effective_utilization = 0, tokens = 0;
  Cost cost;
  // How sure (sim/uncertainty, as `fleetsim run`): the central `interval_level` range of the
  // days and of the run cost (the replications' spread with the step model's model-form
  // interval), and the chance the design meets the deadline (-1: no deadline).
  double interval_level = 0.8;
  double days_lo = 0, days_hi = 0, cost_lo = 0, cost_hi = 0;
  double deadline_probability = -1;
  std::string grade;               // the step prediction's provenance grade
  // By how much each constraint is exceeded (0 = met), in its own unit (d, MW, USD, GPUs).
  double excess[4] = {0, 0, 0, 0};
  [[nodiscard]] bool feasible() const { return evaluated && excess[0] <= 0 && excess[1] <= 0 && excess[2] <= 0 && excess[3] <= 0; }
  [[nodiscard]] int gpus_bought() const { return gpus + spare_nodes * gpus_per_node; }
};

}  // namespace fleetsim::plan
