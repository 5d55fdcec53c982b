// Crux (Cao et al., "Crux: GPU-Efficient Communication Scheduling for Deep Learning Training",
// SIGCOMM'24, Sec 2.2, Figs 4-6; data/validation/fabric_interference.csv I01, I02, I07): in Alibaba's
// training cluster 36.3% of the running jobs, occupying 51% of the GPUs, were at risk of sharing a
// link with another job. scenarios/pool-crux-alibaba.yaml builds an Alibaba-like cluster; its
// header gives every figure's source.
// What is compared: Fig 6(a) plots the ratio of running jobs at risk over the two weeks; its time
// mean, digitized from the PDF (data/supplement/crux2024_figures_digitized.csv), is 0.362, the
// text's 36.3%: a snapshot share averaged over time (pool.interference_running_shared_jobs_share).
// Fig 6(b)'s ratio for GPUs digitizes to 0.352, so the text's 51% must count something else: the
// GPUs of the jobs that were ever at risk (pool.interference_shared_gpus_share) is the reading
// used; Fig 6(b)'s 0.352 is judged as well.
// Split: calibrated on Crux's job count (5,000 in 14 days), Fig 4's sizes and Fig 5's time means
// (12.5 running jobs, 683 active GPUs; the allocated GPUs are checked here as a round trip), PAI
// 2020's run-time spread and the cluster's topology file (leaves of 8 hosts). Judged: I01, I02 and
// Fig 6(b), target 10 points each.
// Not met today: I01 (tests/validation/pool_crux_test.cpp bounds the error and names the target).
// The model puts 11% of running jobs on a shared link, but 35% of the GPUs (Fig 6(b): 35.2%) and
// 49% of the GPUs of jobs ever at risk (51%): the large jobs that span ToRs share as often as in
// Alibaba's cluster, the small ones (half the running jobs hold 16 GPUs or fewer) do not. At 31%
// load a job of up to 64 GPUs finds a ToR, or a host, of its own under this placement, and giving
// jobs GPUs rather than whole hosts (same-switch) does not change that. What Crux's small jobs share
// is not in the public data: the job and worker files (which hosts each job held) were not in the
// dataset's snapshot, and the paper's simulation topology (6 ToRs, hosts dual-homed by 8 links,
// Sec 6.1) differs from the topology file (119 ToRs). Other placements bracket the number:
// first-fit 40% of jobs but 72% of GPUs; topology (fewest leaves) 1% / 2%.
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
    c.shared_jobs_share += in.shared_jobs_share();
    c.shared_gpus_share += in.shared_gpus_share();
    c.running_jobs_share += in.running_shared_jobs_share();
    c.running_gpus_share += in.running_shared_gpus_share();
    alloc += rep.allocated_gpu_hours[0];
    hours += rep.pool_gpu_hours;
  }
  const double n = std::max<double>(1, static_cast<double>(c.replications));
  c.jobs /= n;
  c.shared_jobs_share /= n;
  c.shared_gpus_share /= n;
  c.running_jobs_share /= n;
  c.running_gpus_share /= n;
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
  add(make_case(src, "active GPUs, time mean (Fig 5(b), digitized)", "allocated GPUs, time mean", 683.0,
                c.mean_training_gpus, 0.15, false),
      CaseRole::Calibration,
      "round trip of the calibration: run times chosen for Fig 5's 12.5 running jobs and 683 active GPUs at 14.9 "
      "jobs/h; within 15% (backfill queueing and the 14-day run-time cap move it)");
  add(make_case(src, "I01: running jobs on a link shared with another job (Fig 6(a) ratio, time mean)",
                "share of running jobs", 0.363, c.running_jobs_share, 0.10, true),
      CaseRole::Judged,
      "Sec 2.2, Fig 6(a); absolute error in points, tolerance 10 points; placement same-switch as Crux describes it");
  add(make_case(src, "I02: GPUs of the jobs ever on a shared link", "share of GPUs", 0.51, c.shared_gpus_share, 0.10,
                true),
      CaseRole::Judged, "Sec 2.2; absolute error in points, tolerance 10 points");
  add(make_case(src, "Fig 6(b): active GPUs on a shared link (ratio, time mean, digitized)", "share of active GPUs",
                0.352, c.running_gpus_share, 0.10, true),
      CaseRole::Judged, "Fig 6(b) read off the PDF by pixel; absolute error in points, tolerance 10 points");
  return c;
}

}  // namespace fleetsim::reproduce
