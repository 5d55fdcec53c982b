#include "sim/serving/serving_model.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "sim/core/error.hpp"

namespace fleetsim::serving {
namespace {

bool meets(const BatcherResult& b, const ServingSlo& slo) {
  return (slo.ttft_p99_s <= 0 || b.ttft_p99_s <= slo.ttft_p99_s) && (slo.tpot_p99_s <= 0 || b.tpot_p99_s <= slo.tpot_p99_s);
}

BatcherLoad load_of(const ServingSpec& s, double rate, bool all_at_once) {
  BatcherLoad l;
  l.requests = s.engine.requests;
  l.requests_per_s = rate;
  l.all_at_once = all_at_once;
  l.seed = s.engine.seed;
  return l;
}

std::string ms(double s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g ms", s * 1e3);
  return buf;
}

}  // namespace

MinimumLatency minimum_latency(const ReplicaModel& r) {
  const ServingSpec& s = r.spec();
  MinimumLatency m;
  IterationLoad d;
  d.decode_seqs = 1;
  d.decode_context = s.input_tokens + 1.0;
  m.decode_step_s = r.iteration_time(d).si();
  IterationLoad p;
  p.prefill_seqs = 1;
  p.prefill_tokens = s.input_tokens;
  p.prefill_pairs = s.input_tokens * (s.input_tokens + 1.0) / 2.0;
  m.prefill_s = r.iteration_time(p).si();
  return m;
}

double rate_at_slo(const ReplicaModel& r, const ServingSlo& slo, double capacity, BatcherResult* at) {
  const ServingSpec& s = r.spec();
  double lo = 0, hi = capacity;
  std::optional<BatcherResult> best;
  const BatcherResult top = simulate_batcher(r, load_of(s, hi, false));
  if (meets(top, slo)) {
    if (at) *at = top;
    return hi;
  }
  // Bisection to 1/512 of the capacity (a tenth of the ~2% sampling spread of a p99 over the
  // simulated requests).
  for (int i = 0; i < 9; ++i) {
    const double mid = 0.5 * (lo + hi);
    const BatcherResult b = simulate_batcher(r, load_of(s, mid, false));
    if (meets(b, slo)) {
      lo = mid;
      best = b;
    } else {
      hi = mid;
    }
  }
  if (at && best) *at = *best;
  return lo;
}

ServingResult evaluate_serving(const ClusterSpec& cluster, const ServingSpec& spec, const std::string& file) {
  std::optional<ReplicaModel> replica;
  try {
    replica.emplace(cluster, spec);
  } catch (const ConfigError& e) {
    if (!e.file().empty()) throw;
    throw ConfigError(file, e.key(), e.message());
  }
  const ReplicaModel& r = *replica;
  ServingResult out;
  out.gpus = spec.gpus();
  out.kv_cache_gib = r.kv_cache_per_gpu().si() / (1024.0 * 1024 * 1024);
  out.weights_gib = r.weights_per_gpu().si() / (1024.0 * 1024 * 1024);
  out.kv_cache_tokens = static_cast<double>(r.kv_blocks()) * r.block_tokens();
  const MinimumLatency m = minimum_latency(r);
  out.decode_step_s = m.decode_step_s;
  out.prefill_s = m.prefill_s;
  if (spec.slo.tpot_p99_s > 0 && spec.slo.tpot_p99_s < m.decode_step_s)
    throw ConfigError(file, "serving.slo.tpot_p99",
                      ms(spec.slo.tpot_p99_s) + " is below this replica's one-token decode time, " + ms(m.decode_step_s) +
                          " for one request alone at its prompt's context: no load meets it; give at least that, or more "
                          "tensor parallelism, or fp8");
  if (spec.slo.ttft_p99_s > 0 && spec.slo.ttft_p99_s < m.prefill_s)
    throw ConfigError(file, "serving.slo.ttft_p99",
                      ms(spec.slo.ttft_p99_s) + " is below the prefill of one " + std::to_string(spec.input_tokens) +
                          "-token prompt alone, " + ms(m.prefill_s) + ": no load meets it; give at least that");
  const BatcherResult cap = simulate_batcher(r, load_of(spec, 0, true));
  out.capacity_requests_per_s = cap.requests_per_s;
  BatcherResult b = cap;
  if (spec.slo.any()) {
    out.mode = ServingMode::AtSlo;
    const double rate = rate_at_slo(r, spec.slo, cap.requests_per_s, &b);
    out.requests_per_s_per_replica = rate;
    if (rate <= 0) b = simulate_batcher(r, load_of(spec, cap.requests_per_s / 512, false));
  } else if (spec.requests_per_s > 0 || spec.all_at_once) {
    out.mode = ServingMode::AtLoad;
    if (!spec.all_at_once) b = simulate_batcher(r, load_of(spec, spec.requests_per_s, false));
    out.requests_per_s_per_replica = b.requests_per_s;
    out.saturated = spec.all_at_once || spec.requests_per_s > cap.requests_per_s;
  } else {
    out.requests_per_s_per_replica = cap.requests_per_s;
  }
  out.output_tokens_per_s_per_gpu = (out.mode == ServingMode::AtSlo ? out.requests_per_s_per_replica * spec.output_tokens
                                                                   : b.output_tokens_per_s) / spec.gpus();
  out.ttft_mean_s = b.ttft_mean_s;
  out.ttft_p99_s = b.ttft_p99_s;
  out.tpot_mean_s = b.tpot_mean_s;
  out.tpot_p99_s = b.tpot_p99_s;
  out.batch_size_mean = b.batch_size_mean;
  out.batcher = b;
  return out;
}

}  // namespace fleetsim::serving
