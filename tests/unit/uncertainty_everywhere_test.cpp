// Intervals where issue 25 asks for them beyond step and run: the waterfall's five factors and
// their product (sim/uncertainty/waterfall_interval.hpp) and the pool's JSON placement
// (pool_interval.hpp), on synthetic replications. The commands end to end are
// tests/scenario/uncertainty_everywhere_test.cpp.
#include <catch2/catch.hpp>

#include <cmath>

#include "sim/uncertainty/pool_interval.hpp"
#include "sim/uncertainty/waterfall_interval.hpp"

using namespace fleetsim;
using namespace fleetsim::uncertainty;

namespace {

facility::Waterfall waterfall(double pue, double gpu, double scaling, double ettr, double util) {
  facility::Waterfall w;
  w.factors = {1 / pue, gpu, scaling, ettr, util};
  w.effective_utilization = w.factors.product();
  return w;
}

}  // namespace

TEST_CASE("the waterfall's factors carry the Monte-Carlo spread, the MFU factors the step error, the product it once",
          "[unit][uncertainty]") {
  std::vector<facility::Waterfall> reps;
  for (int i = 0; i < 11; ++i) reps.push_back(waterfall(1.2 + 0.01 * i, 0.6, 0.9, 0.90 + 0.005 * i, 1.0));
  StepUncertainty step;
  step.half_width = std::log(1.2);
  const WaterfallIntervals w = waterfall_intervals(reps, step, 0.8);
  // 1/PUE and ETTR: the central 80% of the replications (the 2nd and 10th of 11).
  CHECK(w.ettr.lo == Approx(0.905));
  CHECK(w.ettr.hi == Approx(0.945));
  CHECK(w.energy_efficiency.lo == Approx(1 / 1.29));
  CHECK(w.energy_efficiency.hi == Approx(1 / 1.21));
  // A utilization that is an input has no spread.
  CHECK(w.resource_utilization.lo == Approx(1.0));
  CHECK(w.resource_utilization.hi == Approx(1.0));
  // Single-GPU efficiency: the whole step interval (no spread over replications here).
  CHECK(w.single_gpu_efficiency.lo == Approx(0.6 / 1.2));
  CHECK(w.single_gpu_efficiency.hi == Approx(0.6 * 1.2));
  // Scaling: capped at 1 (0.9 x 1.2 would be 1.08).
  CHECK(w.parallel_scaling_efficiency.lo == Approx(0.9 / 1.2));
  CHECK(w.parallel_scaling_efficiency.hi == Approx(1.0));
  // The product: its replications' spread and the step error in quadrature, once.
  std::vector<double> eu;
  for (const auto& r : reps) eu.push_back(r.effective_utilization);
  const Interval mc = sample_interval(eu, 0.8);
  CHECK(std::log(w.product.hi / w.product.lo) / 2 == Approx(std::hypot(std::log(mc.hi / mc.lo) / 2, std::log(1.2))));
  double mean = 0;
  for (double v : eu) mean += v / static_cast<double>(eu.size());
  CHECK(w.product.lo <= mean);
  CHECK(mean <= w.product.hi);
  for (const auto& [key, i] : w.factors()) {
    INFO(key);
    CHECK(i.level == 0.8);
    CHECK(i.lo <= i.hi);
  }
}

TEST_CASE("the pool's intervals sit beside their keys, nested ones inside their object, and one provenance at the end",
          "[unit][uncertainty]") {
  Json pool = Json::object();
  pool["allocation_share"]["mean"] = 0.8;
  pool["gpu_hours_lost"]["idle"]["mean"] = 10.0;
  pool["gpu_hours_lost"]["failures"]["mean"] = 5.0;
  pool["pool_gpus"] = 64.0;
  Provenance p;
  p.grade = Grade::Transferred;
  p.why = "why";
  p.sources = {"a", "b"};
  const Json j = annotate_pool_json(
      pool, {{"allocation_share", {0.7, 0.9, 0.8}}, {"gpu_hours_lost.idle", {8, 12, 0.8}}, {"missing", {1, 2, 0.8}}}, p);
  const auto& o = j.as_object();
  REQUIRE(o.size() == 5);
  CHECK(o[0].first == "allocation_share");
  CHECK(o[1].first == "allocation_share_interval");
  CHECK(o[2].first == "gpu_hours_lost");
  CHECK(o[3].first == "pool_gpus");
  CHECK(o[4].first == "provenance");
  const auto& lost = o[2].second.as_object();
  REQUIRE(lost.size() == 3);
  CHECK(lost[0].first == "idle");
  CHECK(lost[1].first == "idle_interval");
  CHECK(lost[2].first == "failures");
  CHECK(j.dump().find("\"grade\": \"transferred\"") != std::string::npos);
}

TEST_CASE("the judged pools' sizes are read from their inputs", "[unit][uncertainty]") {
  const auto pools = judged_pools();
  REQUIRE(pools.size() == 4);
  CHECK(pools[0].gpus == 856);   // Helios Earth, May 2020 (scenarios/pool-helios-earth.yaml)
  CHECK(pools[1].gpus > 1000);   // Alibaba openb's node list
  CHECK(pools[2].gpus == 8192);  // scenarios/pool-lyra-colocation.yaml
  CHECK(pools[3].gpus == 32768); // scenarios/stragglers-bytedance.yaml
}
