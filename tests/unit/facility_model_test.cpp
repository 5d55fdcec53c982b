#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "facility_fixtures.hpp"
#include "sim/facility/cooling_model.hpp"
#include "sim/facility/facility_model.hpp"
#include "sim/facility/power_model.hpp"
#include "sim/facility/waterfall.hpp"

using namespace fleetsim;
using namespace fleetsim::facility;

namespace {
FacilityInputs test_inputs(int gpus = 16384) { return test::facility_test_inputs(gpus); }
}  // namespace

TEST_CASE("the waterfall's losses and useful remainder add up to the total", "[unit]") {
  WaterfallFactors f{0.8, 0.5, 0.8, 0.9, 0.6};
  const Waterfall w = make_waterfall(f, 1000.0, 500.0);
  CHECK(w.effective_utilization == Approx(0.8 * 0.5 * 0.8 * 0.9 * 0.6));
  double gpu = w.useful_gpu_hours, mwh = w.useful_mwh;
  for (const auto& l : w.losses) gpu += l.gpu_hours, mwh += l.mwh;
  CHECK(gpu == Approx(1000.0));
  CHECK(mwh == Approx(500.0));
  CHECK(w.loss(Factor::EnergyEfficiency).mwh == Approx(100.0));
  CHECK(w.loss(Factor::EnergyEfficiency).gpu_hours == 0.0);
  CHECK(w.loss(Factor::ResourceUtilization).gpu_hours == Approx(400.0));
  CHECK(w.useful_mwh == Approx(500.0 * w.effective_utilization));
}

TEST_CASE("at constant load, facility energy is IT power times time times PUE", "[unit]") {
  const FacilityInputs in = test_inputs();
  const FacilityResult r = evaluate_facility(in);
  const ClusterPower p = cluster_power(in.cluster, in.facility, {0.8});
  const Watts it = p.training * 0.9 + p.stalled * 0.1 + p.network;
  CHECK(r.it_energy.si() == Approx((it * in.wall_clock).si()));
  const FacilityPower fp = facility_power(in.facility.cooling, it, p.nameplate, Celsius{10});
  CHECK(r.pue_mean == Approx(fp.pue()));
  CHECK(r.facility_energy.si() == Approx(r.it_energy.si() * fp.pue()));
  CHECK(r.economizer_share == Approx(1.0));
  CHECK(r.co2.si() == Approx(units::to_mwh(r.facility_energy) * 1000 * 0.4));
  CHECK(r.cost.si() == Approx(units::to_mwh(r.facility_energy) * 1000 * 0.10));
  CHECK(r.energy_per_token.si() == Approx(r.facility_energy.si() / 1e12));
}

TEST_CASE("the five factors multiply to effective utilization", "[unit]") {
  FacilityInputs in = test_inputs();
  in.facility.resource_utilization = 0.8;
  const FacilityResult r = evaluate_facility(in);
  const auto& f = r.waterfall.factors;
  CHECK(f.energy_efficiency == Approx(1.0 / r.pue_mean));
  CHECK(f.single_gpu_efficiency == Approx(0.5 * r.throughput_factor_mean));
  CHECK(f.parallel_scaling_efficiency == Approx(0.8));
  CHECK(f.ettr == Approx(0.9));
  CHECK(f.resource_utilization == Approx(0.8));
  CHECK(r.effective_utilization() ==
        Approx(f.energy_efficiency * f.single_gpu_efficiency * f.parallel_scaling_efficiency *
               f.ettr * f.resource_utilization));
  CHECK(r.waterfall.pool_gpu_hours == Approx(16384 / 0.8 * 54 * 24));
  CHECK(r.waterfall.facility_mwh == Approx(units::to_mwh(r.facility_energy)));
}

TEST_CASE("a run-model timeline of busy shares moves the energy and power series", "[unit]") {
  FacilityInputs in = test_inputs(1024);
  in.wall_clock = units::hours(4);
  in.productive_time = units::hours(2);
  in.busy_share_by_step = {1.0, 1.0, 0.0, 0.0};
  const FacilityResult r = evaluate_facility(in);
  const auto& it = r.find_series("it_power").values;
  REQUIRE(it.size() == 4);
  CHECK(it[0] > it[2]);
  CHECK(it[0] == Approx(it[1]));
  in.busy_share_by_step = {0.5, 0.5, 0.5, 0.5};
  CHECK(evaluate_facility(in).it_energy.si() == Approx(r.it_energy.si()));
  in.busy_share_by_step = {1.0};
  CHECK_THROWS_AS(evaluate_facility(in), std::invalid_argument);
}

TEST_CASE("the time series hold one value per facility step with names and units", "[unit]") {
  FacilityInputs in = test_inputs();
  in.wall_clock = units::hours(10.5);
  in.productive_time = units::hours(9);
  const FacilityResult r = evaluate_facility(in);
  REQUIRE(r.series.size() == 8);
  for (const auto& s : r.series) {
    CHECK(s.values.size() == 11);
    CHECK_FALSE(s.unit.empty());
  }
  CHECK(r.find_series("time").values.back() == Approx(10));
  CHECK_THROWS_AS(r.find_series("nope"), std::out_of_range);
}

TEST_CASE("the facility model refuses inputs no model can use", "[unit]") {
  FacilityInputs in = test_inputs();
  in.productive_time = in.wall_clock * 2.0;
  CHECK_THROWS_AS(evaluate_facility(in), std::invalid_argument);
  in = test_inputs();
  in.mfu = 0.0;
  CHECK_THROWS_AS(evaluate_facility(in), std::invalid_argument);
  in = test_inputs();
  in.facility.resource_utilization = 0.0;
  CHECK_THROWS_AS(evaluate_facility(in), std::invalid_argument);
}

// Its speed (milliseconds) is measured by bench/bench_facility (scripts/bench facility), not here.
TEST_CASE("a 54-day run of 100k GPUs is evaluated at hourly steps with finite values", "[unit]") {
  FacilityInputs in = test_inputs(98304);
  in.facility.site.seasonal_amplitude = Kelvin(8);
  in.facility.site.diurnal_amplitude = Kelvin(4);
  const FacilityResult r = evaluate_facility(in);
  REQUIRE(r.series.front().values.size() == 54 * 24);
  for (const auto& s : r.series)
    for (const double v : s.values) CHECK(std::isfinite(v));
}
