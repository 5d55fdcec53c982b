// The cost of a design and of its run: capex (servers, NICs, switch ports, optics, facility per IT
// MW by cooling kind), the run's share of it annualized at the cost of capital, operations as a
// share of capex, and the energy at the site's price; and the rental alternative.
//
// Capital recovery (annuity) factor, the standard engineering-economics formula:
//   CRF(r, n) = r / (1 - (1 + r)^-n)   (1/n when r = 0)
// The run is charged CRF x capex per year of its wall-clock, so a run that takes a fifth of the
// amortization period pays a fifth of the annuity (its share of the cluster's life).
#pragma once

#include <string>
#include <vector>

#include "sim/plan/plan_spec.hpp"

namespace fleetsim::plan {

struct CostInputs {
  int nodes = 0;                  // bought: the job's nodes plus hot spares
  int gpus = 0;                   // bought: nodes x GPUs per node
  int job_gpus = 0;               // the job's GPUs (rental is charged on these)
  int nics = 0;                   // scale-out NIC ports
  int switch_ports = 0;           // switches x radix
  Watts design_it_power;          // the facility is built for this IT load (the job at peak)
  std::string cooling_kind;       // air_chiller, liquid_direct, ...
  Seconds wall_clock;             // of the run
  Dollars energy_cost;            // facility energy x site price (the facility model's)
  double tokens = 0.0;            // trained
};

struct CostItem {
  std::string name;
  double usd = 0.0;
};

struct Cost {
  // Capex.
  double servers = 0, nics = 0, switches = 0, optics = 0, facility = 0;
  [[nodiscard]] double it_capex() const { return servers + nics + switches + optics; }
  [[nodiscard]] double capex() const { return it_capex() + facility; }
  // The run.
  double life_share = 0;          // run wall-clock / IT amortization period
  double capital_it = 0;          // annuity on IT capex over the run
  double capital_facility = 0;    // annuity on facility capex over the run
  double operations = 0;
  double energy = 0;
  [[nodiscard]] double owned() const { return capital_it + capital_facility + operations + energy; }
  double rental = 0;              // job GPU-hours x rental price
  double gpu_hours = 0;           // job GPUs x wall-clock hours
  double per_token = 0;           // of the chosen basis
  double run_usd = 0;             // the chosen basis (owned or rental)
  // GPU-hours -> dollars, in order: the cost waterfall of the run.
  [[nodiscard]] std::vector<CostItem> waterfall() const;
};

[[nodiscard]] double capital_recovery_factor(double rate, double years);

// Rental price x GPU-hours: the DeepSeek-V3 / Llama 3.1 accounting ($/GPU-hour).
[[nodiscard]] double rental_cost(double gpu_hours, DollarsPerSecond rental_price);

[[nodiscard]] Cost cost_of(const CostInputs& in, const SystemPrice& system, const Prices& prices, bool rental_basis);

}  // namespace fleetsim::plan
