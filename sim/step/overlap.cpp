#include "sim/step/overlap.hpp"

#include <algorithm>

namespace fleetsim::step {

double OverlapContention::delay_per_second(double math_share, double network_rate) const {
  // During an overlap window of length t, GEMMs progress at (1 - sm_share) of their rate and
  // memory-bound kernels at (1 - HBM share): the work left over, sm_share x t (resp. the HBM
  // share x t), runs after the window. Per second of overlap:
  const double ms = std::clamp(math_share, 0.0, 1.0);
  const double hbm = std::min(1.0, hbm_share * std::max(0.0, network_rate));
  return ms * sm_share + (1.0 - ms) * hbm;
}

OverlapContention overlap_contention(const GpuSpec& gpu, const ParallelSpec& par) {
  OverlapContention c;
  if (par.overlap_sm_contention && gpu.sm_count > 0)
    c.sm_share = std::min(0.9, static_cast<double>(par.dp_comm_sms) / gpu.sm_count);
  const double hbm = gpu.hbm_bandwidth.si() * gpu.hbm_efficiency;
  if (par.overlap_hbm_contention && hbm > 0) c.hbm_share = kHbmBytesPerNetworkByte / hbm;
  return c;
}

}  // namespace fleetsim::step
