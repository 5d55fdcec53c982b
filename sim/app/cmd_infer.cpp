// `fleetsim infer SCENARIO [--set K=V]... [--json] [--level L]`: one inference replica type under
// load (issue 39; sim/serving/README.md): output tokens/s per GPU, requests/s per replica, TTFT
// and TPOT (mean, p99), the mean batch and the KV cache, at the offline maximum, at an offered
// load, or at the highest load that meets a p99 SLO; with intervals and provenance from the
// serving validation residuals (sim/uncertainty/serving_interval.hpp).
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "sim/app/command.hpp"
#include "sim/config/load.hpp"
#include "sim/core/error.hpp"
#include "sim/results/json.hpp"
#include "sim/serving/serving_model.hpp"
#include "sim/uncertainty/annotate.hpp"
#include "sim/uncertainty/serving_interval.hpp"

namespace fleetsim::app {
namespace {

struct InferArgs {
  std::string scenario;
  std::vector<std::string> sets;
  bool json = false;
  double level = 0.8;
};

const char* mode_name(serving::ServingMode m) {
  return m == serving::ServingMode::AtSlo ? "highest load meeting the SLO"
         : m == serving::ServingMode::AtLoad ? "at the offered load"
                                             : "offline maximum throughput";
}

void infer(const InferArgs& a) {
  uncertainty::check_level(a.level, "--level");
  const Scenario s = config::load_scenario(a.scenario, a.sets);
  const ServingSpec& sv = s.serving;
  if (!sv.enabled) throw ConfigError(s.file, "serving", "fleetsim infer needs a serving: section (model, precision, layout, input_tokens, output_tokens)");
  if (sv.input_tokens <= 0) throw ConfigError(s.file, "serving.input_tokens", "missing: give the prompt length in tokens (>= 1)");
  if (sv.output_tokens <= 0) throw ConfigError(s.file, "serving.output_tokens", "missing: give the generated tokens per request (>= 1)");
  const serving::ServingResult r = serving::evaluate_serving(s.cluster, sv, s.file);
  const auto u = uncertainty::serving_uncertainty(s.cluster.gpu.name, sv, a.level);
  const auto iv = [&](double v, uncertainty::ServingMetric m) { return uncertainty::serving_interval(v, m, u); };
  using M = uncertainty::ServingMetric;
  if (a.json) {
    Json j = Json::object();
    j["scenario"] = s.file;
    j["description"] = s.description;
    Json b = Json::object();
    b["mode"] = r.mode == serving::ServingMode::AtSlo ? "slo" : r.mode == serving::ServingMode::AtLoad ? "load" : "offline";
    b["model"] = sv.model_name;
    b["gpu"] = s.cluster.gpu.name;
    b["precision"] = serving_precision_name(sv.precision);
    b["kv_cache_precision"] = serving_precision_name(sv.kv_cache_precision);
    b["gpus_per_replica"] = r.gpus;
    b["output_tokens_per_s_per_gpu"] = r.output_tokens_per_s_per_gpu;
    b["requests_per_s_per_replica"] = r.requests_per_s_per_replica;
    b["capacity_requests_per_s_per_replica"] = r.capacity_requests_per_s;
    b["ttft_mean_s"] = r.ttft_mean_s;
    b["ttft_p99_s"] = r.ttft_p99_s;
    b["tpot_mean_s"] = r.tpot_mean_s;
    b["tpot_p99_s"] = r.tpot_p99_s;
    b["batch_size_mean"] = r.batch_size_mean;
    b["kv_cache_gib"] = r.kv_cache_gib;
    b["kv_cache_tokens_per_replica"] = r.kv_cache_tokens;
    b["weights_gib_per_gpu"] = r.weights_gib;
    b["decode_step_s"] = r.decode_step_s;
    b["prefill_s"] = r.prefill_s;
    b["saturated"] = r.saturated;
    Json withiv = uncertainty::with_intervals(
        b, {{"output_tokens_per_s_per_gpu", iv(r.output_tokens_per_s_per_gpu, M::Throughput)},
            {"requests_per_s_per_replica", iv(r.requests_per_s_per_replica, M::Throughput)},
            {"ttft_mean_s", iv(r.ttft_mean_s, M::Ttft)},
            {"ttft_p99_s", iv(r.ttft_p99_s, M::Ttft)},
            {"tpot_mean_s", iv(r.tpot_mean_s, M::Tpot)},
            {"tpot_p99_s", iv(r.tpot_p99_s, M::Tpot)}});
    withiv["provenance"] = uncertainty::provenance_json(u.provenance);
    j["serving"] = withiv;
    std::cout << j.dump(2) << "\n";
    return;
  }
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "fleetsim infer: %s\n  %s on %d x %s (TP %d, PP %d, EP %d), %s weights, %s KV cache; %d in / %d out tokens; %s\n\n",
                s.description.c_str(), sv.model_name.c_str(), r.gpus, s.cluster.gpu.name.c_str(), sv.tp, sv.pp, sv.ep,
                serving_precision_name(sv.precision), serving_precision_name(sv.kv_cache_precision), sv.input_tokens,
                sv.output_tokens, mode_name(r.mode));
  std::cout << buf;
  auto row = [&](const char* what, double v, const char* unit, const uncertainty::Interval* i) {
    if (i)
      std::snprintf(buf, sizeof buf, "  %-58s %10.4g %-6s [%.4g, %.4g]\n", what, v, unit, i->lo, i->hi);
    else
      std::snprintf(buf, sizeof buf, "  %-58s %10.4g %s\n", what, v, unit);
    std::cout << buf;
  };
  const auto i_tp = iv(r.output_tokens_per_s_per_gpu, M::Throughput), i_rq = iv(r.requests_per_s_per_replica, M::Throughput);
  const auto i_tm = iv(r.ttft_mean_s, M::Ttft), i_t99 = iv(r.ttft_p99_s, M::Ttft);
  const auto i_pm = iv(r.tpot_mean_s, M::Tpot), i_p99 = iv(r.tpot_p99_s, M::Tpot);
  row("output tokens/s per GPU", r.output_tokens_per_s_per_gpu, "tok/s", &i_tp);
  row("requests/s per replica", r.requests_per_s_per_replica, "req/s", &i_rq);
  row("saturation: requests/s per replica with every request waiting", r.capacity_requests_per_s, "req/s", nullptr);
  row("time to first token, mean", r.ttft_mean_s * 1e3, "ms", nullptr);
  std::snprintf(buf, sizeof buf, "  %-58s %10s        [%.4g, %.4g] ms\n", "", "", i_tm.lo * 1e3, i_tm.hi * 1e3);
  std::cout << buf;
  row("time to first token, p99", r.ttft_p99_s * 1e3, "ms", nullptr);
  row("time per output token after the first, mean", r.tpot_mean_s * 1e3, "ms", nullptr);
  std::snprintf(buf, sizeof buf, "  %-58s %10s        [%.4g, %.4g] ms\n", "", "", i_pm.lo * 1e3, i_pm.hi * 1e3);
  std::cout << buf;
  row("time per output token after the first, p99", r.tpot_p99_s * 1e3, "ms", nullptr);
  (void)i_t99;
  (void)i_p99;
  row("sequences per iteration, time-weighted mean", r.batch_size_mean, "", nullptr);
  row("KV cache per GPU", r.kv_cache_gib, "GiB", nullptr);
  row("KV cache per replica", r.kv_cache_tokens, "tokens", nullptr);
  row("weights per GPU", r.weights_gib, "GiB", nullptr);
  row("one decode step alone (batch 1, the prompt's context)", r.decode_step_s * 1e3, "ms", nullptr);
  row("one prompt's prefill alone", r.prefill_s * 1e3, "ms", nullptr);
  if (r.saturated)
    std::cout << "\nwarning: the offered load is above the replica's saturation rate; latencies grow with the number of "
                 "requests simulated (serving.engine.requests)\n";
  std::snprintf(buf, sizeof buf, "\n%.0f%% intervals (model-form error of the judged serving cases, sim/uncertainty)\n", 100 * a.level);
  std::cout << buf << "  provenance: " << uncertainty::grade_name(u.provenance.grade) << " - " << u.provenance.why << "\n";
}

}  // namespace

void add_infer_command(CLI::App& app) {
  auto args = std::make_shared<InferArgs>();
  auto* c = app.add_subcommand("infer", "one inference replica under load: tokens/s per GPU, requests/s at an SLO, TTFT/TPOT");
  c->add_option("SCENARIO", args->scenario, "scenario file or name with a serving: section")->required();
  c->add_option("--set", args->sets, "override a key: --set serving.requests_per_s=20 (repeatable)");
  c->add_flag("--json", args->json, "print the summary as JSON (serving.* keys)");
  c->add_option("--level", args->level, "level of the intervals, in (0, 1) (default 0.8)");
  c->callback([args] { infer(*args); });
}

}  // namespace fleetsim::app
