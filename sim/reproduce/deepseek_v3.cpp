// DeepSeek-V3's published pre-training GPU-hours (deepseek_v3.hpp).
#include "sim/reproduce/deepseek_v3.hpp"

#include <cmath>
#include <sstream>

#include "sim/config/load.hpp"
#include "sim/core/error.hpp"
#include "sim/pipeline/run_pipeline.hpp"

namespace fleetsim::reproduce {
namespace {

// "2664K H800 GPU-hours ...", "180K H800 GPU-hours", "14.8T": a number with a K / M / T suffix.
double scaled(const std::string& text, const std::string& what) {
  std::istringstream in(text);
  double v = 0;
  char suffix = 0;
  if (!(in >> v)) throw ConfigError("other_scale_runs.csv", what, "no number in '" + text + "'");
  in >> suffix;
  switch (suffix) {
    case 'K': return v * 1e3;
    case 'M': return v * 1e6;
    case 'B': return v * 1e9;
    case 'T': return v * 1e12;
    default: return v;
  }
}

}  // namespace

std::vector<GpuHourCase> deepseek_v3_gpu_hour_cases() {
  const CsvTable t = read_csv(validation_dir() + "/other_scale_runs.csv");
  std::vector<GpuHourCase> out;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    if (t.at(i, "model").rfind("DeepSeek-V3 (MoE", 0) != 0) continue;
    const double tokens = scaled(t.at(i, "tokens"), "tokens");
    out.push_back({"DeepSeek-V3 H800 GPU-hours per trillion tokens",
                   scaled(t.at(i, "gpu_hours_per_1T_tokens"), "gpu_hours_per_1T_tokens"), 1e12});
    out.push_back({"DeepSeek-V3 pre-training H800 GPU-hours (" + t.at(i, "tokens") + " tokens)",
                   scaled(t.at(i, "gpu_hours"), "gpu_hours"), tokens});
  }
  if (out.empty())
    throw ConfigError(validation_dir() + "/other_scale_runs.csv", "model", "no DeepSeek-V3 pre-training row");
  return out;
}

double predicted_gpu_hours(const Scenario& s, const StepResult& r, double tokens) {
  const double iterations = std::ceil(tokens / r.tokens_per_iteration.si());
  return iterations * r.iteration_time.si() * s.cluster.gpus / 3600.0;
}

DeepSeekV3Run deepseek_v3_run() {
  DeepSeekV3Run out;
  out.scenario = config::load_scenario("deepseek-v3-2048-h800");
  PipelineOptions o;
  o.threads = 1;  // deterministic at any thread count; one replication takes milliseconds
  const PipelineResult r = run_pipeline(out.scenario, o);
  out.step = r.step;
  out.ettr = mean_over_replications(r.run, [](const ReplicationResult& x) { return x.ettr; });
  out.wall_clock_days = mean_over_replications(r.run, [](const ReplicationResult& x) { return x.wall_clock_days; });
  return out;
}

double predicted_run_gpu_hours(const DeepSeekV3Run& run, double tokens) {
  return predicted_gpu_hours(run.scenario, run.step, tokens) / run.ettr;
}

}  // namespace fleetsim::reproduce
