// The power timeline of the Llama 3 405B scenario (facility.power_timeline: on) against the
// published figures of data/validation/power_dynamics.csv: F01, Llama 3 §3.3.4 ("instant
// fluctuations of power consumption across the data center on the order of tens of megawatts",
// at the start or stop of the whole job), and the iteration period's place in the spectrum.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <string>

#include "sim/config/load.hpp"
#include "sim/core/csv.hpp"
#include "sim/pipeline/run_pipeline.hpp"
#include "sim/pipeline/run_trace.hpp"
#include "tests/test_paths.hpp"

using namespace fleetsim;

namespace {

struct Fact {
  double low = 0, high = 0;
  std::string source;
};

Fact fact(const std::string& id) {
  const CsvTable t = read_csv(std::string(testing::source_dir()) + "/data/validation/power_dynamics.csv");
  for (size_t i = 0; i < t.size(); ++i)
    if (t.at(i, "fact_id") == id) return {t.num(i, "low"), t.num(i, "high"), t.at(i, "source") + ", " + t.at(i, "locator")};
  FAIL("no fact " << id << " in power_dynamics.csv");
  return {};
}

PipelineResult llama3_with_power(const std::vector<std::string>& extra = {}) {
  std::vector<std::string> sets = {"facility.power_timeline=on", "run.replications=1", "run.duration=7 d",
                                   "facility.power_dynamics.window=6 h"};
  sets.insert(sets.end(), extra.begin(), extra.end());
  const Scenario s = config::load_scenario(std::string(testing::source_dir()) + "/scenarios/llama3-405b-16k.yaml", sets);
  PipelineOptions opt;
  opt.threads = 1;
  return run_pipeline(s, opt);
}

}  // namespace

TEST_CASE("Llama 3 405B on 16k H100: the job-stop swing at the meter is in the tens of MW (Llama 3 §3.3.4)", "[validation][power]") {
  const PipelineResult r = llama3_with_power();
  REQUIRE(r.power);
  const auto& p = *r.power;
  const Fact f01 = fact("F01");
  std::printf("Llama 3 405B, 16,384 H100, power timeline at 10 ms (window 6 h of a 7-day run):\n"
              "  job-stop swing at the meter %.2f MW (published range %g-%g MW: %s)\n"
              "  per level: GPU %.0f W, rack %.1f kW, hall %.2f MW; iteration swing at the meter %.2f MW "
              "(%.2f MW after NVML's 1 s average)\n",
              p.job_stop_swing.meter_mw, f01.low, f01.high, f01.source.c_str(), p.job_stop_swing.gpu_w,
              p.job_stop_swing.rack_kw, p.job_stop_swing.hall_mw, p.iteration_swing.meter_mw, p.iteration_swing_telemetry_mw);
  CHECK(p.job_stop_swing.meter_mw >= f01.low);
  CHECK(p.job_stop_swing.meter_mw <= f01.high);
  // The steps happen: restarts and checkpoint stalls move the meter by the job-stop swing.
  CHECK(p.run_steps_over_10mw > 0);
  CHECK(p.run_largest_step_mw == Approx(p.job_stop_swing.meter_mw));
  // The summary and JSON carry it under facility.power_dynamics.
  auto reported = [&](const std::string& name) {
    for (const auto& e : r.report.entries())
      if (e.name == name) return std::get<double>(e.value);
    FAIL("no metric " << name);
    return 0.0;
  };
  CHECK(reported("facility.power_dynamics.job_stop_swing_mw") == Approx(p.job_stop_swing.meter_mw));
  CHECK(reported("facility.power_dynamics.iteration_swing_mw") == Approx(p.iteration_swing.meter_mw));
  CHECK(r.report.to_json().dump().find("\"power_dynamics\": {") != std::string::npos);
}

TEST_CASE("Llama 3 405B on 16k H100: the iteration spectrum peaks on a harmonic of 1 / iteration period", "[validation][power]") {
  const PipelineResult r = llama3_with_power();
  REQUIRE(r.power);
  const auto& s = r.power->spectrum;
  const double f0 = 1.0 / r.power->iteration_period_s;
  const double harmonic = s.peak_hz / f0;
  std::printf("  iteration period %.3f s (1/T = %.4f Hz); spectrum peak %.4f Hz = %.2f / T; "
              "band shares 0.1-1 Hz %.2f, 1-3 Hz %.2f, 3-20 Hz %.3f (F10: production traces 0.2-3 Hz)\n",
              r.power->iteration_period_s, f0, s.peak_hz, harmonic, r.power->bands.share[0], r.power->bands.share[1],
              r.power->bands.share[2]);
  // Each pipeline stage repeats every iteration, so the sum is periodic: its peak sits on k / T
  // (within a bin), for a k no larger than the number of stages.
  CHECK(std::fabs(s.peak_hz - std::round(harmonic) * f0) <= s.resolution_hz);
  CHECK(std::round(harmonic) >= 1);
  CHECK(std::round(harmonic) <= 16);
  // The fundamental stands out of its neighbourhood (between the harmonics there is little).
  auto at = [&](double hz) { return s.variance[static_cast<size_t>(std::llround(hz / s.resolution_hz)) - 1]; };
  CHECK(at(f0) > 20 * at(1.5 * f0));
  // F10: the energy sits in 0.2-3 Hz in production traces; here 0.1-3 Hz holds most of it.
  CHECK(r.power->bands.share[0] + r.power->bands.share[1] > 0.9);
}

TEST_CASE("run --trace carries the meter as counter tracks when the power timeline is on", "[power][trace]") {
  const Scenario s = config::load_scenario(std::string(testing::source_dir()) + "/scenarios/llama3-405b-16k.yaml",
                                           {"facility.power_timeline=on", "run.replications=1", "run.duration=1 d",
                                            "facility.power_dynamics.window=1 h"});
  PipelineOptions opt;
  opt.threads = 1;
  opt.record_timeline = true;
  const PipelineResult r = run_pipeline(s, opt);
  TraceWriter w;
  add_run_trace(s, r, w);
  const std::string text = w.str();
  CHECK(text.find("meter power, job state levels (MW)") != std::string::npos);
  CHECK(text.find("meter power, sampled window, 1 s (MW)") != std::string::npos);
}
