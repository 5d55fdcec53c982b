#include <catch2/catch.hpp>

#include "sim/units/parse.hpp"

using namespace fleetsim;
using units::parse;

TEST_CASE("units parse into SI values of the right dimension", "[unit]") {
  CHECK(parse<BytesPerSecond>("3.35 TB/s").si() == Approx(3.35e12));
  CHECK(parse<BytesPerSecond>("400 Gb/s").si() == Approx(50e9));
  CHECK(parse<BytesPerSecond>("400 Gbps").si() == Approx(50e9));
  CHECK(parse<FlopsPerSecond>("989 TFLOP/s").si() == Approx(989e12));
  CHECK(parse<Seconds>("1.5 us").si() == Approx(1.5e-6));
  CHECK(parse<Seconds>("30 min").si() == Approx(1800));
  CHECK(parse<Seconds>("54 d").si() == Approx(54 * 86400.0));
  CHECK(parse<Bytes>("80 GiB").si() == Approx(80.0 * 1073741824.0));
  CHECK(parse<Watts>("10.2 kW").si() == Approx(10200));
  CHECK(parse<Joules>("21.6 GWh").si() == Approx(21.6 * 3.6e12));
  CHECK(parse<Tokens>("15.6T").si() == Approx(15.6e12));
  CHECK(parse<PerSecond>("0.87 /d").si() == Approx(0.87 / 86400.0));
  CHECK(parse<KilogramsPerJoule>("0.414 kg/kWh").si() == Approx(0.414 / 3.6e6));
  CHECK(parse<KelvinPerWatt>("0.06 K/W").si() == Approx(0.06));
  CHECK(parse<Kelvin>("8 K").si() == Approx(8.0));
  CHECK(units::parse_celsius("25 degC").value == Approx(25.0));
}

TEST_CASE("a bare number, an unknown unit or a wrong dimension is refused with a hint", "[unit]") {
  CHECK_THROWS_WITH(parse<Seconds>("30"), Catch::Contains("has no unit") && Catch::Contains("30 min"));
  CHECK_THROWS_WITH(parse<Seconds>("30 fortnights"), Catch::Contains("not a known unit"));
  CHECK_THROWS_WITH(parse<BytesPerSecond>("400 GB"), Catch::Contains("is a bytes, expected a bandwidth"));
  CHECK_THROWS_WITH(parse<Seconds>("abc s"), Catch::Contains("does not start with a number"));
}

TEST_CASE("quantities combine into the dimension physics says", "[unit]") {
  Bytes b = units::gib(1);
  BytesPerSecond bw = units::gb_per_s(1);
  Seconds t = b / bw;
  CHECK(t.si() == Approx(1.073741824));
  Joules e = units::watts(700) * units::hours(1);
  CHECK(units::to_mwh(e) == Approx(0.0007));
  CHECK(units::format(parse<BytesPerSecond>("3.35 TB/s")) == "3.35 TB/s");
}
