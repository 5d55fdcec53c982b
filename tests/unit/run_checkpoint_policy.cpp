// Checkpoint interval formulas and what one checkpoint costs (sim/run/checkpoint_policy.hpp).
#include <catch2/catch.hpp>

#include "sim/run/checkpoint_policy.hpp"

using namespace fleetsim;
using namespace fleetsim::run;
using units::hours;
using units::minutes;
using units::seconds;

TEST_CASE("Young's interval is the square root of twice the dump time times the MTTI", "[unit][run]") {
  CHECK(young_interval(minutes(5), hours(24)).si() == Approx(std::sqrt(2.0 * 300 * 86400)));
}

TEST_CASE("Daly's higher-order interval reproduces the three cases in his figure captions", "[unit][run]") {
  // Daly, FGCS 22(3) 2006, Figs. 3-5: delta = 5 min, R = 10 min.
  CHECK(daly_interval(minutes(5), hours(24)).si() / 60 == Approx(117).margin(0.5));
  CHECK(daly_interval(minutes(5), hours(6)).si() / 60 == Approx(57).margin(0.5));
  CHECK(daly_interval(minutes(5), minutes(15)).si() / 60 == Approx(9.1).margin(0.1));
}

TEST_CASE("Daly's interval is the MTTI when the dump takes longer than twice the MTTI", "[unit][run]") {
  CHECK(daly_interval(hours(3), hours(1)).si() == Approx(hours(1).si()));
}

TEST_CASE("Daly's interval is near the minimum of his wall-clock model", "[unit][run]") {
  const Seconds m = hours(6), d = minutes(5), r = minutes(10), solve = hours(500);
  const Seconds opt = daly_interval(d, m);
  const double at_opt = daly_wallclock(solve, opt, d, r, m).si();
  CHECK(at_opt < daly_wallclock(solve, opt * 0.8, d, r, m).si());
  CHECK(at_opt < daly_wallclock(solve, opt * 1.25, d, r, m).si());
}

TEST_CASE("a synchronous checkpoint stalls for the write time plus size over storage bandwidth", "[unit][run]") {
  CheckpointSpec spec;
  spec.async = false;
  spec.interval_kind = CheckpointIntervalKind::Fixed;
  spec.interval = minutes(30);
  spec.write_time = seconds(20);
  spec.storage_bandwidth = BytesPerSecond(2e12);
  spec.load_bandwidth = BytesPerSecond(1e12);
  const CheckpointPlan p = plan_checkpoints(spec, Bytes(6e12), hours(3));
  CHECK(p.stall.si() == Approx(23.0));
  CHECK(p.persist.si() == 0.0);
  CHECK(p.load.si() == Approx(6.0));
  CHECK(p.interval.si() == Approx(1800.0));
}

TEST_CASE("an asynchronous checkpoint stalls only for the snapshot and persists in the background", "[unit][run]") {
  CheckpointSpec spec;
  spec.async = true;
  spec.interval_kind = CheckpointIntervalKind::Daly;
  spec.write_time = seconds(5);
  spec.storage_bandwidth = BytesPerSecond(2e12);
  spec.load_bandwidth = BytesPerSecond(2e12);
  const CheckpointPlan p = plan_checkpoints(spec, Bytes(6e12), hours(3));
  CHECK(p.stall.si() == Approx(5.0));
  CHECK(p.persist.si() == Approx(3.0));
  CHECK(p.sync_stall.si() == Approx(8.0));
  CHECK(p.interval.si() == Approx(daly_interval(seconds(5), hours(3)).si()));
}

TEST_CASE("the interval is never shorter than the background persist", "[unit][run]") {
  CheckpointSpec spec;
  spec.async = true;
  spec.interval_kind = CheckpointIntervalKind::Fixed;
  spec.interval = seconds(10);
  spec.storage_bandwidth = BytesPerSecond(1e11);
  spec.load_bandwidth = BytesPerSecond(1e11);
  CHECK(plan_checkpoints(spec, Bytes(6e12), hours(3)).interval.si() == Approx(60.0));
}

TEST_CASE("a checkpoint with a size but no storage bandwidth is a configuration error", "[unit][run]") {
  CheckpointSpec spec;
  CHECK_THROWS(plan_checkpoints(spec, Bytes(1e12), hours(3)));
}
