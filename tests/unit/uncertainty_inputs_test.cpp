// Declared uncertain inputs (issue 25; sim/config/uncertain_value.cpp, declared_inputs.cpp,
// sim/uncertainty/inputs.cpp): the loader keeps the point value and the distribution, the inverse
// CDFs against hand values, the draws are deterministic for a seed at any thread count, a linear
// key's interval matches the hand calculation, and each run replication draws its own inputs.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <string>

#include "sim/config/declared_inputs.hpp"
#include "sim/config/load.hpp"
#include "sim/core/error.hpp"
#include "sim/pipeline/run_pipeline.hpp"
#include "sim/uncertainty/inputs.hpp"

using namespace fleetsim;
using namespace fleetsim::uncertainty;

namespace {

const std::string kRateScale = "failures.rate_scale={value: 1, range: [0.7, 1.5]}";

// A step model whose iteration time is linear in the failure rate scale (10 s per unit) and whose
// MFU is 0.5 / that: the interval endpoints are known by hand.
StepResult linear_step(const Scenario& s) {
  StepResult r;
  r.iteration_time = Seconds(10.0 * s.failures.rate_scale);
  r.mfu = 0.5 / s.failures.rate_scale;
  r.fits_in_memory = true;
  return r;
}

StepUncertainty model_form(double half_width) {
  StepUncertainty u;
  u.level = 0.8;
  u.half_width = half_width;
  return u;
}

}  // namespace

TEST_CASE("a declared uncertain key keeps its value for the point prediction and lists its distribution",
          "[unit][uncertainty]") {
  const Scenario plain = config::load_scenario("");
  CHECK_FALSE(plain.declared_inputs);  // nothing declared: nothing carried
  const Scenario s = config::load_scenario("", {kRateScale, "cluster.gpu.gemm_efficiency={value: 0.8, range: [0.7, 0.9], distribution: triangular}"});
  REQUIRE(s.declared_inputs);
  REQUIRE(s.declared_inputs->inputs.size() == 2);
  const auto& gemm = s.declared_inputs->inputs[0];  // key order: cluster... before failures...
  const auto& rate = s.declared_inputs->inputs[1];
  CHECK(gemm.key == "cluster.gpu.gemm_efficiency");
  CHECK(gemm.spec.distribution == "triangular");
  CHECK(rate.key == "failures.rate_scale");
  CHECK(rate.spec.distribution == "uniform");
  CHECK(rate.spec.lo == Approx(0.7));
  CHECK(rate.spec.hi == Approx(1.5));
  CHECK(rate.value == 1.0);
  CHECK(s.failures.rate_scale == 1.0);
  CHECK(s.cluster.gpu.gemm_efficiency == 0.8);
  CHECK(s.cluster.gpu.name == plain.cluster.gpu.name);  // the rest of the preset is kept
  // Re-built with drawn values: only those keys move, and the resolved tree is left as it was.
  const Scenario d = config::with_input_values(*s.declared_inputs, {0.75, 1.3});
  CHECK(d.cluster.gpu.gemm_efficiency == 0.75);
  CHECK(d.failures.rate_scale == 1.3);
  CHECK(d.cluster.gpu.peak_bf16.si() == plain.cluster.gpu.peak_bf16.si());
  CHECK_FALSE(d.declared_inputs);
  CHECK(config::with_input_values(*s.declared_inputs, {0.8, 1.0}).failures.rate_scale == 1.0);
}

TEST_CASE("distributions and units: normal sd in the key's unit, a range truncates, {value} alone is a number",
          "[unit][uncertainty]") {
  const Scenario s = config::load_scenario(
      "", {"cluster.fabric.link_bandwidth={value: 400 Gb/s, distribution: normal, sd: 20 Gb/s, range: [350 Gb/s, 450 Gb/s]}",
           "facility.resource_utilization={value: 0.9, source: a guess}"});
  REQUIRE(s.declared_inputs);
  REQUIRE(s.declared_inputs->inputs.size() == 1);
  const auto& bw = s.declared_inputs->inputs[0];
  CHECK(bw.spec.sd == Approx(20e9 / 8));
  CHECK(bw.spec.lo == Approx(350e9 / 8));
  CHECK(s.facility.resource_utilization == 0.9);
}

TEST_CASE("inverse CDFs of the declared distributions against hand values", "[unit][uncertainty]") {
  config::UncertainSpec u;
  u.distribution = "uniform";
  u.lo = 0.7;
  u.hi = 1.5;
  CHECK(input_quantile(u, 1.0, 0.25) == Approx(0.9));
  u.distribution = "triangular";  // mode 1.1 on [0.7, 1.5]: F(mode) = 0.5
  CHECK(input_quantile(u, 1.1, 0.5) == Approx(1.1));
  CHECK(input_quantile(u, 1.1, 0.125) == Approx(0.7 + std::sqrt(0.125 * 0.8 * 0.4)));
  u.distribution = "normal";
  u.sd = 0.1;
  u.lo = -INFINITY;
  u.hi = INFINITY;
  CHECK(input_quantile(u, 1.0, 0.5) == Approx(1.0));
  CHECK(input_quantile(u, 1.0, 0.8413447460685429) == Approx(1.1).epsilon(1e-6));  // Phi(1)
  u.lo = 1.0;  // truncated to [1, inf): the median of a half-normal, sd * Phi^-1(0.75)
  CHECK(input_quantile(u, 1.0, 0.5) == Approx(1.0 + 0.1 * 0.6744897501960817).epsilon(1e-6));
  u.distribution = "lognormal";
  u.sigma = 0.2;
  u.lo = 0;
  u.hi = INFINITY;
  CHECK(input_quantile(u, 2.0, 0.5) == Approx(2.0));
  CHECK(input_quantile(u, 2.0, 0.8413447460685429) == Approx(2.0 * std::exp(0.2)).epsilon(1e-6));
}

TEST_CASE("a linear key's step interval is the hand calculation: T at the input's quantiles, then the "
          "model-form half-width in quadrature", "[unit][uncertainty]") {
  const Scenario s = config::load_scenario("", {kRateScale});
  const int draws = 4000;
  const auto spread = step_input_spread(s, model_form(0.1), linear_step, draws);
  // Uniform on [0.7, 1.5]: the 10% and 90% quantiles are 0.78 and 1.42, so T in [7.8, 14.2] s.
  // Sampling error of a quantile of 4000 draws: sqrt(0.09 / 4000) x 0.8 x 10 s = 0.04 s.
  CHECK(spread.iteration_time.lo == Approx(7.8).margin(0.15));
  CHECK(spread.iteration_time.hi == Approx(14.2).margin(0.15));
  CHECK(spread.mfu.lo == Approx(0.5 / 1.42).margin(0.01));
  CHECK(spread.mfu.hi == Approx(0.5 / 0.78).margin(0.01));
  // Combined: about the geometric middle, log half-widths in quadrature.
  const double h_in = 0.5 * std::log(spread.iteration_time.hi / spread.iteration_time.lo);
  const double mid = std::sqrt(spread.iteration_time.lo * spread.iteration_time.hi);
  const double h = std::sqrt(h_in * h_in + 0.1 * 0.1);
  CHECK(spread.combined_time.lo == Approx(mid * std::exp(-h)));
  CHECK(spread.combined_time.hi == Approx(mid * std::exp(h)));
  // By hand from [7.8, 14.2]: h_in = 0.2995, h = 0.3158, middle 10.52 -> [7.67, 14.43].
  CHECK(spread.combined_time.lo == Approx(7.67).margin(0.2));
  CHECK(spread.combined_time.hi == Approx(14.43).margin(0.2));
  // One input: all of the inputs' share; with the model-form part they make one.
  REQUIRE(spread.inputs.size() == 1);
  CHECK(spread.inputs[0].share + spread.model_form_share == Approx(1.0));
  CHECK(spread.model_form_share == Approx(0.01 / (h_in * h_in + 0.01)));
}

TEST_CASE("declared-input draws are deterministic for a seed at any thread count, and move with the seed",
          "[unit][uncertainty]") {
  const Scenario s = config::load_scenario("", {kRateScale});
  const auto a = step_input_spread(s, model_form(0.1), linear_step, 200, 1);
  const auto b = step_input_spread(s, model_form(0.1), linear_step, 200, 3);
  CHECK(a.iteration_time.lo == b.iteration_time.lo);
  CHECK(a.iteration_time.hi == b.iteration_time.hi);
  CHECK(a.combined_time.hi == b.combined_time.hi);
  CHECK(draw_inputs(*s.declared_inputs, 1, 7) == draw_inputs(*s.declared_inputs, 1, 7));
  CHECK(draw_inputs(*s.declared_inputs, 1, 7) != draw_inputs(*s.declared_inputs, 1, 8));
  const Scenario t = config::load_scenario("", {kRateScale, "run.seed=2"});
  const auto c = step_input_spread(t, model_form(0.1), linear_step, 200, 1);
  CHECK(c.iteration_time.lo != a.iteration_time.lo);
}

TEST_CASE("one-at-a-time shares: an input the iteration does not read has none", "[unit][uncertainty]") {
  const Scenario s = config::load_scenario("", {kRateScale, "checkpoint.write_time={value: 5 s, range: [2 s, 20 s]}"});
  REQUIRE(s.declared_inputs->inputs.size() == 2);
  const auto spread = step_input_spread(s, model_form(0.05), linear_step, 300, 2);
  REQUIRE(spread.inputs.size() == 2);
  CHECK(spread.inputs[0].key == "checkpoint.write_time");
  CHECK(spread.inputs[0].share == 0.0);
  CHECK(spread.inputs[1].share > 0.9);
  CHECK(spread.inputs[1].share + spread.model_form_share == Approx(1.0));
}

TEST_CASE("the real step model: a GEMM efficiency declared uncertain gives an interval between the times at "
          "its range's ends", "[unit][uncertainty]") {
  const Scenario s = config::load_scenario("", {"cluster.gpu.gemm_efficiency={value: 0.8, range: [0.7, 0.9]}"});
  const auto eval = [](const Scenario& x) { return evaluate_scenario_step(x); };
  const double t_fast = eval(config::with_input_values(*s.declared_inputs, {0.9})).iteration_time.si();
  const double t_slow = eval(config::with_input_values(*s.declared_inputs, {0.7})).iteration_time.si();
  const double t_point = eval(s).iteration_time.si();
  REQUIRE(t_fast < t_point);
  REQUIRE(t_point < t_slow);
  const auto spread = step_input_spread(s, model_form(0.1), eval, 40, 2);
  CHECK(spread.infeasible == 0);
  CHECK(spread.iteration_time.lo >= t_fast);
  CHECK(spread.iteration_time.hi <= t_slow);
  CHECK(spread.iteration_time.lo < t_point);
  CHECK(spread.iteration_time.hi > t_point);
}

TEST_CASE("each run replication draws the declared inputs: replication i equals a plain run at draw i",
          "[unit][uncertainty]") {
  Scenario s = config::load_scenario("", {kRateScale, "run.replications=4", "run.duration=10 d"});
  PipelineOptions opt;
  opt.threads = 2;
  opt.replication_scenario = [s](int i) { return drawn_scenario(s, i); };
  const PipelineResult r = run_pipeline(s, opt);
  REQUIRE(r.run.replications.size() == 4);
  REQUIRE(r.replication_iteration_time_s.size() == 4);
  opt.threads = 1;
  const PipelineResult again = run_pipeline(s, opt);
  for (int i = 0; i < 4; ++i) {
    CHECK(again.run.replications[i].ettr == r.run.replications[i].ettr);
    const double scale = draw_inputs(*s.declared_inputs, s.run.seed, i)[0];
    char set[64];
    std::snprintf(set, sizeof set, "failures.rate_scale=%.17g", scale);
    // Replication i's streams depend only on (seed, i): a plain run of i + 1 replications ends with it.
    const Scenario plain = config::load_scenario("", {set, "run.replications=" + std::to_string(i + 1), "run.duration=10 d"});
    PipelineOptions one;
    one.threads = 1;
    const PipelineResult p = run_pipeline(plain, one);
    INFO("replication " << i << " rate_scale " << scale);
    CHECK(p.run.replications[i].ettr == r.run.replications[i].ettr);
    CHECK(p.run.replications[i].unexpected == r.run.replications[i].unexpected);
  }
  CHECK(r.run.mtti_hours == run_pipeline(config::load_scenario("", {"run.replications=1", "run.duration=10 d"})).run.mtti_hours);
}

TEST_CASE("an uncertain value outside a scenario file is refused, naming the key", "[unit][uncertainty]") {
  // A --set of a plain number replaces a declaration; a declaration in a preset override is one.
  const Scenario s = config::load_scenario("", {kRateScale, "failures.rate_scale=1.2"});
  CHECK_FALSE(s.declared_inputs);
  CHECK(s.failures.rate_scale == 1.2);
  try {
    config::load_scenario("", {"failures.rate_scale={value: 1, range: [1.5, 0.7]}"});
    FAIL("accepted a reversed range");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("--set failures.rate_scale") != std::string::npos);
    CHECK(e.key() == "failures.rate_scale.range");
  }
}
