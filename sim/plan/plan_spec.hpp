// A resolved plan (`fleetsim plan PLAN.yaml`): the workload, the constraints, the candidate space
// and the prices, every value in SI units. Built by load_plan (plan_load.hpp) from the schema in
// sim/config/plan_schema.cpp; the planner (evaluate.hpp) never sees YAML.
#pragma once

#include <string>
#include <vector>

#include "sim/units/quantity.hpp"

namespace fleetsim::plan {

using DollarsPerWatt = decltype(Dollars() / Watts());
using DollarsPerSecond = decltype(Dollars() / Seconds());

struct SystemPrice {
  std::string gpu, node;           // preset names
  Dollars server_price;            // one node
  DollarsPerSecond rental_price;   // one GPU
  std::string source;
};

struct Prices {
  std::string name;                // catalog entry (models/prices/<name>.yaml)
  std::vector<SystemPrice> systems;
  Dollars nic_price, switch_port_price, optics_price;
  std::vector<std::pair<std::string, DollarsPerWatt>> facility;  // cooling kind -> capex per IT W
  Seconds amortization;
  Seconds facility_amortization;
  double cost_of_capital = 0.0;    // per year
  double operations_share = 0.0;   // per year, share of capex
  // Throws ConfigError naming the catalog and what is missing.
  [[nodiscard]] const SystemPrice& system(const std::string& gpu, const std::string& node) const;
  [[nodiscard]] DollarsPerWatt facility_capex(const std::string& cooling_kind) const;
};

struct SystemChoice { std::string gpu, node; };
struct FabricChoice { std::string fabric; double oversubscription = 0; };  // 0 = the preset's
struct CoolingChoice { std::string cooling, site; };
struct CheckpointChoice {
  std::string name;
  bool daly = true;
  Seconds interval;
  bool async = true;
  Seconds write_time{5.0};
  BytesPerSecond storage_bandwidth{2e12}, load_bandwidth{2e12};
  bool in_memory = false;
  BytesPerSecond in_memory_bandwidth_per_node{25e9};
};
struct FailureChoice { std::string profile; double rate_scale = 1.0; };
struct PrecisionChoice { std::string precision; };   // a workload.training.precision value

struct PlanSpec {
  std::string file;
  std::string description;
  std::string base;                 // scenario the designs start from
  std::string model;                // "" = the base's
  Tokens tokens;
  // Constraints (0 = none).
  Seconds deadline;
  Watts facility_power_cap;
  Dollars budget;
  int gpus_max = 0;
  // Candidate space; an empty list (fabrics .. failures) keeps the base scenario's value.
  std::vector<SystemChoice> systems;
  std::vector<int> gpus;
  std::vector<FabricChoice> fabrics;
  std::vector<CoolingChoice> cooling;
  std::vector<double> spares;       // share of the job's nodes; empty = the base's recovery
  std::vector<CheckpointChoice> checkpoints;
  std::vector<FailureChoice> failures;
  std::vector<PrecisionChoice> precisions;  // empty = the base's (or workload.precision's)
  Prices prices;
  int replications = 1;
  int seed = 1;
  bool rental_basis = false;
  int search_top = 3;
  bool search_layout = true;        // false: the base scenario's layout
  // Candidates listed more than once are evaluated and listed once; one note per repeated
  // entry ("candidates.gpus: 8192 is listed 2 times; evaluated once"), printed by the command.
  std::vector<std::string> duplicates;
};

}  // namespace fleetsim::plan
