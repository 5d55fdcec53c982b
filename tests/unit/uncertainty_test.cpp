// The interval machinery of sim/uncertainty on small synthetic residual tables: the grades, the
// leave-one-source-out exclusion, the split-conformal rank, the widening, the JSON placement and
// the level check. The published cases' coverage is tests/validation/uncertainty_coverage_test.cpp.
#include <catch2/catch.hpp>

#include <cmath>

#include "sim/core/error.hpp"
#include "sim/uncertainty/annotate.hpp"
#include "sim/uncertainty/compare.hpp"
#include "sim/uncertainty/coverage.hpp"

using namespace fleetsim;
using namespace fleetsim::uncertainty;

namespace {

StepResidual row(const std::string& source, const std::string& gpu, int gpus, double params_b, double log_ratio,
                 const std::string& regime = "dense-mp") {
  StepResidual r;
  r.source = source;
  r.case_name = source + std::to_string(gpus);
  r.features = {gpu, "bf16", regime, gpus, params_b};
  r.log_ratio = log_ratio;
  return r;
}

// Two sources on "g1" (residuals 0.01..0.05 and 0.10..0.14 in magnitude), one on "g2".
std::vector<StepResidual> table() {
  std::vector<StepResidual> t;
  for (int i = 0; i < 5; ++i) t.push_back(row("A", "g1", 64 << i, 10.0 * (i + 1), 0.01 * (i + 1)));
  for (int i = 0; i < 5; ++i) t.push_back(row("B", "g1", 64 << i, 10.0 * (i + 1), -0.10 - 0.01 * i));
  for (int i = 0; i < 4; ++i) t.push_back(row("C", "g2", 64, 10, 0.2, "moe"));
  return t;
}

StepFeatures features(const std::string& gpu, int gpus, double params_b, const std::string& regime = "dense-mp") {
  return {gpu, "bf16", regime, gpus, params_b};
}

}  // namespace

TEST_CASE("a prediction inside a judged group's range is calibrated, with the conformal rank of its residuals",
          "[unit][uncertainty]") {
  const auto t = table();
  const auto u = step_uncertainty(features("g1", 128, 20), t, 0.8);
  CHECK(u.provenance.grade == Grade::Calibrated);
  CHECK(u.residuals == 10);
  // |residuals| sorted: .01 .02 .03 .04 .05 .10 .11 .12 .13 .14; rank ceil(11 * 0.8) = 9 -> 0.13.
  CHECK(u.half_width == Approx(0.13));
  CHECK(u.time_lo() == Approx(std::exp(-0.13)));
  CHECK(u.provenance.sources == std::vector<std::string>{"A", "B"});
  CHECK(u.covers(0.13));
  CHECK_FALSE(u.covers(-0.131));
}

TEST_CASE("leaving a source out removes its residuals: a source never vouches for itself", "[unit][uncertainty]") {
  const auto t = table();
  const auto u = step_uncertainty(features("g1", 128, 20), t, 0.8, "B");
  CHECK(u.residuals == 5);
  CHECK(u.provenance.sources == std::vector<std::string>{"A"});
  CHECK(u.half_width == Approx(0.05));  // rank ceil(6 * 0.8) = 5 of .01..05
  CHECK_FALSE(u.covers(t[5].log_ratio));  // B's -0.10 lies outside what A alone vouches for
}

TEST_CASE("outside the group's GPU count or model size is extrapolated and widened", "[unit][uncertainty]") {
  const auto t = table();
  const auto in = step_uncertainty(features("g1", 128, 20), t, 0.8);
  const auto gpus = step_uncertainty(features("g1", 100000, 20), t, 0.8);
  const auto size = step_uncertainty(features("g1", 128, 1000), t, 0.8);
  CHECK(gpus.provenance.grade == Grade::Extrapolated);
  CHECK(size.provenance.grade == Grade::Extrapolated);
  CHECK(gpus.half_width == Approx(in.half_width * widening(Grade::Extrapolated)));
  CHECK(gpus.provenance.why.find("outside") != std::string::npos);
}

TEST_CASE("another regime on a judged GPU is transferred, a GPU without judged cases is uncalibrated",
          "[unit][uncertainty]") {
  const auto t = table();
  const auto moe = step_uncertainty(features("g1", 128, 20, "moe"), t, 0.8);
  CHECK(moe.provenance.grade == Grade::Transferred);
  CHECK(moe.residuals == 10);  // all g1 residuals
  const auto other = step_uncertainty(features("g9", 128, 20), t, 0.8);
  CHECK(other.provenance.grade == Grade::Uncalibrated);
  CHECK(other.residuals == 14);  // every judged residual
  CHECK(other.provenance.why.find("no judged case on g9") != std::string::npos);
  CHECK(widening(Grade::Uncalibrated) > widening(Grade::Transferred));
  CHECK(widening(Grade::Transferred) > widening(Grade::Calibrated));
}

TEST_CASE("coverage counts, per source, the cases inside their leave-one-source-out intervals",
          "[unit][uncertainty]") {
  const auto t = table();
  const auto c = step_coverage(t, 0.8);
  REQUIRE(c.sources.size() == 3);
  CHECK(c.overall.cases == 14);
  // A's residuals (<= 0.05) inside B's 0.14; B's (>= 0.10) outside A's 0.05; C (g2, no other
  // source on g2) uncalibrated: all g1 rows, widened x2, covers 0.2.
  CHECK(c.sources[0].covered == 5);
  CHECK(c.sources[1].covered == 0);
  CHECK(c.sources[2].covered == 4);
  CHECK(c.overall.covered == 9);
}

TEST_CASE("a level outside (0, 1) is refused naming the key", "[unit][uncertainty]") {
  for (double bad : {0.0, 1.0, -0.2, 1.5, std::nan("")}) {
    try {
      check_level(bad, "--level");
      FAIL("accepted level " << bad);
    } catch (const ConfigError& e) {
      CHECK(e.key() == "--level");
    }
  }
  CHECK_NOTHROW(check_level(0.8, "--level"));
  CHECK_THROWS_AS(step_uncertainty(features("g1", 128, 20), table(), 1.0), std::invalid_argument);
}

TEST_CASE("intervals sit right after their key, Monte-Carlo and model-form errors add in quadrature",
          "[unit][uncertainty]") {
  Json o = Json::object();
  o["a"] = 1.0;
  o["ettr"] = 0.9;
  o["b"] = 2.0;
  const Json j = with_intervals(o, {{"ettr", Interval{0.8, 0.95, 0.8}}, {"missing", Interval{}}});
  const auto& obj = j.as_object();
  REQUIRE(obj.size() == 4);
  CHECK(obj[1].first == "ettr");
  CHECK(obj[2].first == "ettr_interval");
  CHECK(obj[3].first == "b");

  const Interval s = sample_interval({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 0.8);
  CHECK(s.lo == Approx(2));
  CHECK(s.hi == Approx(10));

  StepUncertainty u;
  u.half_width = std::log(1.2);
  const Interval mc{100 / 1.1, 100 * 1.1, 0.8};
  const Interval both = combine_with_step(mc, u);
  CHECK(std::log(both.hi / 100) == Approx(std::hypot(std::log(1.1), std::log(1.2))));
  CHECK(both.lo * both.hi == Approx(100.0 * 100.0));
}

TEST_CASE("search's comparison: normal quantile, the chance one layout is faster, a pessimistic time",
          "[unit][uncertainty]") {
  CHECK(normal_quantile(0.5) == Approx(0.0).margin(1e-12));
  CHECK(normal_quantile(0.9) == Approx(1.2815515655).epsilon(1e-9));
  CHECK(normal_quantile(0.975) == Approx(1.9599639845).epsilon(1e-9));
  StepUncertainty u;
  u.level = 0.8;
  u.half_width = 1.2815515655 * 0.1;  // sigma 0.1 in log T
  CHECK(log_sigma(u) == Approx(0.1).epsilon(1e-9));
  CHECK(probability_faster(1.0, u, 1.0, u) == Approx(0.5));
  // d = log(1.1), sigma = 0.1 sqrt 2: P = Phi(0.6739) = 0.7498.
  CHECK(probability_faster(1.0, u, 1.1, u) == Approx(0.7498).margin(1e-3));
  CHECK(probability_faster(1.1, u, 1.0, u) == Approx(1 - 0.7498).margin(1e-3));
  CHECK(time_quantile(2.0, u, 0.9) == Approx(2.0 * std::exp(0.128155)).epsilon(1e-5));
  CHECK(time_quantile(2.0, u, 0.5) == Approx(2.0));
}

TEST_CASE("a search candidate's regime follows its layout", "[unit][uncertainty]") {
  const StepFeatures f{"g", "bf16", "dense-mp", 64, 8};
  CHECK(with_layout(f, 1, 1, 1).regime == "dense-dp");
  CHECK(with_layout(f, 1, 2, 1).regime == "dense-mp");
  CHECK(with_layout(StepFeatures{"g", "fp8", "moe", 64, 8}, 1, 1, 1).regime == "moe");
}
