#include <catch2/catch.hpp>

#include "facility_fixtures.hpp"
#include "sim/facility/power_model.hpp"

using namespace fleetsim;
using namespace fleetsim::facility;

TEST_CASE("GPU power rises from idle at zero activity to TDP at full activity", "[unit]") {
  const GpuSpec gpu = test::facility_test_cluster().gpu;
  CHECK(gpu_power(gpu, 0.0).si() == Approx(100));
  CHECK(gpu_power(gpu, 0.5).si() == Approx(400));
  CHECK(gpu_power(gpu, 1.0).si() == Approx(700));
  CHECK(gpu_power(gpu, 0.5, 2.0).si() == Approx(250));
  CHECK(gpu_power(gpu, 1.7).si() == Approx(700));  // activity is clamped
}

TEST_CASE("a training GPU's power averages its compute and communication phases", "[unit]") {
  const auto c = test::facility_test_cluster();
  const auto p = gpu_training_power(c.gpu, test::facility_test_spec(), {0.75});
  CHECK(p.compute.si() == Approx(700));
  CHECK(p.communication.si() == Approx(400));
  CHECK(p.average.si() == Approx(0.75 * 700 + 0.25 * 400));
  CHECK(p.mean_activity == Approx(0.875));
}

TEST_CASE("server fans take their share of the node's power up to the node's fan maximum", "[unit]") {
  auto c = test::facility_test_cluster();
  auto cool = test::facility_test_cooling();
  cool.server_fan_fraction = 0.05;
  const NodePower idle = node_power(c, cool, Watts(100), 0.0);
  CHECK(idle.host.si() == Approx(1000));
  CHECK(idle.fans.si() == Approx(0.05 * (800 + 1000)));
  const NodePower full = node_power(c, cool, Watts(700), 1.0);
  CHECK(full.host.si() == Approx(2000));
  CHECK(full.fans.si() == Approx(380));          // 0.05 x (5600 + 2000) W, under the 500 W cap
  cool.server_fan_fraction = 0.10;
  CHECK(node_power(c, cool, Watts(700), 1.0).fans.si() == Approx(500));  // capped
  cool.server_fan_fraction = 0.0;                // liquid: no server fans
  CHECK(node_power(c, cool, Watts(700), 1.0).total().si() == Approx(7600));  // 5600 + 2000
}

TEST_CASE("a non-blocking two-tier Clos of radix 64 has half as many spines as leaves", "[unit]") {
  FabricSpec f = test::facility_test_cluster().fabric;  // 32 GPUs per leaf, radix 64
  CHECK(switch_count(f, 2048) == 64 + 32);
  f.oversubscription = 2.0;                             // half the uplinks
  CHECK(switch_count(f, 2048) == 64 + 16);
  f.tiers = 3;
  f.oversubscription = 1.0;                             // 64 leaves, 64 middle, 32 top
  CHECK(switch_count(f, 2048) == 64 + 64 + 32);
  CHECK(network_power(f, 2048).si() == Approx(160 * 1000));
}

TEST_CASE("synchronized training at 16k GPUs swings the IT power by megawatts each iteration", "[unit]") {
  const auto c = test::facility_test_cluster(16384);
  const auto f = test::facility_test_spec();
  const ClusterPower p = cluster_power(c, f, {0.8});
  // 16,384 GPUs x (700 - 400) W plus the host's share of the activity change.
  const double gpu_swing = 16384 * 300.0;
  const double host_swing = 2048 * 1000.0 * (1.0 - 0.5);
  CHECK((p.training_peak - p.training_trough).si() == Approx(gpu_swing + host_swing));
  CHECK(p.training_peak > p.training);
  CHECK(p.training > p.stalled);
  CHECK(p.idle_pool.si() == Approx(0));
}

TEST_CASE("a pool at 50% resource utilization holds twice the job's GPUs, idle", "[unit]") {
  const auto c = test::facility_test_cluster(1024);
  auto f = test::facility_test_spec();
  f.resource_utilization = 0.5;
  const ClusterPower p = cluster_power(c, f, {1.0});
  CHECK(p.pool_gpus == 2048);
  CHECK(p.idle_pool.si() == Approx(p.stalled.si()));
  CHECK(p.nameplate.si() == Approx(256 * 7600.0 + p.network.si()));
}
