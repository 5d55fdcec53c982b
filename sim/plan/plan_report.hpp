// The plan's outputs: JSON (`plan.designs[]`, `plan.pareto[]`, the choices and the binding
// constraint), the console table, and the HDF5 file (tables `designs`, `pareto`, `waterfall`).
#pragma once

#include <ostream>
#include <string>

#include "sim/plan/evaluate.hpp"
#include "sim/plan/summary.hpp"
#include "sim/results/json.hpp"

namespace fleetsim::plan {

[[nodiscard]] Json to_json(const PlanSpec& plan, const Evaluation& ev, const Summary& s);
void print_table(const PlanSpec& plan, const Evaluation& ev, const Summary& s, std::ostream& out);
void write_plan_file(const std::string& path, const PlanSpec& plan, const Evaluation& ev, const Summary& s,
                     const std::string& command);

}  // namespace fleetsim::plan
