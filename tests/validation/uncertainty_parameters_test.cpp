// Parameter uncertainty of the fitted GPU values (issue 25; sim/uncertainty/README.md, "Parameter
// uncertainty"): the bootstrap over calibration rows is deterministic for a seed, shrinks when
// the rows are duplicated, refits the calibrators' values, propagates to a step prediction only
// through the parameters a GPU inherits, and the shipped table is the one the rows give today.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "sim/config/load.hpp"
#include "sim/core/error.hpp"
#include "sim/uncertainty/annotate.hpp"
#include "sim/uncertainty/parameter_bootstrap.hpp"

using namespace fleetsim;
using namespace fleetsim::uncertainty;

namespace {

double draw_sd(const ParameterDraws& d, size_t k) {
  double m = 0, s = 0;
  for (const auto& b : d.draws) m += b[k];
  m /= static_cast<double>(d.draws.size());
  for (const auto& b : d.draws) s += (b[k] - m) * (b[k] - m);
  return std::sqrt(s / static_cast<double>(d.draws.size() - 1));
}

// Every family (loads the 1,440 A100 rows: only the staleness check needs them all).
const std::vector<CalibrationFamily>& families() {
  static const std::vector<CalibrationFamily> f = calibration_families();
  return f;
}

const CalibrationFamily& family(const std::string& id) {
  static std::map<std::string, CalibrationFamily> loaded;
  auto it = loaded.find(id);
  if (it == loaded.end()) it = loaded.emplace(id, calibration_family(id)).first;
  return it->second;
}

}  // namespace

TEST_CASE("resampling: n rows drawn with replacement, the same for a seed, another for another seed",
          "[validation][uncertainty][bootstrap]") {
  const auto w1 = resample_weights(50, 7, 3, "h100-fp8");
  double total = 0;
  for (double w : w1) total += w;
  CHECK(total == 50);
  CHECK(resample_weights(50, 7, 3, "h100-fp8") == w1);
  CHECK(resample_weights(50, 8, 3, "h100-fp8") != w1);
  CHECK(resample_weights(50, 7, 4, "h100-fp8") != w1);
  CHECK(resample_weights(50, 7, 3, "b200-fp8") != w1);

  const auto& f = family("h100-fp8");
  const ParameterDraws a = bootstrap_family(f, 20, 7), b = bootstrap_family(f, 20, 7);
  CHECK(a.fit == b.fit);
  CHECK(a.draws == b.draws);
}

TEST_CASE("the bootstrap spread shrinks when every calibration row is duplicated", "[validation][uncertainty][bootstrap]") {
  // Eight copies of each H100 row: the same fit, but a resample of 32 rows varies less than one of
  // 4 (the spread of a bootstrap estimate falls as 1/sqrt(n) for a smooth statistic).
  const auto& f = family("h100-fp8");
  CalibrationFamily dup = f;
  dup.rows.clear();
  for (int copy = 0; copy < 8; ++copy)
    for (const auto& r : f.rows) dup.rows.push_back(r);
  const ParameterDraws once = bootstrap_family(f, 100, 11), eight = bootstrap_family(dup, 100, 11);
  CHECK(eight.fit[0] == Approx(once.fit[0]).margin(1e-3));
  const auto [lo1, hi1] = percentile_range(once, 0, 0.8);
  const auto [lo8, hi8] = percentile_range(eight, 0, 0.8);
  std::printf("  h100 gemm_efficiency_fp8: %d rows sd %.4f 80%% [%.4f, %.4f]; x8 rows sd %.4f 80%% [%.4f, %.4f]\n",
              once.rows, draw_sd(once, 0), lo1, hi1, draw_sd(eight, 0), lo8, hi8);
  CHECK(draw_sd(eight, 0) < draw_sd(once, 0));
  CHECK(hi8 - lo8 <= hi1 - lo1);
}

TEST_CASE("the all-rows refit gives the calibrators' preset values", "[validation][uncertainty][bootstrap]") {
  // The refit is the calibrator's estimator (same rows, objective, bounds); the presets were pasted
  // from the calibrators, rounded to 3 significant digits.
  for (const auto& d : shipped_parameter_draws())
    for (size_t k = 0; k < d.names.size(); ++k) {
      INFO(d.family << " " << d.names[k] << ": preset " << d.preset[k] << ", refit " << d.fit[k]);
      std::printf("  %-12s %-26s preset %.4g refit %.4g\n", d.family.c_str(), d.names[k].c_str(), d.preset[k], d.fit[k]);
      CHECK(d.fit[k] == Approx(d.preset[k]).epsilon(0.05));
    }
}

TEST_CASE("the shipped parameter bootstrap table is the one the calibration rows give today",
          "[validation][uncertainty][bootstrap]") {
  INFO("stale: regenerate with `scripts/calibrate --bootstrap` (writes sim/uncertainty/data/parameter_bootstrap.csv)");
  const auto& shipped = shipped_parameter_draws();
  REQUIRE(shipped.size() == families().size());
  for (size_t i = 0; i < shipped.size(); ++i) {
    const auto& f = families()[i];
    const auto& d = shipped[i];
    INFO(f.id);
    REQUIRE(d.family == f.id);
    CHECK(d.rows == static_cast<int>(f.rows.size()));
    CHECK(d.draws.size() == static_cast<size_t>(kBootstrapDraws));
    CHECK(d.seed == kBootstrapSeed);
    CHECK(d.preset == f.preset());
    // The step model or a row changed: the error of the shipped fit on today's rows differs.
    CHECK(calibration_error(f, d.fit) == Approx(d.calibration_error).epsilon(1e-9));
    // Few rows: the whole bootstrap is cheap enough to redo (the 1,440-row A100 refit is not).
    if (f.rows.size() <= 16) {
      const ParameterDraws fresh = bootstrap_family(f, kBootstrapDraws, kBootstrapSeed);
      for (size_t k = 0; k < d.names.size(); ++k) CHECK(fresh.fit[k] == Approx(d.fit[k]).epsilon(1e-12));
      REQUIRE(fresh.draws.size() == d.draws.size());
      for (size_t b = 0; b < d.draws.size(); ++b)
        for (size_t k = 0; k < d.names.size(); ++k) CHECK(fresh.draws[b][k] == Approx(d.draws[b][k]).epsilon(1e-12));
    }
  }
}

TEST_CASE("a prediction inherits the spread of the fitted values its GPU carries, and only those",
          "[validation][uncertainty][bootstrap]") {
  const auto& draws = shipped_parameter_draws();
  // FP8 on H100: gemm_efficiency_fp8 moves the time.
  const Scenario fp8 = config::load_scenario("llama3-405b-16k", {"workload.training.precision=fp8"});
  const ParameterTerm t = parameter_term(fp8.cluster, fp8.workload, draws, 0.8);
  REQUIRE(t.parameters.size() == 1);
  CHECK(t.parameters[0].name == "gemm_efficiency_fp8");
  CHECK(t.parameters[0].lo <= t.parameters[0].value);
  CHECK(t.parameters[0].hi >= t.parameters[0].value);
  CHECK(t.half_width > 0);
  // BF16 on H100: the same parameter is carried but no BF16 GEMM uses it.
  const Scenario bf16 = config::load_scenario("llama3-405b-16k", {});
  const ParameterTerm tb = parameter_term(bf16.cluster, bf16.workload, draws, 0.8);
  CHECK(tb.parameters.size() == 1);
  CHECK(tb.half_width == Approx(0).margin(1e-12));
  // A value the user set is not the fit: no bootstrap spread is claimed for it.
  const Scenario own = config::load_scenario("llama3-405b-16k", {"workload.training.precision=fp8", "cluster.gpu.gemm_efficiency_fp8=0.6"});
  const ParameterTerm to = parameter_term(own.cluster, own.workload, draws, 0.8);
  CHECK(to.parameters.empty());
  CHECK(to.half_width == 0);
}

TEST_CASE("the parameter term is added in quadrature outside the calibrated grade only", "[unit][uncertainty]") {
  StepUncertainty u;
  u.half_width = u.model_half_width = 0.09;
  u.provenance.grade = Grade::Calibrated;
  CHECK(add_parameter_term(u, 0.05).half_width == Approx(0.09));
  u.provenance.grade = Grade::Transferred;
  const auto added = add_parameter_term(u, 0.05);
  CHECK(added.half_width == Approx(std::hypot(0.09, 0.05)));
  CHECK(added.parameter_term_added);
  CHECK(added.model_half_width == Approx(0.09));
  CHECK(added.parameter_half_width == Approx(0.05));
}

TEST_CASE("a corrupt parameter bootstrap table is refused naming the file and column", "[unit][uncertainty]") {
  const auto path = std::filesystem::temp_directory_path() / "fleetsim_bad_parameter_bootstrap.csv";
  {
    std::ofstream out(path);
    out << "family,parameter,rows,seed,calibration_error,preset,fit,draws\n"
        << "x,gemm_efficiency_fp8,4,25,0.01,0.5,0.5,0.5 zero 0.4\n";
  }
  try {
    (void)read_parameter_draws(path.string());
    FAIL("accepted a non-number draw");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("draws") != std::string::npos);
  }
  std::filesystem::remove(path);
}
