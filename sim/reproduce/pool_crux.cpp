// Crux (Cao et al., "Crux: GPU-Efficient Communication Scheduling for Deep Learning Training",
// SIGCOMM'24, Sec 2.2; data/validation/fabric_interference.csv I01, I02, I07): in Alibaba's
// training cluster 36.3% of jobs, holding 51% of the GPUs, shared links with another job during
// their life. scenarios/pool-crux-alibaba.yaml builds an Alibaba-like cluster; its header gives
// every figure's source.
// Split: calibrated on Crux's arrival count (5,000 jobs in 14 days), its job sizes (Fig 4) and its
// peak-hour concurrency (Fig 5, I07: 30+ jobs on 1,000+ GPUs; the scenario's mean offered load is
// 30 jobs x 33 GPUs = 990 GPUs, checked here as a round trip), Alibaba openb's pod sizes and PAI
// 2020's run-time spread. Judged: I01 and I02, the shares of jobs and of their GPUs that shared a
// fabric link with another job while running, target 10 points each (Crux also counts intra-host
// PCIe links shared by single-host jobs, "a minority", which the model has no links for).
// Not met today (tests/validation/pool_crux_test.cpp bounds the error and names the target): with
// topology placement, as Crux describes its scheduler, the model puts 0.6% of jobs (4.2% of GPUs)
// on a shared link; first-fit gives 21.9% / 79.6% and best-fit 20.2% / 78.8% (the published
// 36.3% / 51% lies between the policies: more jobs share than any policy gives here, fewer GPUs
// than first-fit). At the scenario's 43% allocation a topology-packed job of up to 128 GPUs finds
// a leaf of its own and puts nothing on the uplinks; what is missing is how Alibaba's scheduler
// fragments jobs over switches (heterogeneous hosts, GPU-type constraints, failures) and the
// intra-host links.
#include <algorithm>

#include "sim/config/load.hpp"
#include "sim/pool/pool_model.hpp"
#include "sim/reproduce/pool_sources.hpp"

namespace fleetsim::reproduce {

CruxReproduction crux_reproduction(const std::vector<std::string>& overrides) {
  const std::string scenario = "pool-crux-alibaba";
  const auto r = pool::simulate_pool(config::load_scenario(scenario, overrides));
  CruxReproduction c;
  c.replications = r.replications.size();
  double alloc = 0, hours = 0;
  for (const auto& rep : r.replications) {
    const auto& in = rep.interference;
    c.jobs += static_cast<double>(in.jobs);
    c.shared_jobs_share += in.jobs > 0 ? static_cast<double>(in.shared_jobs) / static_cast<double>(in.jobs) : 0.0;
    c.shared_gpus_share += in.gpus > 0 ? in.shared_gpus / in.gpus : 0.0;
    alloc += rep.allocated_gpu_hours[0];
    hours += rep.pool_gpu_hours;
  }
  const double n = std::max<double>(1, static_cast<double>(c.replications));
  c.jobs /= n;
  c.shared_jobs_share /= n;
  c.shared_gpus_share /= n;
  const int pool_gpus = r.topology.nodes * r.topology.gpus_per_node;
  c.mean_training_gpus = hours > 0 ? alloc / hours * pool_gpus : 0.0;

  const char* src = "Crux (Cao et al., SIGCOMM'24) Alibaba-like cluster, 2,048 GPUs";
  auto add = [&](ValidationCase v, CaseRole role, const std::string& note) {
    v.role = role;
    v.scenario = scenario;
    v.overrides = overrides;
    v.note = note;
    c.cases.push_back(v);
  };
  add(make_case(src, "mean training GPUs allocated (Fig 5: 30+ jobs on 1,000+ GPUs at the peak hour)",
                "allocated GPUs, time mean", 990.0, c.mean_training_gpus, 0.15, false),
      CaseRole::Calibration,
      "round trip of the calibration: arrival rate x mean size x mean run time = 14.9/h x 33 GPUs x 2.02 h; "
      "within 15% (backfill queueing and the 14-day run-time cap move it)");
  add(make_case(src, "I01: jobs that share a link with another job", "share of jobs", 0.363, c.shared_jobs_share, 0.10,
                true),
      CaseRole::Judged,
      "Sec 2.2, Fig 6(a); absolute error in points, tolerance 10 points; the model counts fabric uplink bundles only "
      "(Crux adds intra-host PCIe links, a minority)");
  add(make_case(src, "I02: GPUs of the jobs that share a link", "share of GPUs", 0.51, c.shared_gpus_share, 0.10, true),
      CaseRole::Judged, "Sec 2.2, Fig 6(b); absolute error in points, tolerance 10 points");
  return c;
}

}  // namespace fleetsim::reproduce
