// What a planner reads first: the Pareto set over (days, cost, peak facility MW) of the designs
// that meet every constraint, the cheapest design that meets the deadline, the fastest inside the
// budget, and which constraint binds (or, when nothing meets them all, which one cannot be met and
// by how much).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/plan/design.hpp"
#include "sim/plan/plan_spec.hpp"

namespace fleetsim::plan {

struct Binding {
  std::string constraint;          // deadline, facility_power_cap, budget, gpus_max, or "none"
  double excess = 0;               // by how much the better design exceeds it (unit below)
  std::string unit;
  std::string text;                // one sentence with the numbers
};

struct Summary {
  std::vector<size_t> pareto;                  // indices into designs, by days
  std::optional<size_t> cheapest_meeting_deadline;   // cheapest design that meets every constraint
  std::optional<size_t> fastest_in_budget;     // fastest design inside budget, power and GPU limits
  std::vector<Binding> binding;                // what keeps the cheapest design from being cheaper,
                                               // or (nothing feasible) what cannot be met
  bool met = false;                            // some design meets every constraint
  int feasible = 0, evaluated = 0;
};

[[nodiscard]] Summary summarize(const PlanSpec& plan, const std::vector<Design>& designs);

// True when `a` is no worse than `b` on days, cost and peak MW and better on one.
[[nodiscard]] bool dominates(const Design& a, const Design& b);

}  // namespace fleetsim::plan
