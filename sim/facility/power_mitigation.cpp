#include "sim/facility/power_mitigation.hpp"

#include <algorithm>
#include <cmath>

namespace fleetsim::facility {

EnergyStore::EnergyStore(const EnergyStorageSpec& spec, double dt) : spec_(spec), dt_(dt) {
  const double tau = std::max(spec.averaging_time().si(), dt);
  alpha_ = 1.0 - std::exp(-dt / tau);  // exponential moving average over tau, sampled every dt
  restore_per_j_ = 1.0 / (10.0 * tau);
  eta_ = std::clamp(spec.efficiency, 1e-6, 1.0);
}

double EnergyStore::step(double load_w) {
  average_w_ += (load_w - average_w_) * alpha_;
  const double capacity = spec_.capacity.si();
  const double restore_w = (energy_j_ - 0.5 * capacity) * restore_per_j_;
  double give_w = std::clamp(load_w - (average_w_ - restore_w), -spec_.power.si(), spec_.power.si());
  if (give_w > 0) {
    give_w = std::min(give_w, energy_j_ / dt_);
    energy_j_ -= give_w * dt_;
  } else {
    const double room_j = capacity - energy_j_;
    give_w = std::max(give_w, -room_j / (eta_ * dt_));
    energy_j_ += -give_w * eta_ * dt_;
    lost_j_ += -give_w * (1.0 - eta_) * dt_;
  }
  return load_w - give_w;
}

}  // namespace fleetsim::facility
