// Propagating declared uncertain inputs by sampling (inputs.hpp; README, "Declared inputs").
#include "sim/core/workers.hpp"
#include "sim/uncertainty/inputs.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <thread>

#include "sim/core/error.hpp"
#include "sim/run/rng.hpp"
#include "sim/uncertainty/compare.hpp"

namespace fleetsim::uncertainty {
namespace {

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// The standard normal truncated to [a, b] at probability u: Phi^-1(Phi(a) + u (Phi(b) - Phi(a))).
double truncated_standard_normal(double a, double b, double u) {
  const double pa = normal_cdf(a), pb = normal_cdf(b);
  const double p = std::clamp(pa + u * (pb - pa), 1e-300, 1.0 - 1e-16);
  return std::clamp(normal_quantile(p), a, b);
}

double log_half_width(const Interval& i) { return i.lo > 0 && i.hi > 0 ? 0.5 * std::log(i.hi / i.lo) : 0.0; }

// The drawn iteration times and MFUs (NaN where a draw did not fit in memory), draw i in slot i.
void evaluate_draws(const Scenario& s, const StepEvaluator& eval, int draws, int only, int threads,
                    std::vector<double>& times, std::vector<double>& mfus) {
  times.assign(static_cast<size_t>(draws), NAN);
  mfus.assign(static_cast<size_t>(draws), NAN);
  std::atomic<int> next{0};
  std::mutex m;
  std::exception_ptr error;
  auto worker = [&] {
    try {
      for (int i = next++; i < draws; i = next++) {
        try {
          const StepResult r = eval(drawn_scenario(s, i, only));
          times[static_cast<size_t>(i)] = r.iteration_time.si();
          mfus[static_cast<size_t>(i)] = r.mfu;
        } catch (const InfeasibleError&) {
          // left NaN: counted as infeasible
        }
      }
    } catch (...) {
      std::lock_guard lock(m);
      if (!error) error = std::current_exception();
      next = draws;
    }
  };
  threads = std::max(1, std::min(threads, draws));
  core::run_workers(threads, worker);
  if (error) std::rethrow_exception(error);
}

std::vector<double> finite(const std::vector<double>& v) {
  std::vector<double> out;
  for (double x : v)
    if (std::isfinite(x)) out.push_back(x);
  return out;
}

Json input_json(const config::DeclaredInput& in) {
  Json j = Json::object();
  j["key"] = in.key;
  j["distribution"] = in.spec.distribution;
  j["value"] = in.value;
  if (in.spec.distribution == "normal") j["sd"] = in.spec.sd;
  if (in.spec.distribution == "lognormal") j["sigma"] = in.spec.sigma;
  if (std::isfinite(in.spec.lo)) j["lo"] = in.spec.lo;
  if (std::isfinite(in.spec.hi)) j["hi"] = in.spec.hi;
  j["shown"] = in.spec.shown;
  return j;
}

}  // namespace

double input_quantile(const config::UncertainSpec& spec, double value, double u) {
  const double lo = spec.lo, hi = spec.hi;
  if (spec.distribution == "uniform") return lo + u * (hi - lo);
  if (spec.distribution == "triangular") {
    // Inverse CDF of the triangular distribution on [lo, hi] with mode c = value.
    const double c = value, w = hi - lo, fc = (c - lo) / w;
    return u < fc ? lo + std::sqrt(u * w * (c - lo)) : hi - std::sqrt((1 - u) * w * (hi - c));
  }
  if (spec.distribution == "normal")
    return value + spec.sd * truncated_standard_normal((lo - value) / spec.sd, (hi - value) / spec.sd, u);
  // lognormal: median `value`, sigma of ln x.
  const double a = lo > 0 ? std::log(lo / value) / spec.sigma : -INFINITY;
  const double b = std::isfinite(hi) ? std::log(hi / value) / spec.sigma : INFINITY;
  return std::clamp(value * std::exp(spec.sigma * truncated_standard_normal(a, b, u)), lo, hi);
}

std::vector<double> draw_inputs(const config::DeclaredInputs& d, std::uint64_t seed, int index, int only) {
  std::vector<double> v;
  for (size_t k = 0; k < d.inputs.size(); ++k) {
    const auto& in = d.inputs[k];
    if (only >= 0 && static_cast<size_t>(only) != k) {
      v.push_back(in.value);
      continue;
    }
    run::Rng rng(seed, static_cast<std::uint64_t>(index),
                 static_cast<std::uint64_t>(run::Stream::DeclaredInputBase) + k);
    v.push_back(input_quantile(in.spec, in.value, rng.uniform()));
  }
  return v;
}

Scenario drawn_scenario(const Scenario& s, int index, int only) {
  if (!s.declared_inputs) return s;
  return config::with_input_values(*s.declared_inputs, draw_inputs(*s.declared_inputs, s.run.seed, index, only));
}

StepInputSpread step_input_spread(const Scenario& s, const StepUncertainty& model_form, const StepEvaluator& eval,
                                  int draws, int threads) {
  StepInputSpread out;
  out.draws = draws;
  out.seed = s.run.seed;
  const double level = model_form.level;
  if (!s.declared_inputs) return out;
  std::vector<double> times, mfus;
  evaluate_draws(s, eval, draws, -1, threads, times, mfus);
  const std::vector<double> t_ok = finite(times), m_ok = finite(mfus);
  out.infeasible = draws - static_cast<int>(t_ok.size());
  if (t_ok.empty())
    throw InfeasibleError("none of the " + std::to_string(draws) + " draws of the declared uncertain inputs fits in "
                          "GPU memory; narrow their ranges");
  out.iteration_time = sample_interval(t_ok, level);
  out.mfu = sample_interval(m_ok, level);
  out.combined_time = combine_with_step(out.iteration_time, model_form);
  out.combined_mfu = combine_with_step(out.mfu, model_form);
  // One at a time: each input drawn alone (the same uniforms as in the joint draws), its log
  // half-width squared as its share, beside the model-form error's (first-order variance shares).
  const auto& inputs = s.declared_inputs->inputs;
  double total = model_form.half_width * model_form.half_width;
  for (size_t k = 0; k < inputs.size(); ++k) {
    InputContribution c;
    c.key = inputs[k].key;
    c.shown = inputs[k].spec.shown;
    if (inputs.size() == 1) {
      c.iteration_time = out.iteration_time;
    } else {
      std::vector<double> tk, mk;
      evaluate_draws(s, eval, draws, static_cast<int>(k), threads, tk, mk);
      c.iteration_time = sample_interval(finite(tk), level);
    }
    const double h = log_half_width(c.iteration_time);
    c.share = h * h;
    total += h * h;
    out.inputs.push_back(c);
  }
  for (auto& c : out.inputs) c.share = total > 0 ? c.share / total : 0.0;
  out.model_form_share = total > 0 ? model_form.half_width * model_form.half_width / total : 0.0;
  return out;
}

Json input_spread_json(const Scenario& s, const StepInputSpread& spread) {
  Json j = Json::object();
  j["draws"] = spread.draws;
  j["seed"] = static_cast<double>(spread.seed);
  j["infeasible_draws"] = spread.infeasible;
  j["iteration_time_s_interval"] = interval_json(spread.iteration_time);
  j["mfu_interval"] = interval_json(spread.mfu);
  j["model_form_share"] = spread.model_form_share;
  Json list = Json::array();
  if (s.declared_inputs) {
    for (size_t k = 0; k < s.declared_inputs->inputs.size(); ++k) {
      Json in = input_json(s.declared_inputs->inputs[k]);
      if (k < spread.inputs.size()) {
        in["iteration_time_s_interval"] = interval_json(spread.inputs[k].iteration_time);
        in["share_of_width"] = spread.inputs[k].share;
      }
      list.push_back(in);
    }
  }
  j["inputs"] = list;
  return j;
}

Json declared_inputs_json(const Scenario& s) {
  Json list = Json::array();
  if (s.declared_inputs)
    for (const auto& in : s.declared_inputs->inputs) list.push_back(input_json(in));
  return list;
}

}  // namespace fleetsim::uncertainty
