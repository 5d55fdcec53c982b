#include "sim/serving/batcher.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <random>

namespace fleetsim::serving {
namespace {

// Exponential inter-arrival times from a 64-bit Mersenne twister, by inversion (the same numbers
// on every standard library, unlike std::exponential_distribution).
std::vector<double> arrivals(const BatcherLoad& load) {
  std::vector<double> a(static_cast<size_t>(std::max(0, load.requests)), 0.0);
  if (load.all_at_once || load.requests_per_s <= 0) return a;
  std::mt19937_64 rng(load.seed * 0x9E3779B97F4A7C15ull + 0x39);
  double t = 0;
  for (auto& x : a) {
    const double u = (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53;
    t += -std::log(u) / load.requests_per_s;
    x = t;
  }
  return a;
}

struct Running {
  long long finish_iteration;
  double first_token_s;
};

}  // namespace

double quantile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = p * static_cast<double>(v.size() - 1);
  const size_t i = static_cast<size_t>(pos);
  if (i + 1 >= v.size()) return v.back();
  return v[i] + (pos - static_cast<double>(i)) * (v[i + 1] - v[i]);
}

BatcherResult simulate_batcher(const ReplicaModel& replica, const BatcherLoad& load) {
  const ServingSpec& s = replica.spec();
  const std::vector<double> arr = arrivals(load);
  const long long isl = s.input_tokens, osl = std::max(1, s.output_tokens);
  const long long need = replica.blocks_for(isl + osl);  // reserved at admission: never evicted
  const long long blocks = replica.kv_blocks();
  const double budget = s.engine.max_num_tokens;
  const int max_batch = s.engine.max_batch_size;

  BatcherResult r;
  std::vector<double> ttft, tpot;
  ttft.reserve(arr.size());
  tpot.reserve(arr.size());
  std::deque<Running> running;
  size_t next = 0;
  double t = arr.empty() ? 0 : arr.front();
  const double t0 = t;
  double decode = 0, context = 0, busy_seq_time = 0, busy_time = 0;
  long long used = 0, iteration = 0, peak_used = 0;
  size_t done = 0;
  std::vector<double> admitted_arrival;
  while (done < arr.size()) {
    // Admission, first come first served: batch size, token budget and KV blocks.
    admitted_arrival.clear();
    double prefill_tokens = 0;
    // The first prompt of an iteration is admitted even when it alone overflows what the running
    // decodes leave of the budget (a prompt is never split: no chunked context); the budget bounds
    // the prompts added after it.
    while (next < arr.size() && arr[next] <= t && decode + admitted_arrival.size() + 1 <= max_batch &&
           used + need <= blocks && (admitted_arrival.empty() || decode + prefill_tokens + isl <= budget)) {
      admitted_arrival.push_back(arr[next++]);
      prefill_tokens += isl;
      used += need;
    }
    peak_used = std::max(peak_used, used);
    const double prefills = static_cast<double>(admitted_arrival.size());
    if (decode == 0 && prefills == 0) {
      if (next >= arr.size()) break;  // cannot happen: the replica holds one request (ReplicaModel)
      t = std::max(t, arr[next]);  // idle until the next arrival (next < size: something is left)
      continue;
    }
    IterationLoad l;
    l.decode_seqs = decode;
    l.decode_context = context;
    l.prefill_seqs = prefills;
    l.prefill_tokens = prefill_tokens;
    l.prefill_pairs = prefills * isl * (isl + 1) / 2.0;
    const double dt = replica.iteration_time(l).si();
    t += dt;
    busy_time += dt;
    busy_seq_time += dt * (decode + prefills);
    ++iteration;
    context += decode;  // every decoding sequence appended one token
    for (double a : admitted_arrival) {
      ttft.push_back(t - a);
      if (osl == 1) {
        tpot.push_back(0);
        used -= need;
        ++done;
        continue;
      }
      running.push_back({iteration + osl - 1, t});
      decode += 1;
      context += isl + 1;
    }
    while (!running.empty() && running.front().finish_iteration == iteration) {
      tpot.push_back((t - running.front().first_token_s) / static_cast<double>(osl - 1));
      running.pop_front();
      decode -= 1;
      context -= isl + osl;
      used -= need;
      ++done;
    }
  }
  r.requests = static_cast<int>(arr.size());
  r.makespan_s = t - t0;
  r.iterations = static_cast<double>(iteration);
  if (r.makespan_s > 0) {
    r.requests_per_s = r.requests / r.makespan_s;
    r.output_tokens_per_s = r.requests * static_cast<double>(osl) / r.makespan_s;
  }
  r.batch_size_mean = busy_time > 0 ? busy_seq_time / busy_time : 0;
  r.kv_blocks_peak_share = blocks > 0 ? static_cast<double>(peak_used) / blocks : 0;
  auto mean = [](const std::vector<double>& v) {
    double sum = 0;
    for (double x : v) sum += x;
    return v.empty() ? 0.0 : sum / static_cast<double>(v.size());
  };
  r.ttft_mean_s = mean(ttft);
  r.tpot_mean_s = mean(tpot);
  r.ttft_p99_s = quantile(ttft, 0.99);
  r.tpot_p99_s = quantile(tpot, 0.99);
  return r;
}

}  // namespace fleetsim::serving
