// The five factors whose product is the share of the facility's energy that became useful model
// FLOPs (DESIGN.md §1), and the loss attributed to each.
#pragma once

#include <array>
#include <string_view>

namespace fleetsim::facility {

struct WaterfallFactors {
  double energy_efficiency = 1.0;            // 1 / PUE, energy-weighted over the run
  double single_gpu_efficiency = 1.0;        // MFU of one GPU's share, comm free (× thermal throughput)
  double parallel_scaling_efficiency = 1.0;  // MFU at scale / single-GPU MFU
  double ettr = 1.0;                         // productive time / wall-clock
  double resource_utilization = 1.0;         // GPU-hours allocated / GPU-hours in the pool
  // Part of parallel_scaling_efficiency, not a sixth factor: the healthy iteration over the
  // iteration with stragglers and fail-slow hosts (issue 27). Stragglers belong to parallel
  // scaling because they are time the job runs, synchronized, waiting for its slowest rank:
  // ETTR (Kokolis et al.) counts that time as productive, and the step model's MFU, which
  // parallel scaling divides by, is the healthy one.
  double straggler_efficiency = 1.0;
  [[nodiscard]] double product() const {
    return energy_efficiency * single_gpu_efficiency * parallel_scaling_efficiency * ettr *
           resource_utilization;
  }
};

// Order in which losses are attributed (outermost first): the product does not depend on the
// order, the attribution does. A factor's loss is (product of the factors before it) × (1 − it)
// × the total, so the losses and the useful remainder add up to the total exactly.
enum class Factor { EnergyEfficiency, ResourceUtilization, Ettr, ParallelScaling, SingleGpu };
inline constexpr std::array<Factor, 5> kFactorOrder = {
    Factor::EnergyEfficiency, Factor::ResourceUtilization, Factor::Ettr, Factor::ParallelScaling,
    Factor::SingleGpu};
[[nodiscard]] std::string_view factor_key(Factor f);  // "energy_efficiency", ...
[[nodiscard]] double factor_value(const WaterfallFactors& w, Factor f);

struct FactorLoss {
  double gpu_hours = 0.0;  // pool GPU-hours lost (0 for energy efficiency: PUE costs no GPU time)
  double mwh = 0.0;        // facility energy lost
};

struct Waterfall {
  WaterfallFactors factors;
  double effective_utilization = 1.0;
  std::array<FactorLoss, 5> losses{};  // indexed like kFactorOrder
  // Of the parallel-scaling loss, the part lost to stragglers (attributed first inside it).
  FactorLoss stragglers;
  double pool_gpu_hours = 0.0, useful_gpu_hours = 0.0;
  double facility_mwh = 0.0, useful_mwh = 0.0;
  [[nodiscard]] const FactorLoss& loss(Factor f) const;
};

// GPU-hours start from the pool's GPU-hours and skip the energy factor; MWh start from the
// facility energy and take all five.
[[nodiscard]] Waterfall make_waterfall(const WaterfallFactors& f, double pool_gpu_hours,
                                       double facility_mwh);

}  // namespace fleetsim::facility
