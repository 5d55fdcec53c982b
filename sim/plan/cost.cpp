#include "sim/plan/cost.hpp"

#include <cmath>

namespace fleetsim::plan {

namespace {
constexpr double kYear = 365.0 * 86400.0;
}

double capital_recovery_factor(double rate, double years) {
  if (years <= 0) return 0.0;
  if (rate <= 0) return 1.0 / years;
  return rate / (1.0 - std::pow(1.0 + rate, -years));
}

double rental_cost(double gpu_hours, DollarsPerSecond rental_price) { return gpu_hours * rental_price.si() * 3600.0; }

Cost cost_of(const CostInputs& in, const SystemPrice& system, const Prices& prices, bool rental_basis) {
  Cost c;
  c.servers = in.nodes * system.server_price.si();
  c.nics = in.nics * prices.nic_price.si();
  c.switches = in.switch_ports * prices.switch_port_price.si();
  // Transceivers: two per link; endpoint links plus switch-to-switch links, i.e. the switch ports
  // plus the endpoints (each endpoint link has one switch port and one NIC end).
  c.optics = (in.switch_ports + in.nics) * prices.optics_price.si();
  c.facility = in.design_it_power.si() * prices.facility_capex(in.cooling_kind).si();

  const double run_years = in.wall_clock.si() / kYear;
  const double it_years = prices.amortization.si() / kYear;
  const double fac_years = prices.facility_amortization.si() / kYear;
  c.life_share = it_years > 0 ? run_years / it_years : 0.0;
  c.capital_it = c.it_capex() * capital_recovery_factor(prices.cost_of_capital, it_years) * run_years;
  c.capital_facility = c.facility * capital_recovery_factor(prices.cost_of_capital, fac_years) * run_years;
  c.operations = c.capex() * prices.operations_share * run_years;
  c.energy = in.energy_cost.si();
  c.gpu_hours = in.job_gpus * in.wall_clock.si() / 3600.0;
  c.rental = rental_cost(c.gpu_hours, system.rental_price);
  c.run_usd = rental_basis ? c.rental : c.owned();
  c.per_token = in.tokens > 0 ? c.run_usd / in.tokens : 0.0;
  return c;
}

std::vector<CostItem> Cost::waterfall() const {
  return {{"capital: servers and network", capital_it},
          {"capital: facility", capital_facility},
          {"operations", operations},
          {"energy", energy}};
}

}  // namespace fleetsim::plan
