#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "facility_fixtures.hpp"
#include "sim/facility/facility_model.hpp"
#include "sim/results/report.hpp"

using namespace fleetsim;

namespace {
FacilityResult small_run() {
  FacilityInputs in;
  in.cluster = test::facility_test_cluster(1024);
  in.facility = test::facility_test_spec();
  in.mfu = 0.4;
  in.single_gpu_mfu = 0.5;
  in.compute_busy_fraction = 0.8;
  in.wall_clock = units::days(2);
  in.productive_time = units::days(1.8);
  in.tokens = Tokens(1e10);
  return evaluate_facility(in);
}
}  // namespace

TEST_CASE("every facility metric has a unit and a description and a unique name", "[unit]") {
  std::set<std::string> names;
  for (const MetricDef& d : facility_metric_defs()) {
    CHECK_FALSE(d.unit.empty());
    CHECK_FALSE(d.description.empty());
    CHECK(names.insert(std::string(d.name)).second);
  }
  CHECK(names.count("pue_mean"));
  CHECK(names.count("effective_utilization.value"));
  CHECK(names.count("effective_utilization.factors.ettr"));
}

TEST_CASE("a facility result fills the report with every catalog metric", "[unit]") {
  const FacilityResult r = small_run();
  Report report;
  add_facility_metrics(r, report);
  CHECK(report.entries().size() == facility_metric_defs().size());
  const std::string json = report.to_json().dump();
  CHECK_THAT(json, Catch::Contains("\"pue_mean\"") && Catch::Contains("\"effective_utilization\""));
  CHECK_THAT(json, Catch::Contains("\"energy_efficiency\""));
}

TEST_CASE("facility metrics over replications are reported as mean and percentiles", "[unit]") {
  const FacilityResult r = small_run();
  Report report;
  add_facility_metrics(std::vector<FacilityResult>{r, r, r}, report);
  REQUIRE_FALSE(report.entries().empty());
  const auto* stat = std::get_if<Stat>(&report.entries().front().value);
  REQUIRE(stat != nullptr);
  CHECK(stat->mean == Approx(r.pue_mean));
}
