#include "sim/pipeline/run_summary.hpp"

#include <algorithm>
#include <cmath>

#include "sim/uncertainty/annotate.hpp"
#include "sim/uncertainty/compare.hpp"
#include "sim/uncertainty/inputs.hpp"

namespace fleetsim {
namespace {

// Adaptive replications (issue 25; sim/uncertainty/README.md, "Adaptive replications"): the
// Monte-Carlo half-width of the mean ETTR at `level`, z * sd / sqrt(n) (central limit theorem).
double ettr_half_width(const PipelineResult& r, double level) {
  const size_t n = r.run.replications.size();
  if (n < 2) return INFINITY;
  double mean = 0, ss = 0;
  for (const auto& rep : r.run.replications) mean += rep.ettr;
  mean /= static_cast<double>(n);
  for (const auto& rep : r.run.replications) ss += (rep.ettr - mean) * (rep.ettr - mean);
  const double sd = std::sqrt(ss / static_cast<double>(n - 1));
  return uncertainty::normal_quantile((1 + level) / 2) * sd / std::sqrt(static_cast<double>(n));
}

}  // namespace

RunUncertainty run_uncertainty(const Scenario& s, const PipelineResult& r, double level) {
  RunUncertainty u;
  u.step = uncertainty::scenario_step_uncertainty(s, level);
  u.iteration_time = uncertainty::time_interval(r.step.iteration_time.si(), u.step);
  u.mfu = uncertainty::rate_interval(r.step.mfu, u.step);
  std::vector<double> ettr, days, tokens;
  for (const auto& rep : r.run.replications) {
    ettr.push_back(rep.ettr);
    days.push_back(rep.wall_clock_days);
    tokens.push_back(rep.tokens_trained);
  }
  // ETTR is a ratio of times that both scale with the run's length: the step time's error moves
  // it only through second-order terms (checkpoint cadence in iterations), so its interval is the
  // Monte-Carlo spread alone.
  u.ettr = uncertainty::sample_interval(ettr, level);
  u.wall_clock_days = uncertainty::sample_interval(days, level);
  u.tokens_trained = uncertainty::sample_interval(tokens, level);
  // The waterfall's effective utilization is proportional to MFU (single-GPU x scaling), so to
  // 1 / T: its replications' range combined with the step interval; each factor as
  // waterfall_interval.hpp says.
  std::vector<facility::Waterfall> waterfalls;
  for (const auto& f : r.facility) waterfalls.push_back(f.waterfall);
  u.waterfall = uncertainty::waterfall_intervals(waterfalls, u.step, level);
  u.effective_utilization = u.waterfall.product;
  std::vector<double> pue;
  for (const auto& f : r.facility) pue.push_back(f.pue_mean);
  u.pue = uncertainty::sample_interval(pue, level);
  // Declared uncertain inputs (sim/uncertainty/inputs.hpp): each replication ran its own drawn
  // iteration, so the step figures' spread over the replications joins the model-form interval.
  if (!r.replication_iteration_time_s.empty()) {
    u.iteration_time = uncertainty::combine_with_step(uncertainty::sample_interval(r.replication_iteration_time_s, level), u.step);
    u.mfu = uncertainty::combine_with_step(uncertainty::sample_interval(r.replication_mfu, level), u.step);
  }
  if (s.workload.training.train_tokens.si() > 0)
    u.wall_clock_days = uncertainty::combine_with_step(u.wall_clock_days, u.step);
  else
    u.tokens_trained = uncertainty::combine_with_step(u.tokens_trained, u.step);
  return u;
}

uncertainty::Provenance run_provenance(const RunUncertainty& u, const PipelineResult& r) {
  uncertainty::Provenance p = u.step.provenance;
  p.why = "Monte-Carlo spread over " + std::to_string(r.run.replications.size()) +
          " replications" + (r.replication_iteration_time_s.empty() ? "" : ", each drawing the declared uncertain inputs") +
          "; the step time's model-form error: " + u.step.provenance.why + " (the failure model is not graded yet)";
  return p;
}

RunOutcome run_with_replications(Scenario s, const PipelineOptions& options, double level,
                                 const std::function<void(int)>& before_batch) {
  PipelineOptions opt = options;
  // Declared uncertain inputs: replication i runs on draw i (seeded by run.seed and i).
  if (s.declared_inputs && !opt.replication_scenario)
    opt.replication_scenario = [s](int i) { return uncertainty::drawn_scenario(s, i); };
  const bool autorep = s.run.replications_auto;
  const double precision = s.run.precision;
  if (before_batch) before_batch(s.run.replications);
  PipelineResult r = run_pipeline(s, opt);
  // auto: double the count until the half-width is met. Replication i's streams depend only on
  // (seed, i) (sim/run/rng.hpp), so the result is the same as a fixed run of the final count, and
  // the doubling costs at most twice that run.
  AutoReplications a;
  a.on = autorep;
  a.precision = precision;
  a.ettr_half_width = autorep ? ettr_half_width(r, level) : 0;
  while (autorep && a.ettr_half_width > precision && s.run.replications < RunSpec::kAutoMostReplications) {
    s.run.replications = std::min(2 * s.run.replications, RunSpec::kAutoMostReplications);
    if (before_batch) before_batch(s.run.replications);
    r = run_pipeline(s, opt);
    a.ettr_half_width = ettr_half_width(r, level);
    ++a.batches;
  }
  a.used = s.run.replications;
  return RunOutcome{std::move(s), std::move(r), a};
}

Json run_summary_json(const RunOutcome& o, const RunUncertainty& u, double level) {
  const Scenario& s = o.scenario;
  const PipelineResult& r = o.result;
  Json j = Json::object();
  j["scenario"] = s.file;
  j["description"] = s.description;
  j["seed"] = static_cast<double>(s.run.seed);
  j["replications"] = s.run.replications;
  if (o.autorep.on) {
    j["replications_auto"]["used"] = s.run.replications;
    j["replications_auto"]["ettr_half_width"] = o.autorep.ettr_half_width;
    j["replications_auto"]["precision"] = o.autorep.precision;
    j["replications_auto"]["level"] = level;
    j["replications_auto"]["reached"] = o.autorep.reached();
  }
  Json body = r.report.to_json();
  for (const auto& [k, v] : body.as_object()) j[k] = v;
  // Beside the headline numbers: <key>_interval and one provenance per section (DESIGN.md §5).
  j["step"] = uncertainty::with_intervals(j["step"], {{"iteration_time_s", u.iteration_time}, {"mfu", u.mfu}});
  j["step"]["provenance"] = uncertainty::provenance_json(u.step.provenance);
  j["step"]["parameters"] = uncertainty::parameters_json(u.step);
  j["run"] = uncertainty::with_intervals(
      j["run"], {{"ettr", u.ettr}, {"wall_clock_days", u.wall_clock_days}, {"tokens_trained", u.tokens_trained}});
  j["run"]["provenance"] = uncertainty::provenance_json(run_provenance(u, r));
  if (!r.facility.empty()) {
    j["facility"] = uncertainty::with_intervals(j["facility"], {{"pue_mean", u.pue}});
    Json& eu = j["facility"]["effective_utilization"];
    eu = uncertainty::with_intervals(eu, {{"value", u.effective_utilization}});
    const auto factors = u.waterfall.factors();
    eu["factors"] = uncertainty::with_intervals(eu["factors"], {factors.begin(), factors.end()});
  }
  if (s.declared_inputs) {
    j["uncertain_inputs"]["inputs"] = uncertainty::declared_inputs_json(s);
    j["uncertain_inputs"]["draws"] = s.run.replications;  // replication i on draw i
  }
  return j;
}

}  // namespace fleetsim
