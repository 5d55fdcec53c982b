#include "sim/plan/design_run.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/facility/power_model.hpp"
#include "sim/uncertainty/annotate.hpp"
#include "sim/uncertainty/compare.hpp"
#include "sim/uncertainty/inputs.hpp"

namespace fleetsim::plan {
namespace {

// P(days <= deadline): each replication's days with the step model's log error read as normal
// with the interval's central range (sigma = h / z, as `fleetsim search` does: compare.hpp), the
// replications weighted equally (the Monte-Carlo spread of one run's outcome).
double deadline_probability(const std::vector<double>& days, double deadline_days, const uncertainty::StepUncertainty& u) {
  const double sigma = uncertainty::log_sigma(u);
  double p = 0;
  for (double d : days) {
    if (sigma <= 0) p += d <= deadline_days ? 1.0 : 0.0;
    else p += 0.5 * std::erfc(-std::log(deadline_days / d) / (sigma * std::sqrt(2.0)));
  }
  return days.empty() ? 0.0 : p / static_cast<double>(days.size());
}

}  // namespace

SharedStages shared_stages(const Scenario& s) {
  SharedStages out;
  try {
    out.stages = std::make_shared<const PipelineStages>(pipeline_stages(s));
  } catch (const InfeasibleError& e) {
    out.infeasible = e.what();
    return out;
  }
  out.step_uncertainty = uncertainty::scenario_step_uncertainty(s, kIntervalLevel);
  return out;
}

void run_design(const PlanSpec& p, const Scenario& s, const SharedStages* shared, Design& x) {
  if (shared && !shared->stages) {
    x.status = "does not run: " + shared->infeasible;
    return;
  }
  PipelineOptions po;
  po.threads = 1;
  po.record_events = false;  // the plan reads figures only
  // Declared uncertain inputs (a {value, range} in the base scenario): each replication draws
  // its own, as in `fleetsim run`.
  if (s.declared_inputs) po.replication_scenario = [&s](int i) { return uncertainty::drawn_scenario(s, i); };
  PipelineResult r;
  uncertainty::StepUncertainty own_uncertainty;
  try {
    // Unshared: every stage for this design alone (the reference the sharing is tested against).
    r = shared ? run_pipeline_with(s, *shared->stages, po) : run_pipeline(s, po);
    if (!shared) own_uncertainty = uncertainty::scenario_step_uncertainty(s, kIntervalLevel);
  } catch (const InfeasibleError& e) {
    x.status = std::string("does not run: ") + e.what();
    return;
  }
  const StepResult& step = r.step;
  const uncertainty::StepUncertainty& u = shared ? shared->step_uncertainty : own_uncertainty;
  const double tokens_per_s = static_cast<double>(s.workload.training.global_batch_size) * s.workload.model.seq_length /
                              step.iteration_time.si();
  x.iteration_s = step.iteration_time.si();
  x.mfu = step.mfu;
  x.days_lower_bound = p.tokens.si() / tokens_per_s / 86400.0;
  x.grade = uncertainty::grade_name(u.provenance.grade);
  double days = 0, ettr = 0, pue = 0, pue_max = 0, fac_j = 0, co2 = 0, eu = 0, energy_usd = 0, peak_it = 0;
  const double n = static_cast<double>(r.run.replications.size());
  std::vector<double> rep_days;
  for (size_t k = 0; k < r.run.replications.size(); ++k) {
    const auto& rep = r.run.replications[k];
    const auto& f = r.facility[k];
    rep_days.push_back(rep.wall_clock_days);
    days += rep.wall_clock_days / n;
    ettr += rep.ettr / n;
    pue += f.pue_mean / n;
    pue_max = std::max(pue_max, f.pue_max);
    fac_j += f.facility_energy.si() / n;
    co2 += f.co2.si() / n;
    eu += f.effective_utilization() / n;
    energy_usd += f.cost.si() / n;
    peak_it = std::max(peak_it, f.it_power_peak.si());
  }
  x.days = days;
  x.ettr = ettr;
  x.pue = pue;
  x.peak_it_mw = peak_it / 1e6;
  // At the meter: the job's IT peak (every GPU in its compute phase) times the worst PUE of the
  // run (the plant's overhead at that hour's load and weather).
  x.peak_facility_mw = peak_it * pue_max / 1e6;
  x.facility_mwh = fac_j / 3.6e9;
  x.mean_facility_mw = days > 0 ? x.facility_mwh / (days * 24.0) : 0;
  x.co2_t = co2 / 1e3;
  x.effective_utilization = eu;
  CostInputs ci;
  ci.nodes = s.cluster.nodes() + x.spare_nodes;
  ci.gpus = ci.nodes * s.cluster.node.gpus_per_node;
  ci.job_gpus = s.cluster.gpus;
  ci.nics = ci.nodes * s.cluster.node.nics_per_node;
  ci.switch_ports = facility::switch_count(s.cluster.fabric, ci.nics) * s.cluster.fabric.switch_radix;
  ci.design_it_power = Watts(peak_it);
  ci.cooling_kind = cooling_kind_name(s.facility.cooling.kind);
  ci.tokens = p.tokens.si();
  const SystemPrice& price = p.prices.system(x.gpu, x.node);
  // Each replication's own cost (its days and energy on the same cluster and facility).
  std::vector<double> rep_cost;
  for (size_t k = 0; k < r.run.replications.size(); ++k) {
    CostInputs c = ci;
    c.wall_clock = Seconds(r.run.replications[k].wall_clock_days * 86400.0);
    c.energy_cost = r.facility[k].cost;
    rep_cost.push_back(cost_of(c, price, p.prices, p.rental_basis).run_usd);
  }
  ci.wall_clock = Seconds(days * 86400.0);
  ci.energy_cost = Dollars(energy_usd);
  x.cost = cost_of(ci, price, p.prices, p.rental_basis);
  // Intervals (sim/uncertainty/README.md, "Run intervals"): days of a token budget scale with the
  // iteration time, and so does the run's cost (annuity, operations and rental per day of
  // wall-clock; energy per day at the same power): the replications' range combined with the
  // step interval, log half-widths in quadrature.
  const uncertainty::Interval di = uncertainty::combine_with_step(uncertainty::sample_interval(rep_days, kIntervalLevel), u);
  const uncertainty::Interval cu = uncertainty::combine_with_step(uncertainty::sample_interval(rep_cost, kIntervalLevel), u);
  x.interval_level = kIntervalLevel;
  x.days_lo = di.lo, x.days_hi = di.hi, x.cost_lo = cu.lo, x.cost_hi = cu.hi;
  if (p.deadline.si() > 0) x.deadline_probability = deadline_probability(rep_days, p.deadline.si() / 86400.0, u);
  x.evaluated = true;
  x.status = "ok";
  if (p.deadline.si() > 0) x.excess[0] = std::max(0.0, days - p.deadline.si() / 86400.0);
  if (p.facility_power_cap.si() > 0) x.excess[1] = std::max(0.0, x.peak_facility_mw - p.facility_power_cap.si() / 1e6);
  if (p.budget.si() > 0) x.excess[2] = std::max(0.0, x.cost.run_usd - p.budget.si());
}

}  // namespace fleetsim::plan
