// Failure presets. Sources:
// - llama3-h100: Llama Team 2024, The Llama 3 Herd of Models, arXiv:2407.21783, §3.3.4 Table 5:
//   419 unexpected interruptions by cause and 47 planned in a 54-day snapshot on 16,384 H100
//   (2,048 nodes). Rates per component-year = count / (components x 54/365 yr); the exposure is
//   2,423.9 GPU-years, 303.0 node-years (research note §1.2).
// - meta-rsc1 / meta-rsc2: Kokolis et al., Revisiting Reliability in Large-Scale ML Research
//   Clusters, HPCA'25, arXiv:2410.21680: r_f = 6.50 / 2.34 failures per 1000 node-days.
#include "sim/run/profiles.hpp"

#include "sim/core/error.hpp"

namespace fleetsim::run {
namespace {

constexpr double kYear = 365.0 * 86400.0;
constexpr double kDay = 86400.0;

FailureComponent comp(const char* name, const char* category, ComponentScope scope, double per_year,
                      FailureMode mode, bool repair, bool correlated = false) {
  FailureComponent c;
  c.name = name;
  c.category = category;
  c.scope = scope;
  c.rate = PerSecond(per_year / kYear);
  c.mode = mode;
  c.needs_repair = repair;
  c.correlated_node_loss = correlated;
  return c;
}

// Table 5 count -> rate per component-year for `components` components over 54 days.
double table5(double count, double components) { return count / (components * 54.0 / 365.0); }

FailureProfile llama3_h100() {
  FailureProfile p;
  p.name = "llama3-h100";
  const double gpus = 16384, nodes = 2048, leaves = 1024;  // Llama 3: 16 GPUs per ToR (§3.3.1)
  using S = ComponentScope;
  using M = FailureMode;
  p.components = {
      comp("faulty_gpu", "GPU", S::Gpu, table5(148, gpus), M::Crash, true),
      comp("gpu_hbm3_memory", "GPU", S::Gpu, table5(72, gpus), M::Crash, true),
      // Job-level processes scale with the job: scope gpu (more ranks, more chances).
      comp("software_bug", "Dependency", S::Gpu, table5(54, gpus), M::Crash, false),
      // Network Switch/Cable (35) split 32 links : 3 leaf switches, after Alibaba HPN (SIGCOMM'24):
      // 0.057%/month of NIC-ToR links vs 0.051%/month of ToR switches, ~16 links per ToR [U].
      comp("network_cable", "Network", S::Link, table5(32, gpus), M::Crash, true),
      comp("network_switch", "Network", S::LeafSwitch, table5(3, leaves), M::Crash, true, true),
      comp("host_maintenance", "Unplanned Maintenance", S::Node, table5(32, nodes), M::Crash, true),
      comp("gpu_sram_memory", "GPU", S::Gpu, table5(19, gpus), M::Crash, true),
      comp("gpu_system_processor", "GPU", S::Gpu, table5(17, gpus), M::Crash, true),
      comp("nic", "Host", S::Nic, table5(7, gpus), M::Crash, true),  // one NIC per GPU
      comp("nccl_watchdog_timeouts", "Unknown", S::Gpu, table5(7, gpus), M::Hang, false),
      // SDC is noticed late (loss spikes, checks): detected like a hang.
      comp("silent_data_corruption", "GPU", S::Gpu, table5(6, gpus), M::Hang, true),
      comp("gpu_thermal_interface_sensor", "GPU", S::Gpu, table5(6, gpus), M::Crash, true),
      comp("ssd", "Host", S::Node, table5(3, nodes), M::Crash, true),
      comp("power_supply", "Host", S::Node, table5(3, nodes), M::Crash, true),
      comp("server_chassis", "Host", S::Node, table5(2, nodes), M::Crash, true),
      comp("io_expansion_board", "Host", S::Node, table5(2, nodes), M::Crash, true),
      comp("dependency", "Dependency", S::Gpu, table5(2, gpus), M::Crash, false),
      comp("cpu", "Host", S::Node, table5(2, nodes), M::Crash, true),
      comp("system_memory", "Host", S::Node, table5(2, nodes), M::Crash, true),
  };
  p.lemon_fraction = 0.015;   // research note §1.6 [U]; Kokolis: lemons were 1.2% of RSC-1
  p.lemon_multiplier = 10.0;  // research note §1.6 [U]
  p.planned_rate_per_job = PerSecond(47.0 / (54.0 * kDay));  // Table 5 text: 47 planned in 54 d
  p.rate_scale = 1.0;
  p.repair_median = Seconds(2 * 3600.0);  // research note §1.6 [U]: swaps 2 h median
  p.repair_sigma = 1.2;                   // research note §1.6 [U]
  return p;
}

FailureProfile meta_rsc(const char* name, double per_1000_node_days, double lemon_fraction,
                        double lemon_multiplier) {
  FailureProfile p;
  p.name = name;
  p.components = {comp("node_hardware", "Hardware", ComponentScope::Node, per_1000_node_days / 1000.0 * 365.0,
                       FailureMode::Crash, true)};
  p.lemon_fraction = lemon_fraction;
  p.lemon_multiplier = lemon_multiplier;
  p.planned_rate_per_job = PerSecond(0.0);
  p.rate_scale = 1.0;
  p.repair_median = Seconds(2 * 3600.0);
  p.repair_sigma = 1.2;
  return p;
}

}  // namespace

FailureProfile builtin_profile(const std::string& name) {
  if (name == "llama3-h100") return llama3_h100();
  // Kokolis: 40 lemon nodes = 1.2% of RSC-1, in ~13% of daily job failures -> multiplier ~12 [U].
  if (name == "meta-rsc1") return meta_rsc("meta-rsc1", 6.50, 0.012, 12.0);
  if (name == "meta-rsc2") return meta_rsc("meta-rsc2", 2.34, 0.0, 1.0);  // lemons not reported
  throw ConfigError("", "failures.profile", "unknown failure profile '" + name +
                                                "'; valid: llama3-h100, meta-rsc1, meta-rsc2");
}

std::vector<std::string> builtin_profile_names() { return {"llama3-h100", "meta-rsc1", "meta-rsc2"}; }

}  // namespace fleetsim::run
