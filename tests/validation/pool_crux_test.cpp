// Crux's prevalence of inter-job link sharing (issue 28; Cao et al., SIGCOMM'24, Sec 2.2, Figs 4-6;
// fabric_interference.csv I01, I02) on scenarios/pool-crux-alibaba.yaml. The calibration / judged
// split is in sim/reproduce/pool_crux.cpp and the scenario's header.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "sim/reproduce/pool_sources.hpp"
#include "tests/test_paths.hpp"

TEST_CASE("an Alibaba-like cluster: Crux's 36.3% of running jobs on a shared link is a known gap (bounded, target 10 "
          "points), 51% of GPUs and Fig 6(b)'s 35.2% within 10 points",
          "[validation][pool][interference]") {
  const auto c = fleetsim::reproduce::crux_reproduction();
  REQUIRE(c.replications == 8);
  REQUIRE(c.jobs > 3000);  // about 5,000 jobs in 14 days, as in Crux
  REQUIRE(c.cases.size() == 4);
  std::printf("pool-crux-alibaba (%zu replications, %.0f jobs each):\n", c.replications, c.jobs);
  for (const auto& v : c.cases)
    std::printf("  %-11s %-84s published %8.3f predicted %8.3f error %+7.3f%s (tolerance %.2f) %s\n",
                v.role == fleetsim::CaseRole::Calibration ? "calibration" : "judged", v.case_name.c_str(), v.published,
                v.predicted, v.error, v.error_is_absolute ? "" : " rel", v.tolerance, v.pass ? "met" : "NOT met");
  std::printf("  (jobs counted once each: %.3f of jobs ever on a shared link)\n", c.shared_jobs_share);
  // The calibration's round trip: the offered load lands where it was computed to (within 15%).
  CHECK(c.cases[0].pass);
  // Judged. I01: target 10 points, NOT met today (11% against 36.3%; pool_crux.cpp says why); the
  // gate bounds today's error so that it cannot grow unnoticed; tighten it when the gap closes.
  for (size_t k = 1; k < c.cases.size(); ++k) CHECK(c.cases[k].tolerance == 0.10);
  CHECK(std::abs(c.cases[1].error) < 0.30);
  CHECK(c.cases[2].pass);  // I02, 51% of GPUs
  CHECK(c.cases[3].pass);  // Fig 6(b), 35.2% of active GPUs
}

TEST_CASE("the Lingjun 2023 topology file: a ToR (PSW, ASW pair) holds at most 8 hosts, the Crux scenario's 64-GPU leaf",
          "[validation][pool][interference]") {
  std::ifstream in(fleetsim::testing::source_dir() + "/data/supplement/alibaba_lingjun2023_topo.csv");
  REQUIRE(in.good());
  std::string line;
  std::getline(in, line);
  REQUIRE(line == "ip,DSW,PSW,ASW");
  std::map<std::string, int> per_tor;
  std::set<std::string> asw_names;
  int hosts = 0;
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::string ip, dsw, psw, asw;
    std::getline(ss, ip, ',');
    std::getline(ss, dsw, ',');
    std::getline(ss, psw, ',');
    std::getline(ss, asw, ',');
    ++per_tor[psw + "/" + asw];
    asw_names.insert(asw);
    ++hosts;
  }
  int most = 0;
  for (const auto& [tor, n] : per_tor) most = std::max(most, n);
  std::printf("Lingjun 2023 topology: %d hosts, %zu ToRs (PSW/ASW pairs; %zu ASW names), at most %d hosts per ToR\n",
              hosts, per_tor.size(), asw_names.size(), most);
  CHECK(hosts == 847);
  CHECK(per_tor.size() == 119);
  CHECK(most == 8);  // 8 hosts x 8 GPUs = the scenario's gpus_per_leaf: 64
}
