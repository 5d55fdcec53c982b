// The step section of `fleetsim validate`: every published case of the step model, each table
// followed by its mean absolute error. The order is the printed order.
#include <cmath>
#include <cstdio>

#include "sim/reproduce/deepseek_v3.hpp"
#include "sim/reproduce/dgxc_llama31.hpp"
#include "sim/reproduce/megatron_bridge.hpp"
#include "sim/reproduce/nemo.hpp"
#include "sim/reproduce/sections.hpp"
#include "sim/reproduce/step_sources.hpp"

namespace fleetsim::reproduce {

std::vector<ValidationCase> moe_validation_cases() {
  std::vector<ValidationCase> out;
  auto add = [&](const std::string& source, const std::string& name, double published, double predicted,
                 double tolerance) {
    ValidationCase v;
    v.source = source;
    v.case_name = name;
    v.metric = "H800 GPU-hours";
    v.published = published;
    v.predicted = predicted;
    v.error = (predicted - published) / published;
    v.tolerance = tolerance;
    v.pass = std::fabs(v.error) <= tolerance;
    out.push_back(v);
  };
  const DeepSeekV3Run run = deepseek_v3_run();
  const std::string src = "DeepSeek-V3 pre-training, 2,048 H800 (arXiv:2412.19437 §1)";
  for (const auto& c : deepseek_v3_gpu_hour_cases()) {
    char what[96];
    std::snprintf(what, sizeof what, "%gT tokens, run-level (ETTR %.3f)", c.tokens / 1e12, run.ettr);
    add(src, what, c.published_gpu_hours, predicted_run_gpu_hours(run, c.tokens), 0.10);
    std::snprintf(what, sizeof what, "%gT tokens, step only (no failures)", c.tokens / 1e12);
    add(src, what, c.published_gpu_hours,
        predicted_gpu_hours(run.scenario, run.step, c.tokens), 0.10);
  }
  // GB200 / GB300 NVL72 and B300 (issue 26, nemo_systems.cpp): judged with their presets.
  for (const char* system : {"DGX-H100", "DGX-B200", "DGX-GB200", "DGX-GB300", "DGX-B300"}) {
    std::vector<ValidationCase> rows;
    for (const auto& c : nemo_moe_cases(system)) rows.push_back(compare(c));
    out.insert(out.end(), rows.begin(), rows.end());
    if (!rows.empty()) out.push_back(mean_absolute(rows, rows.front().source, 0.15));
  }
  return out;
}

// Every published case of the step model, each followed by its table's mean absolute error.
std::vector<ValidationCase> step_validation_cases() {
  std::vector<ValidationCase> out;
  auto run_table = [&](const std::vector<StepCase>& cases, double mean_tolerance) {
    std::vector<ValidationCase> v;
    for (const auto& c : cases) v.push_back(compare(c));
    out.insert(out.end(), v.begin(), v.end());
    if (!cases.empty()) out.push_back(mean_absolute(v, cases.front().source, mean_tolerance));
  };
  run_table(megatron_sc21_table1_cases(), 0.05);
  run_table(llama3_table4_cases(), 3.0);
  run_table(vtrain_multinode_cases(), 0.10);
  run_table(vtrain_singlenode_cases(), 0.10);
  // NeMo DGX H100 / B200 / GB200 / GB300: the judged rows only (the calibration rows are what the
  // GPU presets were fitted on; scripts/calibrate --gpu h100|b200|gb300 prints them; GB200 carries
  // B200's fit, its calibration rows are printed by tests/validation/step_nemo_blackwell_test.cpp).
  // DGX-B300 has no dense rows in the table.
  for (const char* system : {"DGX-H100", "DGX-B200", "DGX-GB200", "DGX-GB300"}) {
    std::vector<StepCase> judged;
    for (auto& c : nemo_cases(system))
      if (!c.calibration) judged.push_back(std::move(c));
    for (auto& c : judged) c.source += " (judged rows)";
    run_table(judged, 0.10);
  }
  // NVIDIA DGX Cloud Llama 3.1 on DGX H100, BF16 and FP8 on the same layouts (dgxc_llama31.hpp).
  const auto dgxc = dgxc_validation_cases();
  out.insert(out.end(), dgxc.begin(), dgxc.end());
  // NVIDIA Megatron-Bridge 25.11-26.08, FP8 / MXFP8 / NVFP4 on GB300, GB200, B200, H100
  // (megatron_bridge.hpp): judged rows per GPU x precision, the MoE rows, the calibration rows.
  const auto bridge = megatron_bridge_validation_cases();
  out.insert(out.end(), bridge.begin(), bridge.end());
  // Mixture of experts (deepseek_v3.hpp, nemo.hpp): DeepSeek-V3's GPU-hours and the NeMo MoE rows.
  const auto moe = moe_validation_cases();
  out.insert(out.end(), moe.begin(), moe.end());
  return out;
}

}  // namespace fleetsim::reproduce
