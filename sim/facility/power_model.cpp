#include "sim/facility/power_model.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/checked.hpp"

namespace fleetsim::facility {

Watts gpu_power(const GpuSpec& gpu, double activity, double exponent) {
  const double u = std::clamp(activity, 0.0, 1.0);
  return gpu.idle_power + (gpu.tdp - gpu.idle_power) * std::pow(u, exponent);
}

GpuTrainingPower gpu_training_power(const GpuSpec& gpu, const FacilitySpec& f,
                                    TrainingPhases phases) {
  const double busy = std::clamp(phases.compute_busy_fraction, 0.0, 1.0);
  GpuTrainingPower p;
  p.compute = gpu_power(gpu, f.gpu_activity_compute, f.gpu_power_exponent);
  p.communication = gpu_power(gpu, f.gpu_activity_communication, f.gpu_power_exponent);
  p.average = p.compute * busy + p.communication * (1.0 - busy);
  p.mean_activity = busy * f.gpu_activity_compute + (1.0 - busy) * f.gpu_activity_communication;
  return p;
}

NodePower node_power(const ClusterSpec& c, const CoolingSpec& cooling, Watts gpu_power_each,
                     double mean_activity) {
  const NodeSpec& n = c.node;
  NodePower p;
  p.gpus = gpu_power_each * n.gpus_per_node;
  const Watts host_max = max(n.host_power_max, n.host_power_idle);
  p.host = n.host_power_idle + (host_max - n.host_power_idle) * std::clamp(mean_activity, 0.0, 1.0);
  p.fans = (p.gpus + p.host) * cooling.server_fan_fraction;
  if (n.fan_power_max.si() > 0.0) p.fans = min(p.fans, n.fan_power_max);
  return p;
}

NodePower node_nameplate_power(const ClusterSpec& c, const CoolingSpec& cooling) {
  NodePower p = node_power(c, cooling, c.gpu.tdp, 1.0);
  if (c.node.fan_power_max.si() > 0.0 && cooling.server_fan_fraction > 0.0)
    p.fans = c.node.fan_power_max;
  return p;
}

int switch_count(const FabricSpec& fabric, int gpus) {
  if (fabric.gpus_per_leaf <= 0 || gpus <= 0 || fabric.switch_radix <= 1) return 0;
  auto ceil_div = [](double a, double b) { return checked_cast<int>(std::ceil(a / b - 1e-9), "a switch count"); };
  const int leaves = ceil_div(gpus, fabric.gpus_per_leaf);
  if (fabric.tiers <= 1) return leaves;
  const double uplinks = leaves * (fabric.gpus_per_leaf / std::max(1.0, fabric.oversubscription));
  if (fabric.tiers == 2) return leaves + ceil_div(uplinks, fabric.switch_radix);
  const int middle = ceil_div(uplinks, fabric.switch_radix / 2.0);
  const double middle_up = middle * (fabric.switch_radix / 2.0) /
                           std::max(1.0, fabric.pod_oversubscription);
  return leaves + middle + ceil_div(middle_up, fabric.switch_radix);
}

Watts network_power(const FabricSpec& fabric, int gpus) {
  return fabric.switch_power * static_cast<double>(switch_count(fabric, gpus));
}

ClusterPower cluster_power(const ClusterSpec& c, const FacilitySpec& f, TrainingPhases phases) {
  ClusterPower p;
  const CoolingSpec& cool = f.cooling;
  const int gpn = std::max(1, c.node.gpus_per_node);
  const double job_nodes = static_cast<double>(c.gpus) / gpn;
  const double ru = std::clamp(f.resource_utilization, 1e-6, 1.0);
  p.pool_gpus = checked_round<int>(c.gpus / ru, "the GPU pool (gpus / resource_utilization)");
  const double pool_nodes = static_cast<double>(p.pool_gpus) / gpn;

  p.gpu = gpu_training_power(c.gpu, f, phases);
  const Watts idle_node = node_power(c, cool, c.gpu.idle_power, 0.0).total();
  p.network = network_power(c.fabric, p.pool_gpus);
  p.training = node_power(c, cool, p.gpu.average, p.gpu.mean_activity).total() * job_nodes;
  p.training_peak =
      node_power(c, cool, p.gpu.compute, f.gpu_activity_compute).total() * job_nodes;
  p.training_trough =
      node_power(c, cool, p.gpu.communication, f.gpu_activity_communication).total() * job_nodes;
  p.stalled = idle_node * job_nodes;
  p.idle_pool = idle_node * (pool_nodes - job_nodes);
  p.nameplate = node_nameplate_power(c, cool).total() * pool_nodes + p.network;
  return p;
}

}  // namespace fleetsim::facility
