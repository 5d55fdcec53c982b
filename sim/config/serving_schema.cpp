// Keys of the `serving:` section (issue 39; `fleetsim infer`, sim/serving/README.md): one
// inference replica type under load, and the ServingSpec built from it.
#include "sim/config/serving_config.hpp"

#include "sim/config/catalog.hpp"
#include "sim/config/resolve.hpp"
#include "sim/config/scenario_builder.hpp"
#include "sim/config/yaml_source.hpp"
#include "sim/core/error.hpp"
#include "sim/core/limits.hpp"

namespace fleetsim::config {
namespace {

std::shared_ptr<Schema> make(std::string name, std::string doc, std::vector<Field> fields) {
  auto s = std::make_shared<Schema>();
  s->name = std::move(name);
  s->doc = std::move(doc);
  s->fields = std::move(fields);
  return s;
}

}  // namespace

std::shared_ptr<const Schema> serving_slo_schema() {
  static const auto s = make("slo", "Latency targets; with one given, the answer is the highest load that meets it.", {
      quantity("ttft_p99", dim<Seconds>(), "0 s", "99th percentile of the time to first token (0 = none)", 0, false),
      quantity("tpot_p99", dim<Seconds>(), "0 s", "99th percentile of the time per output token after the first (0 = none)", 0, false),
  });
  return s;
}

std::shared_ptr<const Schema> serving_layout_schema() {
  static const auto s = make("layout", "One replica's layout and precision (the serving: section's keys).", {
      integer("tensor_model_parallel_size", "1", "TP of one replica", 1, limits::kMaxGpus),
      integer("pipeline_model_parallel_size", "1", "PP of one replica", 1, limits::kMaxGpus),
      integer("expert_model_parallel_size", "1", "EP inside TP", 1, limits::kMaxGpus),
      choice("precision", {"bf16", "fp16", "fp8"}, "bf16", "weights and GEMMs"),
      choice("kv_cache_precision", {"auto", "bf16", "fp16", "fp8"}, "auto", "KV-cache elements; auto = fp8 under fp8, else 16-bit"),
  });
  return s;
}

namespace {

std::shared_ptr<const Schema> engine_schema() {
  static const auto s = make("engine", "The in-flight batcher and the engine's fixed costs (TensorRT-LLM defaults).", {
      integer("max_batch_size", "2048", "sequences in one iteration", 1, 1 << 20),
      integer("max_num_tokens", "8192", "token budget of one iteration: decode tokens plus prompt tokens (TensorRT-LLM default 8192)", 1, 1 << 24),
      integer("kv_block_tokens", "64", "tokens per paged KV-cache block (TensorRT-LLM tokens_per_block 64)", 1, 1 << 16),
      real("kv_cache_memory_fraction", "0.9", "share of the memory left after weights and workspace given to the KV cache "
           "(TensorRT-LLM kv_cache_free_gpu_mem_fraction, default 0.9)", 0, 1, true),
      quantity("iteration_overhead", dim<Seconds>(), "3.35 ms",
               "host time per iteration: scheduling, sampling, synchronization (fitted by bench/calibrate_serving on the "
               "TensorRT-LLM v0.17 TP 1 rows, bound [0, 5 ms]; sim/serving/README.md)", 0, false),
      quantity("layer_overhead", dim<Seconds>(), "0 us",
               "per transformer layer per iteration: launch gaps and tails of its ~10 dependent kernels under CUDA "
               "graphs (fitted on the same rows, bound [0, 100 us]; the fit sits at 0)", 0, false),
      integer("requests", "1000", "requests the batcher simulation serves per evaluation (its sample size)", 10, 1000000),
      integer("seed", "1", "seed of the Poisson arrivals", 0),
  });
  return s;
}

}  // namespace

std::shared_ptr<const Schema> serving_schema() {
  static const auto s = make("serving", "One inference replica type under load (fleetsim infer; sim/serving/README.md).", {
      text("model", "", "workload preset served (models/workloads; its seq_length is the context window); empty = workload.model"),
      choice("precision", {"bf16", "fp16", "fp8"}, "bf16",
             "weights and GEMMs: bf16 / fp16 (2 B) or fp8 (1 B, the GPU's FP8 peak; TensorRT-LLM --quantization FP8)"),
      choice("kv_cache_precision", {"auto", "bf16", "fp16", "fp8"}, "auto", "KV-cache elements; auto = fp8 under fp8, else 16-bit"),
      integer("tensor_model_parallel_size", "1", "TP of one replica", 1, limits::kMaxGpus),
      integer("pipeline_model_parallel_size", "1", "PP of one replica", 1, limits::kMaxGpus),
      integer("expert_model_parallel_size", "1", "EP of one replica's MoE layers, inside TP (moe_ep x moe_tp = TP)", 1, limits::kMaxGpus),
      integer("input_tokens", "0", "prompt tokens per request (required by fleetsim infer)", 0, 1 << 24),
      integer("output_tokens", "0", "generated tokens per request (required by fleetsim infer)", 0, 1 << 24),
      real("requests_per_s", "0", "offered load, Poisson arrivals; absent = offline maximum throughput", 0),
      section("slo", serving_slo_schema(), "p99 TTFT / TPOT targets: the answer is the highest load that meets them"),
      section("engine", engine_schema(), "batcher settings and fitted engine overheads"),
  });
  return s;
}

ModelSpec load_serving_model(const std::string& name, const std::string& file, const std::string& key) {
  Resolver r;
  const std::string path = r.find_preset("workloads", name, file, key);
  ParamSet mp = r.resolve(read_yaml_file(path), *kind_schema("workloads"), key, path);
  ModelSpec m = build_model(mp);
  if (m.name.empty()) m.name = name;
  return m;
}

ServingSpec serving_spec_for_group(const ParamSet& row, const std::string& file, const std::string& prefix) {
  ServingSpec o;
  o.enabled = true;
  o.model_name = row.text("model");
  o.model = load_serving_model(o.model_name, file, prefix + ".model");
  const ParamSet& l = row.sub("layout");
  o.precision = parse_serving_precision(l.text("precision"));
  const std::string& kv = l.text("kv_cache_precision");
  o.kv_cache_precision = kv == "auto" ? (o.precision == ServingPrecision::Fp8 ? ServingPrecision::Fp8 : o.precision)
                                      : parse_serving_precision(kv);
  o.tp = l.integer("tensor_model_parallel_size");
  o.pp = l.integer("pipeline_model_parallel_size");
  o.ep = l.integer("expert_model_parallel_size");
  o.input_tokens = row.integer("input_tokens");
  o.output_tokens = row.integer("output_tokens");
  const ParamSet& slo = row.sub("slo");
  o.slo.ttft_p99_s = slo.get<Seconds>("ttft_p99").si();
  o.slo.tpot_p99_s = slo.get<Seconds>("tpot_p99").si();
  if (o.input_tokens <= 0) throw ConfigError(file, prefix + ".input_tokens", "with model: give the prompt tokens per request (>= 1)");
  if (o.output_tokens <= 0) throw ConfigError(file, prefix + ".output_tokens", "with model: give the generated tokens per request (>= 1)");
  if (slo.at("ttft_p99").origin != "default" && !(o.slo.ttft_p99_s > 0))
    throw ConfigError(file, prefix + ".slo.ttft_p99", "must be > 0 (e.g. '2 s')");
  if (slo.at("tpot_p99").origin != "default" && !(o.slo.tpot_p99_s > 0))
    throw ConfigError(file, prefix + ".slo.tpot_p99", "must be > 0 (e.g. '50 ms')");
  check_serving_request(o, file, prefix, prefix + ".layout");
  return o;
}

ServingPrecision parse_serving_precision(const std::string& word) {
  return word == "fp8" ? ServingPrecision::Fp8 : word == "fp16" ? ServingPrecision::Fp16 : ServingPrecision::Bf16;
}

void build_serving(const ParamSet& p, bool present, Scenario& s, const std::string& file) {
  ServingSpec& o = s.serving;
  o.enabled = present;
  const std::string& name = p.text("model");
  if (name.empty()) {
    o.model = s.workload.model;
    o.model_name = s.workload.model.name;
  } else {
    o.model = load_serving_model(name, file, "serving.model");
    o.model_name = name;
  }
  o.precision = parse_serving_precision(p.text("precision"));
  const std::string& kv = p.text("kv_cache_precision");
  o.kv_cache_precision = kv == "auto" ? (o.precision == ServingPrecision::Fp8 ? ServingPrecision::Fp8 : o.precision)
                                      : parse_serving_precision(kv);
  o.tp = p.integer("tensor_model_parallel_size");
  o.pp = p.integer("pipeline_model_parallel_size");
  o.ep = p.integer("expert_model_parallel_size");
  o.input_tokens = p.integer("input_tokens");
  o.output_tokens = p.integer("output_tokens");
  o.requests_per_s = p.num("requests_per_s");
  const ParamSet& slo = p.sub("slo");
  o.slo.ttft_p99_s = slo.get<Seconds>("ttft_p99").si();
  o.slo.tpot_p99_s = slo.get<Seconds>("tpot_p99").si();
  const ParamSet& e = p.sub("engine");
  o.engine.max_batch_size = e.integer("max_batch_size");
  o.engine.max_num_tokens = e.integer("max_num_tokens");
  o.engine.kv_block_tokens = e.integer("kv_block_tokens");
  o.engine.kv_cache_memory_fraction = e.num("kv_cache_memory_fraction");
  o.engine.iteration_overhead_s = e.get<Seconds>("iteration_overhead").si();
  o.engine.layer_overhead_s = e.get<Seconds>("layer_overhead").si();
  o.engine.requests = e.integer("requests");
  o.engine.seed = static_cast<unsigned long long>(e.num("seed"));
  if (!present) return;
  auto given = [&](const ParamSet& ps, const std::string& key) { return ps.at(key).origin != "default"; };
  if (given(p, "requests_per_s") && !(o.requests_per_s > 0))
    throw ConfigError(file, "serving.requests_per_s", "must be > 0 requests per second (leave it out for the offline maximum throughput)");
  if (given(slo, "ttft_p99") && !(o.slo.ttft_p99_s > 0))
    throw ConfigError(file, "serving.slo.ttft_p99", "must be > 0 (e.g. '2 s'; leave it out for no TTFT target)");
  if (given(slo, "tpot_p99") && !(o.slo.tpot_p99_s > 0))
    throw ConfigError(file, "serving.slo.tpot_p99", "must be > 0 (e.g. '50 ms'; leave it out for no TPOT target)");
  check_serving_request(o, file, "serving");
}

void check_serving_request(const ServingSpec& o, const std::string& file, const std::string& prefix,
                           const std::string& layout_prefix) {
  const ModelSpec& m = o.model;
  auto fail = [&](const std::string& key, const std::string& msg) {
    const bool layout = key.find("_model_parallel_size") != std::string::npos;
    throw ConfigError(file, (layout && !layout_prefix.empty() ? layout_prefix : prefix) + "." + key, msg);
  };
  if (o.input_tokens + static_cast<long long>(o.output_tokens) > m.seq_length)
    fail(o.input_tokens > m.seq_length ? "input_tokens" : "output_tokens",
         std::to_string(o.input_tokens) + " + " + std::to_string(o.output_tokens) + " tokens is beyond the context of " +
             o.model_name + " (" + std::to_string(m.seq_length) + " tokens, its seq_length); give at most that in all");
  const int heads = m.num_attention_heads;
  if (heads % o.tp != 0)
    fail("tensor_model_parallel_size", std::to_string(o.tp) + " does not divide the " + std::to_string(heads) +
                                           " attention heads of " + o.model_name);
  if (m.ffn_hidden_size % o.tp != 0)
    fail("tensor_model_parallel_size", std::to_string(o.tp) + " does not divide ffn_hidden_size " + std::to_string(m.ffn_hidden_size));
  if (o.pp > m.num_layers)
    fail("pipeline_model_parallel_size", std::to_string(o.pp) + " stages for " + std::to_string(m.num_layers) + " layers");
  if (o.ep > 1 && !m.is_moe()) fail("expert_model_parallel_size", "must be 1 for the dense model " + o.model_name);
  if (o.ep > 1 && (o.tp % o.ep != 0 || m.num_experts % o.ep != 0))
    fail("expert_model_parallel_size", std::to_string(o.ep) + " must divide tensor_model_parallel_size (" + std::to_string(o.tp) +
                                           ") and num_experts (" + std::to_string(m.num_experts) + ")");
}

}  // namespace fleetsim::config
