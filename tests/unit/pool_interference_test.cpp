// Jobs that slow each other on one fabric (issue 28, sim/pool/interference.hpp).
//  - The analytical link sharing against the SimGrid tier on two-job scenarios with explicit
//    placements (scenarios/pool-interference-pair.yaml and variations): iteration times alone and
//    together within 10%.
//  - The negative control: one job on a dedicated, non-oversubscribed fabric is not slowed.
//  - scenarios/pool-interference.yaml: losses grow with oversubscription, shrink with
//    topology-aware placement; GPU-hours still add up; off by default.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "sim/config/load.hpp"
#include "sim/pool/pool_model.hpp"
#include "sim/simgrid/fabric.hpp"
#include "sim/simgrid/isolate.hpp"
#include "sim/simgrid/plan.hpp"
#include "sim/simgrid/sg_runs.hpp"
#include "tests/test_paths.hpp"

namespace {

using fleetsim::ExplicitJob;
using fleetsim::Scenario;
using fleetsim::TrafficPattern;

Scenario pair_scenario(std::vector<std::string> sets = {}) {
  return fleetsim::config::load_scenario(fleetsim::testing::source_dir() + "/scenarios/pool-interference-pair.yaml", sets);
}

// The flows one iteration of `e` puts on the fabric, one per NIC and peer, carrying the NIC's bytes.
std::vector<fleetsim::sgtier::Flow> job_flows(const ExplicitJob& e, int G, int nics, bool background) {
  std::vector<int> nodes = e.nodes;
  std::sort(nodes.begin(), nodes.end());
  const int n = static_cast<int>(nodes.size());
  // A background job keeps sending for as long as the foreground job runs (sustained sharing, as
  // the analytical model assumes); run_flow_step cancels it when the foreground is done.
  const double scale = background ? 1e6 : 1.0;
  std::vector<fleetsim::sgtier::Flow> flows;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < nics; ++k) {
      const int gpu_k = k * G / nics;
      if (e.traffic == TrafficPattern::Ring) {
        flows.push_back({nodes[i] * G + gpu_k, nodes[(i + 1) % n] * G + gpu_k, e.comm_bytes * scale, background});
      } else {
        for (int m = 0; m < n; ++m)
          if (m != i) flows.push_back({nodes[i] * G + gpu_k, nodes[m] * G + gpu_k, e.comm_bytes / (n - 1) * scale, background});
      }
    }
  return flows;
}

// Iteration time of job `focus` on the SimGrid tier: its compute plus its flows' completion, alone
// or with every other explicit job's flows contending.
double simgrid_iteration(const Scenario& s, size_t focus, bool together) {
  using namespace fleetsim::sgtier;
  const auto& jobs = s.pool.interference.jobs;
  const int G = s.cluster.node.gpus_per_node, nics = s.cluster.node.nics_per_node;
  Fabric fabric(s.cluster, s.pool.gpus);
  std::vector<Flow> flows = job_flows(jobs[focus], G, nics, false);
  if (together)
    for (size_t k = 0; k < jobs.size(); ++k)
      if (k != focus) {
        auto bg = job_flows(jobs[k], G, nics, true);
        flows.insert(flows.end(), bg.begin(), bg.end());
      }
  REQUIRE(flows.size() <= 4096);  // SimGrid 3.32's flow budget (docs/research/simgrid.md)
  IsolatedRun run([&] { return std::vector<double>{run_flow_step(fabric, flows, LinkScale{}, EngineConfig{})}; });
  return jobs[focus].compute_time_s + run.get().front();
}

struct PairCase {
  std::string name;
  std::vector<std::string> sets;
  std::vector<std::vector<int>> nodes;  // per job (empty: as in the file)
  std::vector<double> comm_gb;          // per job (empty: as in the file)
};

}  // namespace

TEST_CASE("pool interference: analytical sharing agrees with the SimGrid tier within 10% on two-job iteration times",
          "[unit][pool][interference][simgrid]") {
  const std::vector<PairCase> cases = {
      {"interleaved, 3:1", {}, {}, {}},
      {"interleaved, 1:1", {"cluster.fabric.oversubscription=1"}, {}, {}},
      {"interleaved, 2:1 (16 flows on 16 NIC rates: fits)", {"cluster.fabric.oversubscription=2"}, {}, {}},
      {"interleaved, 4:1, unequal bytes", {"cluster.fabric.oversubscription=4"}, {}, {20, 8}},
      {"partial overlap, 3:1 (share two of three leaves)",
       {},
       {{0, 1, 2, 4, 5, 6, 12, 13}, {3, 7, 8, 9, 10, 11, 14, 15}},
       {20, 10}},
      {"packed vs interleaved, 3:1 (job a on two whole leaves)", {}, {{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}}, {}},
  };
  double worst = 0;
  for (const auto& c : cases) {
    Scenario s = pair_scenario(c.sets);
    auto& jobs = s.pool.interference.jobs;
    for (size_t k = 0; k < c.nodes.size(); ++k) jobs[k].nodes = c.nodes[k];
    for (size_t k = 0; k < c.comm_gb.size(); ++k) jobs[k].comm_bytes = c.comm_gb[k] * 1e9;
    const auto r = fleetsim::pool::simulate_pool(s, 1);
    std::map<std::string, fleetsim::pool::InterferenceOut::JobTimes> analytic;
    for (const auto& t : r.replications.front().interference.explicit_jobs) analytic[t.name] = t;
    REQUIRE(analytic.size() == jobs.size());
    for (size_t k = 0; k < jobs.size(); ++k) {
      const auto& a = analytic.at(jobs[k].name);
      const double sg_alone = simgrid_iteration(s, k, false), sg_together = simgrid_iteration(s, k, true);
      const double e_alone = a.alone_s / sg_alone - 1, e_together = a.together_s / sg_together - 1;
      std::printf("  %-55s job %s: alone %.3f s (SimGrid %.3f, %+.1f%%), together %.3f s (SimGrid %.3f, %+.1f%%), "
                  "slowdown %.3f (SimGrid %.3f)\n",
                  c.name.c_str(), jobs[k].name.c_str(), a.alone_s, sg_alone, 100 * e_alone, a.together_s, sg_together,
                  100 * e_together, a.together_s / a.alone_s, sg_together / sg_alone);
      CHECK(std::abs(e_alone) <= 0.10);
      CHECK(std::abs(e_together) <= 0.10);
      worst = std::max({worst, std::abs(e_alone), std::abs(e_together)});
    }
  }
  std::printf("  worst iteration-time error against SimGrid: %.1f%% (bound 10%%)\n", 100 * worst);
}

TEST_CASE("pool interference: an all-to-all job beside a ring job agrees with the SimGrid tier within 10%",
          "[unit][pool][interference][simgrid]") {
  // The all-to-all job has 6 cross-leaf flows per NIC, each wanting a seventh of the NIC; per-flow
  // fairness gives it most of a shared bundle and slows the ring job's 8 flows about tenfold. The
  // per-link water-filling sees that (a fluid share per job would not: 2.6 s against 5.6 s).
  Scenario s = pair_scenario();
  s.pool.interference.jobs[0].traffic = TrafficPattern::AllToAll;
  const auto r = fleetsim::pool::simulate_pool(s, 1);
  double worst = 0;
  for (size_t k = 0; k < 2; ++k) {
    const auto& a = r.replications.front().interference.explicit_jobs.at(k);
    const size_t idx = a.name == "a" ? 0 : 1;
    const double sg_alone = simgrid_iteration(s, idx, false), sg_together = simgrid_iteration(s, idx, true);
    std::printf("  all-to-all a + ring b, 3:1: job %s: alone %.3f s (SimGrid %.3f), together %.3f s (SimGrid %.3f)\n",
                a.name.c_str(), a.alone_s, sg_alone, a.together_s, sg_together);
    worst = std::max({worst, std::abs(a.alone_s / sg_alone - 1), std::abs(a.together_s / sg_together - 1)});
  }
  std::printf("  worst error %.1f%%\n", 100 * worst);
  CHECK(worst <= 0.10);
}

TEST_CASE("pool interference: negative control, one job on a dedicated non-oversubscribed fabric is not slowed",
          "[unit][pool][interference]") {
  for (const char* routing : {"ecmp", "adaptive"}) {
    Scenario s = pair_scenario({"cluster.fabric.oversubscription=1", std::string("pool.interference.routing=") + routing,
                                "pool.interference.overlap=aligned"});
    s.pool.interference.jobs.resize(1);
    const auto r = fleetsim::pool::simulate_pool(s, 1);
    const auto& in = r.replications.front().interference;
    REQUIRE(in.explicit_jobs.size() == 1);
    INFO(routing);
    CHECK(in.explicit_jobs[0].together_s == in.explicit_jobs[0].alone_s);
    CHECK(in.gpu_hours_lost == 0.0);
    CHECK(in.shared_jobs == 0);
  }
}

TEST_CASE("pool interference: off by default, the pool's numbers do not move", "[unit][pool][interference]") {
  const auto s = fleetsim::config::load_scenario(fleetsim::testing::source_dir() + "/tests/unit/pool_small.yaml", {});
  CHECK_FALSE(s.pool.interference.enabled);
  const auto r = fleetsim::pool::simulate_pool(s, 1);
  CHECK_FALSE(r.replications.front().interference.enabled);
  CHECK(r.replications.front().interference.gpu_hours_lost == 0.0);
}

namespace {

struct PoolRun {
  double lost = 0, slowdown = 0, shared_jobs = 0, shared_gpus = 0;
};

PoolRun interference_pool(double over, const std::string& placement, std::vector<std::string> extra = {}) {
  std::vector<std::string> sets = {"cluster.fabric.oversubscription=" + std::to_string(over), "pool.placement=" + placement};
  sets.insert(sets.end(), extra.begin(), extra.end());
  const auto s = fleetsim::config::load_scenario(fleetsim::testing::source_dir() + "/scenarios/pool-interference.yaml", sets);
  const auto r = fleetsim::pool::simulate_pool(s, 2);
  PoolRun out;
  double n = 0;
  for (const auto& rep : r.replications) {
    const auto& in = rep.interference;
    out.lost += in.gpu_hours_lost / r.replications.size();
    out.shared_jobs += static_cast<double>(in.shared_jobs) / std::max(1LL, in.jobs) / r.replications.size();
    out.shared_gpus += in.shared_gpus / std::max(1.0, in.gpus) / r.replications.size();
    for (float x : in.slowdown) out.slowdown += x, n += 1;
    // GPU-hours add up: allocated plus the five free-time causes equal the pool's (interference is
    // allocated time that ran slower, like restart).
    double alloc = 0, free_causes = 0;
    for (double a : rep.allocated_gpu_hours) alloc += a;
    for (int l = 0; l < 5; ++l) free_causes += rep.lost_gpu_hours[l];
    CHECK(alloc + free_causes == Approx(rep.pool_gpu_hours).epsilon(1e-9));
    CHECK(in.gpu_hours_lost <= alloc);
  }
  out.slowdown /= std::max(1.0, n);
  return out;
}

}  // namespace

TEST_CASE("pool interference: scenarios/pool-interference.yaml, losses grow with oversubscription and shrink with "
          "topology-aware placement",
          "[unit][pool][interference]") {
  std::map<std::string, PoolRun> runs;
  for (double over : {1.0, 3.0})
    for (const std::string pl : {"topology", "first-fit"}) {
      const auto r = interference_pool(over, pl);
      std::printf("  %.0f:1 %-10s interference GPU-h lost %8.0f, job slowdown mean %.4f, jobs sharing a link %.3f "
                  "(GPUs %.3f)\n",
                  over, pl.c_str(), r.lost, r.slowdown, r.shared_jobs, r.shared_gpus);
      runs[std::to_string(static_cast<int>(over)) + pl] = r;
    }
  CHECK(runs["3topology"].lost > runs["1topology"].lost);
  CHECK(runs["3first-fit"].lost > runs["1first-fit"].lost);
  CHECK(runs["1topology"].lost < runs["1first-fit"].lost);
  CHECK(runs["3topology"].lost < runs["3first-fit"].lost);
  CHECK(runs["3topology"].slowdown < runs["3first-fit"].slowdown);
  // ECMP collisions keep some interference at 1:1 (Crux, fabric_interference.csv I04).
  CHECK(runs["1first-fit"].lost > 0);
  // The policies that use the model, on the same stream (3:1): network-aware placement and
  // communication priority on shared links, against topology packing.
  const auto aware = interference_pool(3.0, "network-aware");
  const auto prio = interference_pool(3.0, "topology", {"pool.interference.sharing=comm-priority"});
  std::printf("  3:1 network-aware interference GPU-h lost %8.0f, job slowdown mean %.4f\n", aware.lost, aware.slowdown);
  std::printf("  3:1 topology + comm-priority GPU-h lost %8.0f, job slowdown mean %.4f\n", prio.lost, prio.slowdown);
  CHECK(aware.lost <= runs["3topology"].lost);
}

TEST_CASE("pool interference: deterministic at any thread count", "[unit][pool][interference]") {
  const auto s = fleetsim::config::load_scenario(fleetsim::testing::source_dir() + "/scenarios/pool-interference.yaml",
                                                 {"cluster.fabric.oversubscription=3", "pool.duration=3 d"});
  const auto a = fleetsim::pool::simulate_pool(s, 1), b = fleetsim::pool::simulate_pool(s, 2);
  for (size_t k = 0; k < a.replications.size(); ++k) {
    CHECK(a.replications[k].interference.gpu_hours_lost == b.replications[k].interference.gpu_hours_lost);
    CHECK(a.replications[k].interference.slowdown == b.replications[k].interference.slowdown);
  }
}

namespace {

// One explicit job's iteration times from a pair scenario reshaped by `sets`, with the jobs'
// placements replaced; compute and bytes per NIC per iteration the same for every job.
fleetsim::pool::InterferenceOut::JobTimes placed_job(std::vector<std::string> sets,
                                                     const std::vector<std::vector<int>>& nodes, double compute_s,
                                                     double comm_bytes, const std::string& focus) {
  Scenario s = pair_scenario(sets);
  auto& jobs = s.pool.interference.jobs;
  jobs.resize(nodes.size(), jobs.front());
  const int G = s.cluster.node.gpus_per_node;
  for (size_t k = 0; k < nodes.size(); ++k) {
    jobs[k].name = std::string(1, static_cast<char>('a' + k));
    jobs[k].nodes = nodes[k];
    jobs[k].gpus = static_cast<int>(nodes[k].size()) * G;
    jobs[k].compute_time_s = compute_s;
    jobs[k].comm_bytes = comm_bytes;
  }
  const auto r = fleetsim::pool::simulate_pool(s, 1);
  for (const auto& t : r.replications.front().interference.explicit_jobs)
    if (t.name == focus) return t;
  FAIL("no explicit job " << focus);
  return {};
}

std::vector<int> node_range(int from, int to) {  // [from, to)
  std::vector<int> v;
  for (int k = from; k < to; ++k) v.push_back(k);
  return v;
}

// The exposed communication share of an iteration, alone and uncontended: the model's documented
// default for stream jobs (pool.interference.comm_share = 0.2), NOT fitted on the published cases
// below. NDR NIC at 0.85 efficiency moves 42.5 GB/s, so 8.5 GB per NIC is 0.2 s next to 0.8 s.
constexpr double kCompute = 0.8, kCommBytes = 8.5e9;

}  // namespace

TEST_CASE("pool interference: Alibaba HPN, one 2,304-GPU job in 3 tier-1 segments instead of 19 trains faster "
          "(I28: +14.9%, band +5% .. +45%)",
          "[unit][pool][interference][validation]") {
  // Published (data/validation/fabric_interference.csv I28, Qian et al. SIGCOMM'24 Sec 9.1): a
  // 2,300+ GPU production job spans 19 segments of 128 GPUs in DCN+ and 3 of 1K GPUs in HPN;
  // end-to-end training "improved by more than 14.9%".
  // Reproduced: the direction (fewer segments is faster) and the size within +5% .. +45% (the
  // quote is a lower bound from one job; the band is wide because one ECMP collision more or less
  // on the slowest ring hop moves it by the whole communication share).
  // Assumed (not in the quote): the same 1:1 tier-1 uplinks in both fabrics; ECMP per-flow hashing
  // in both (HPN's dual plane, I26, is a separate gain left out); a ring over the job's nodes; a
  // communication share of 0.2 alone (the stream default, not fitted here); 24 segments' worth of
  // pool (3,072 GPUs) with the rest held by one other ring job (cluster.gpus 4,096 only keeps the
  // scenario's training batch divisible; the pool is pool.gpus).
  const std::vector<std::string> base = {"cluster.gpus=4096", "pool.gpus=3072", "cluster.fabric.oversubscription=1",
                                         "pool.interference.routing=ecmp"};
  auto with = [&](std::string leaf) {
    auto v = base;
    v.push_back("cluster.fabric.gpus_per_leaf=" + leaf);
    return v;
  };
  // DCN+: 16 nodes a segment; the job on nodes 8..295 touches segments 0..18 (19), the other job
  // the rest (nodes 0..7 and 296..383).
  std::vector<int> other_dcn = node_range(0, 8), tail = node_range(296, 384);
  other_dcn.insert(other_dcn.end(), tail.begin(), tail.end());
  const auto dcn = placed_job(with("128"), {node_range(8, 296), other_dcn}, kCompute, kCommBytes, "a");
  // HPN: 128 nodes a segment; the job on nodes 0..287 touches segments 0..2 (3).
  const auto hpn = placed_job(with("1024"), {node_range(0, 288), node_range(288, 384)}, kCompute, kCommBytes, "a");
  const double gain = dcn.together_s / hpn.together_s - 1;
  std::printf("  HPN I28: 2,304-GPU job, iteration %.3f s over 19 segments (DCN+), %.3f s over 3 (HPN): "
              "%+.1f%% (published: more than +14.9%%; band +5%% .. +45%%)\n",
              dcn.together_s, hpn.together_s, 100 * gain);
  CHECK(gain > 0.05);
  CHECK(gain < 0.45);
}

TEST_CASE("pool interference: Meta, racks only partly given to a job under fixed path assignment train >30% slower "
          "(I33, band 1.30 .. 2.0)",
          "[unit][pool][interference][validation]") {
  // Published (fabric_interference.csv I33, Gangidi et al. SIGCOMM'24 via Meta's blog): a rack
  // partly given to a job, one of its two hosts using the uplinks, under path pinning: uneven
  // traffic on the rack switch's uplinks "degraded the training performance up to more than 30%".
  // Reproduced: the direction (fragmented is slower than the same job with its traffic spread, and
  // slower than whole racks under the same pinning) and the size: 1.30 .. 2.0 times the ideal.
  // Assumed: Meta's rack of 16 GPUs (two 8-GPU hosts, I35) as the leaf, 1:1 uplinks (I35's pod);
  // path pinning as a fixed per-flow hash onto one uplink (ECMP routing here); "ideal" as the
  // same placement alone with traffic spread evenly (adaptive routing, what E-ECMP + QP scaling
  // approach, I34); the other host of each rack held by a second job communicating at the same
  // time (overlap aligned); a ring; communication share 0.2 alone (not fitted here).
  const std::vector<std::string> base = {"cluster.gpus=512", "pool.gpus=512", "cluster.fabric.oversubscription=1",
                                         "cluster.fabric.gpus_per_leaf=16"};
  auto routed = [&](const char* r) {
    auto v = base;
    v.push_back(std::string("pool.interference.routing=") + r);
    return v;
  };
  std::vector<int> even, odd;
  for (int k = 0; k < 64; ++k) (k % 2 ? odd : even).push_back(k);
  const auto frag_pinned = placed_job(routed("ecmp"), {even, odd}, kCompute, kCommBytes, "a");
  const auto frag_spread = placed_job(routed("adaptive"), {even, odd}, kCompute, kCommBytes, "a");
  const auto whole_pinned = placed_job(routed("ecmp"), {node_range(0, 32), node_range(32, 64)}, kCompute, kCommBytes, "a");
  const double slow = frag_pinned.together_s / frag_spread.alone_s;
  std::printf("  Meta I33: 256-GPU job, one host per rack, pinned %.3f s, spread %.3f s (alone %.3f s); whole racks "
              "pinned %.3f s: fragmented + pinned %.2fx the ideal (published: more than 1.30x; band 1.30 .. 2.0)\n",
              frag_pinned.together_s, frag_spread.together_s, frag_spread.alone_s, whole_pinned.together_s, slow);
  CHECK(frag_pinned.together_s > whole_pinned.together_s);
  CHECK(frag_pinned.together_s > frag_spread.together_s);
  CHECK(slow >= 1.30);
  CHECK(slow <= 2.0);
}
