#include "sim/facility/waterfall.hpp"

#include <stdexcept>

namespace fleetsim::facility {

std::string_view factor_key(Factor f) {
  switch (f) {
    case Factor::EnergyEfficiency: return "energy_efficiency";
    case Factor::ResourceUtilization: return "resource_utilization";
    case Factor::Ettr: return "ettr";
    case Factor::ParallelScaling: return "parallel_scaling_efficiency";
    case Factor::SingleGpu: return "single_gpu_efficiency";
  }
  throw std::logic_error("unknown waterfall factor");
}

double factor_value(const WaterfallFactors& w, Factor f) {
  switch (f) {
    case Factor::EnergyEfficiency: return w.energy_efficiency;
    case Factor::ResourceUtilization: return w.resource_utilization;
    case Factor::Ettr: return w.ettr;
    case Factor::ParallelScaling: return w.parallel_scaling_efficiency;
    case Factor::SingleGpu: return w.single_gpu_efficiency;
  }
  throw std::logic_error("unknown waterfall factor");
}

const FactorLoss& Waterfall::loss(Factor f) const {
  for (size_t i = 0; i < kFactorOrder.size(); ++i)
    if (kFactorOrder[i] == f) return losses[i];
  throw std::logic_error("unknown waterfall factor");
}

Waterfall make_waterfall(const WaterfallFactors& f, double pool_gpu_hours, double facility_mwh) {
  Waterfall w;
  w.factors = f;
  w.effective_utilization = f.product();
  w.pool_gpu_hours = pool_gpu_hours;
  w.facility_mwh = facility_mwh;
  double gpu_left = pool_gpu_hours, mwh_left = facility_mwh;
  for (size_t i = 0; i < kFactorOrder.size(); ++i) {
    const double x = factor_value(f, kFactorOrder[i]);
    if (kFactorOrder[i] == Factor::ParallelScaling) {
      const double se = f.straggler_efficiency;
      w.stragglers.mwh = mwh_left * (1.0 - se);
      w.stragglers.gpu_hours = gpu_left * (1.0 - se);
    }
    w.losses[i].mwh = mwh_left * (1.0 - x);
    mwh_left *= x;
    if (kFactorOrder[i] != Factor::EnergyEfficiency) {
      w.losses[i].gpu_hours = gpu_left * (1.0 - x);
      gpu_left *= x;
    }
  }
  w.useful_gpu_hours = gpu_left;
  w.useful_mwh = mwh_left;
  return w;
}

}  // namespace fleetsim::facility
