// IT power: GPUs by phase, the rest of the node, server fans and network switches
// (reliability_energy.md §4.4, §4.5).
#pragma once

#include "sim/facility/specs.hpp"
#include "sim/scenario.hpp"

namespace fleetsim::facility {

// §4.4: P_gpu(u) = P_idle + (P_TDP − P_idle)·u^α, u = activity in [0, 1].
[[nodiscard]] Watts gpu_power(const GpuSpec& gpu, double activity, double exponent = 1.0);

// What the GPUs of a training job do within one iteration: compute-bound for
// `compute_busy_fraction` of it (activity facility.gpu_activity_compute), communication-bound
// or waiting the rest (facility.gpu_activity_communication).
struct TrainingPhases {
  double compute_busy_fraction = 1.0;
};

// Per-GPU power of a training job: in each phase and averaged over an iteration.
struct GpuTrainingPower {
  Watts compute;   // compute-bound phase
  Watts communication;
  Watts average;   // iteration average
  double mean_activity = 0.0;
};
[[nodiscard]] GpuTrainingPower gpu_training_power(const GpuSpec& gpu, const FacilitySpec& f,
                                                  TrainingPhases phases);

// One node: its GPUs, the host (CPUs, DRAM, NICs, NVSwitch, PSU loss) and server fans.
struct NodePower {
  Watts gpus, host, fans;
  [[nodiscard]] Watts total() const { return gpus + host + fans; }
};
// All GPUs of the node at `gpu_power` each; host power interpolates between idle and max with
// the mean GPU activity; fans = cooling.server_fan_fraction × (GPUs + host), capped at the
// node's fan_power_max when that is set.
[[nodiscard]] NodePower node_power(const ClusterSpec& c, const CoolingSpec& cooling,
                                   Watts gpu_power_each, double mean_activity);
// Nameplate: every GPU at TDP, host at max, fans at max (or at their fraction of the rest).
[[nodiscard]] NodePower node_nameplate_power(const ClusterSpec& c, const CoolingSpec& cooling);

// Switches of a folded Clos for `gpus` endpoints: leaves = gpus / gpus_per_leaf; each leaf has
// gpus_per_leaf / oversubscription uplinks; a middle tier of radix/2-down switches; a top tier of
// radix-down switches (thinned by pod_oversubscription). Approximate, for power only.
[[nodiscard]] int switch_count(const FabricSpec& fabric, int gpus);
[[nodiscard]] Watts network_power(const FabricSpec& fabric, int gpus);

// Cluster IT power in the states a run moves through.
struct ClusterPower {
  Watts training;          // the job's nodes training (iteration average); switches apart
  Watts training_peak;     // every GPU in its compute phase at once
  Watts training_trough;   // every GPU in its communication phase at once
  Watts stalled;           // the job's nodes idle (restart, checkpoint stall, waiting)
  Watts idle_pool;         // nodes of the pool not allocated to the job (resource utilization)
  Watts network;           // switches (constant)
  Watts nameplate;         // the whole pool at nameplate, with switches
  int pool_gpus = 0;
  GpuTrainingPower gpu;
};
[[nodiscard]] ClusterPower cluster_power(const ClusterSpec& c, const FacilitySpec& f,
                                         TrainingPhases phases);

}  // namespace fleetsim::facility
