#include "sim/core/workers.hpp"
#include "sim/pipeline/run_pipeline.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <thread>

#include "sim/core/error.hpp"
#include "sim/pipeline/power_inputs.hpp"
#include "sim/pipeline/run_trace.hpp"
#include "sim/pipeline/tier.hpp"
#include "sim/pool/pool_model.hpp"
#include "sim/results/hdf5_writer.hpp"
#include "sim/step/slowdown.hpp"
#include "sim/units/parse.hpp"
#include "sim/workload/parameters.hpp"

namespace fleetsim {

StepResult evaluate_scenario_step(const Scenario& s) {
  StepResult step = evaluate_step_on_tier(s, StepOptions{});
  if (!step.fits_in_memory) throw InfeasibleError(memory_error_message(s, step));
  return step;
}

namespace {

double single_gpu_mfu_of(const StepResult& step) {
  // Single-GPU efficiency: the same model FLOPs if only the compute on the critical path took time.
  const double compute_s = step.breakdown.compute.si();
  return compute_s > 0 ? std::min(1.0, step.mfu * step.iteration_time.si() / compute_s) : step.mfu;
}

// The stages of `s` given its evaluated iteration; `s` is held by `owner` (or outlives the stages
// when `owner` is empty: the point run's own scenario).
PipelineStages stages_of(std::shared_ptr<const Scenario> owner, const StepResult& step) {
  PipelineStages st;
  st.scenario = std::move(owner);
  const Scenario& s = *st.scenario;
  st.step = step;
  st.parameters = parameter_count(s.workload.model);
  st.single_gpu_mfu = single_gpu_mfu_of(step);
  st.slowdown = step::evaluate_slowdown(s.stragglers, s.cluster, s.workload, step);
  // Degraded states (stragglers, fail-slow nodes) re-evaluate the iteration, memoized per state.
  auto cache = std::make_shared<std::map<double, Seconds>>();
  auto mutex = std::make_shared<std::mutex>();
  const Seconds healthy = step.iteration_time;
  st.iteration_time = [cache, mutex, sp = st.scenario, healthy](double slowdown) {
    if (slowdown == 1.0) return healthy;
    std::lock_guard lock(*mutex);
    auto it = cache->find(slowdown);
    if (it != cache->end()) return it->second;
    StepOptions o;
    o.compute_slowdown = slowdown;
    Seconds t = evaluate_step_on_tier(*sp, o).iteration_time;
    (*cache)[slowdown] = t;
    return t;
  };
  st.failure_rate_multiplier = failure_rate_multiplier(s.cluster, s.facility, step.compute_busy_fraction, s.run.duration);
  st.throughput_factor = throughput_factor(s.cluster, s.facility, step.compute_busy_fraction);
  st.hook_integral_cache = std::make_shared<HookIntegralCache>();
  // Twice a token target's failure-free time covers its failures (the facility model evaluates
  // the climate past the series' end).
  const double tokens_per_iteration = static_cast<double>(s.workload.training.global_batch_size) * s.workload.model.seq_length;
  const double horizon = s.workload.training.train_tokens.si() > 0 && tokens_per_iteration > 0
                             ? 2.0 * s.workload.training.train_tokens.si() / tokens_per_iteration * step.iteration_time.si()
                             : s.run.duration.si();
  st.outdoor = outdoor_series(s.facility, Seconds(std::min(horizon, 20 * 365 * 86400.0)));
  return st;
}

// A shared_ptr that does not own `s` (the caller keeps it alive for the stages' lifetime).
std::shared_ptr<const Scenario> borrowed(const Scenario& s) { return std::shared_ptr<const Scenario>(std::shared_ptr<void>(), &s); }

// The run model's inputs for a scenario and its stages (the point run, and each replication that
// draws its own declared inputs).
RunInputs make_run_inputs(const Scenario& s, const PipelineStages& st) {
  RunInputs in;
  in.gpus = s.cluster.gpus;
  in.gpus_per_node = s.cluster.node.gpus_per_node;
  in.gpus_per_leaf = s.cluster.fabric.gpus_per_leaf;
  in.data_parallel_size = s.workload.parallel.data_parallel_size;
  in.nics_per_node = s.cluster.node.nics_per_node;
  in.failures = s.failures;
  in.recovery = s.recovery;
  in.checkpoint = s.checkpoint;
  in.stragglers = s.stragglers;
  in.run = s.run;
  in.checkpoint_bytes = Bytes(st.parameters * s.checkpoint.bytes_per_param);
  in.tokens_per_iteration = static_cast<double>(s.workload.training.global_batch_size) * s.workload.model.seq_length;
  in.train_tokens = s.workload.training.train_tokens.si();
  in.iteration_time = st.iteration_time;
  // Slowdown processes (sim/step/slowdown.hpp): compute variation re-times the step through
  // iteration_time (run::straggler_slowdown); the others come as iteration-time factors.
  const step::SlowdownResult& slowdown = st.slowdown;
  const double T0 = st.step.iteration_time.si();
  const double extra_s = slowdown.cause("gc_pauses") + slowdown.cause("sequence_length") + slowdown.cause("degraded_links");
  in.straggler_iteration_factor = T0 > 0 ? 1.0 + extra_s / T0 : 1.0;
  if (s.stragglers.fail_slow_kind == FailSlowKind::Network) {
    in.fail_slow_factor = slowdown.fail_slow_factor;
    in.fail_slow_rebalanced_factor = slowdown.fail_slow_rebalanced_factor;
  }
  in.failure_rate_multiplier = st.failure_rate_multiplier;
  in.throughput_factor = st.throughput_factor;
  in.hook_integral_cache = st.hook_integral_cache;
  return in;
}

// What the facility model needs from a replication that ran on its own drawn scenario.
struct DrawnReplication {
  ClusterSpec cluster;
  FacilitySpec facility;
  double mfu = 0, single_gpu_mfu = 0, compute_busy_fraction = 0;
  double healthy_s = 0, run_iteration_time_s = 0;  // the steady straggler efficiency is their ratio
  bool set = false;
};

// Replication i of n on scenario `si` (its declared inputs drawn): its own iteration and run
// inputs, replication i's random streams (the share {i, n} computes exactly replication i, so
// the failure draws are those of the same replication without declared inputs). With `rep` null
// only the facility's part is computed (a replication another MPI rank ran).
DrawnReplication run_drawn(const Scenario& si, int i, int n, bool record_timeline, ReplicationResult* rep) {
  DrawnReplication d;
  const StepResult step = [&] {
    try {
      return evaluate_scenario_step(si);
    } catch (const InfeasibleError& e) {
      throw InfeasibleError("replication " + std::to_string(i) + " drew declared uncertain inputs that do not fit: " +
                            e.what() + " (narrow their ranges)");
    }
  }();
  const PipelineStages st = stages_of(borrowed(si), step);
  RunInputs in = make_run_inputs(si, st);
  in.run.replications = n;
  in.record_timeline = record_timeline && i == 0;
  if (rep) {
    RunResult r = simulate_run(in, 1, {}, ReplicationShare{i, n});
    *rep = std::move(r.replications[static_cast<size_t>(i)]);
    d.run_iteration_time_s = r.iteration_time_s;
  } else {
    d.run_iteration_time_s = summarize_run(in).iteration_time_s;
  }
  d.cluster = si.cluster;
  d.facility = si.facility;
  d.mfu = step.mfu;
  d.single_gpu_mfu = single_gpu_mfu_of(step);
  d.compute_busy_fraction = step.compute_busy_fraction;
  d.healthy_s = step.iteration_time.si();
  d.set = true;
  return d;
}

// The replications of this process (options.share), each on its own drawn scenario, on threads
// when the tier allows (the analytical step model is pure; SimGrid runs one at a time).
std::vector<DrawnReplication> run_drawn_replications(const Scenario& s, const PipelineOptions& options,
                                                     bool record_timeline, RunResult& run) {
  const int n = s.run.replications;
  std::vector<DrawnReplication> drawn(static_cast<size_t>(n));
  std::vector<int> mine;
  for (int i = options.share.part; i < n; i += std::max(1, options.share.parts)) mine.push_back(i);
  int threads = options.threads > 0 ? options.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (s.tier != StepTier::Analytical) threads = 1;
  threads = std::max(1, std::min(threads, static_cast<int>(mine.size())));
  std::atomic<size_t> next{0};
  std::mutex m;
  int done = 0;
  std::exception_ptr error;
  auto worker = [&] {
    try {
      for (size_t k = next++; k < mine.size(); k = next++) {
        const int i = mine[k];
        const Scenario si = options.replication_scenario(i);
        drawn[static_cast<size_t>(i)] = run_drawn(si, i, n, record_timeline, &run.replications[static_cast<size_t>(i)]);
        if (options.progress) {
          std::lock_guard lock(m);
          options.progress(++done, static_cast<int>(mine.size()));
        }
      }
    } catch (...) {
      std::lock_guard lock(m);
      if (!error) error = std::current_exception();
      next = mine.size();
    }
  };
  core::run_workers(threads, worker);
  if (error) std::rethrow_exception(error);
  return drawn;
}

}  // namespace

PipelineStages pipeline_stages(const Scenario& s) {
  return stages_of(std::make_shared<const Scenario>(s), evaluate_scenario_step(s));
}

PipelineResult run_pipeline(const Scenario& s, const PipelineOptions& options) {
  return run_pipeline_with(s, stages_of(borrowed(s), evaluate_scenario_step(s)), options);
}

PipelineResult run_pipeline_with(const Scenario& s, const PipelineStages& stages, const PipelineOptions& options) {
  PipelineResult out;
  out.step = stages.step;
  out.parameters = stages.parameters;
  out.single_gpu_mfu = stages.single_gpu_mfu;

  const step::SlowdownResult& slowdown = stages.slowdown;
  const double T0 = out.step.iteration_time.si();
  const double extra_s = slowdown.cause("gc_pauses") + slowdown.cause("sequence_length") + slowdown.cause("degraded_links");
  if (s.facility.power.timeline && !(s.facility.power.resolution.si() <= T0 / 2))  // issue 40; Nyquist: 2 samples
    throw ConfigError(s.file, "facility.power_dynamics.resolution",
                      units::format(s.facility.power.resolution) + " does not resolve one iteration (" +
                          units::format(out.step.iteration_time) + "): the timeline samples the phases inside it; "
                          "valid: at most half an iteration, " + units::format(Seconds(T0 / 2)) + " (default 10 ms)");
  RunInputs in = make_run_inputs(s, stages);
  // The power timeline (issue #29) reads replication 0's states.
  in.record_timeline = options.record_timeline || s.facility.power.timeline;
  in.record_events = options.record_events;
  // Declared uncertain inputs (issue 25): each replication runs on its own drawn scenario; the
  // run's summary figures (MTTI, checkpoint plan) and the step headline stay the point values.
  std::vector<DrawnReplication> drawn;
  if (options.replication_scenario) {
    out.run = summarize_run(in);
    out.run.replications.resize(static_cast<size_t>(s.run.replications));
    drawn = run_drawn_replications(s, options, in.record_timeline, out.run);
  } else {
    out.run = simulate_run(in, options.threads, options.progress, options.share);
  }
  if (options.gather && !options.gather(out.run)) return out;
  for (size_t i = 0; i < drawn.size(); ++i)  // replications other MPI ranks ran
    if (!drawn[i].set) drawn[i] = run_drawn(options.replication_scenario(static_cast<int>(i)), static_cast<int>(i),
                                            s.run.replications, false, nullptr);
  for (const auto& d : drawn) {
    out.replication_iteration_time_s.push_back(d.healthy_s);
    out.replication_mfu.push_back(d.mfu);
  }

  // The pool factor: simulated when the scenario has a pool: section (the job is one of the
  // pool's jobs, sim/pool), else the constant facility.resource_utilization.
  FacilitySpec facility = s.facility;
  pool::PoolResult pool_result;
  if (s.pool.enabled) {
    pool_result = pool::simulate_pool(s, options.threads);
    facility.resource_utilization = std::clamp(pool_result.allocation_share().mean, 1e-6, 1.0);
    out.pool_simulated = true;
  }

  // The stragglers' share of parallel scaling (waterfall.hpp): the steady slowdown of the run's
  // healthy iteration, and per replication the throughput lost to fail-slow hosts.
  const double steady_eff = out.run.iteration_time_s > 0 ? std::min(1.0, T0 / out.run.iteration_time_s) : 1.0;
  auto fail_slow_eff = [](const ReplicationResult& rep) {
    return rep.productive_hours > 0 ? std::clamp(1.0 - rep.fail_slow_lost_hours / rep.productive_hours, 1e-6, 1.0) : 1.0;
  };
  for (size_t i = 0; i < out.run.replications.size(); ++i) {
    const ReplicationResult& rep = out.run.replications[i];
    FacilityInputs fi;
    fi.straggler_efficiency = steady_eff * fail_slow_eff(rep);
    fi.cluster = s.cluster;
    fi.facility = facility;
    fi.mfu = out.step.mfu;
    fi.single_gpu_mfu = out.single_gpu_mfu;
    fi.compute_busy_fraction = out.step.compute_busy_fraction;
    fi.outdoor = stages.outdoor;
    if (i < drawn.size()) {  // the replication's own drawn scenario and iteration
      const DrawnReplication& d = drawn[i];
      const double eff = d.run_iteration_time_s > 0 ? std::min(1.0, d.healthy_s / d.run_iteration_time_s) : 1.0;
      fi.straggler_efficiency = eff * fail_slow_eff(rep);
      fi.cluster = d.cluster;
      fi.facility = d.facility;
      fi.outdoor = nullptr;  // its own drawn site
      if (out.pool_simulated) fi.facility.resource_utilization = facility.resource_utilization;
      fi.mfu = d.mfu;
      fi.single_gpu_mfu = d.single_gpu_mfu;
      fi.compute_busy_fraction = d.compute_busy_fraction;
    }
    fi.wall_clock = Seconds(rep.wall_clock_days * 86400.0);
    fi.productive_time = Seconds(rep.productive_hours * 3600.0);
    fi.busy_time = Seconds(rep.compute_hours * 3600.0);
    fi.tokens = Tokens(rep.tokens_trained);
    out.facility.push_back(evaluate_facility(fi));
  }

  if (s.facility.power.timeline && !out.run.replications.empty()) {
    const step::IterationTimeline schedule = step::iteration_timeline(s.cluster, s.workload);
    const ReplicationResult& rep0 = out.run.replications.front();
    facility::PowerDynamicsInputs pin;
    pin.cluster = s.cluster;
    pin.facility = facility;
    pin.iteration_period = schedule.result.iteration_time;
    pin.stages = stage_activities(schedule, facility);
    pin.run = job_states(rep0);
    pin.run_length = Seconds(rep0.wall_clock_days * 86400.0);
    if (!(facility.power.window_start < pin.run_length))  // a token target's run length is known only now
      throw ConfigError(s.file, "facility.power_dynamics.window_start",
                        units::format(facility.power.window_start) + " is at or past the end of replication 0 (" +
                            units::format(pin.run_length) + "); valid: 0 s to below " + units::format(pin.run_length));
    pin.run_facility_energy = out.facility.front().facility_energy;
    out.power = facility::evaluate_power_dynamics(pin);
  }

  out.report.set_prefix("step.");
  add_step_metrics(out.step, out.report);
  add_slowdown_metrics(slowdown, out.report);
  out.report.set_prefix("run.");
  add_run_metrics(out.run, out.report);
  out.report.set_prefix("facility.");
  add_facility_metrics(out.facility, out.report);
  {
    // The stragglers loss by cause, split in proportion to each cause's share of -ln(efficiency):
    // compute variation from the run's re-timed step, GC / sequence / links from their seconds,
    // fail_slow from the replication's lost throughput.
    const double f_var = T0 > 0 ? out.run.iteration_time_s / in.straggler_iteration_factor / T0 : 1.0;
    const char* names[] = {"compute_variation", "gc_pauses", "sequence_length", "degraded_links", "fail_slow"};
    std::map<std::string, std::vector<double>> by_cause;
    for (size_t i = 0; i < out.facility.size(); ++i) {
      const double total = out.facility[i].waterfall.stragglers.gpu_hours;
      const double ln_extra = std::log(in.straggler_iteration_factor);
      double w[5] = {std::log(std::max(1.0, f_var)), 0, 0, 0, -std::log(fail_slow_eff(out.run.replications[i]))};
      for (int k = 1; k <= 3; ++k) w[k] = extra_s > 0 ? ln_extra * slowdown.cause(names[k]) / extra_s : 0.0;
      double sum = 0;
      for (double x : w) sum += x;
      for (int k = 0; k < 5; ++k) by_cause[names[k]].push_back(sum > 0 ? total * w[k] / sum : 0.0);
    }
    for (const char* n : names) out.report.add(std::string("effective_utilization.loss_gpu_hours.stragglers_causes.") + n, summarize(by_cause[n]));
  }
  if (out.power) add_power_dynamics_metrics(*out.power, out.report);
  out.report.add("resource_utilization_source", std::string(out.pool_simulated ? "pool simulation (pool:)" : "facility.resource_utilization"));
  if (out.pool_simulated) {
    out.report.set_prefix("pool.");
    pool::add_pool_metrics(pool_result, out.report);
  }
  out.report.set_prefix("");
  return out;
}

void write_results_file(const std::string& path, const Scenario& s, const PipelineResult& r,
                        const std::string& command, const std::function<void(ResultsFile&)>& annotate) {
  ResultsFile f(path);
  f.write_meta({s.file, s.resolved_yaml, s.run.seed, s.run.replications, command});
  f.write_metrics(r.report);

  std::vector<double> ettr, days, tokens, unexpected, planned, productive, pue, it_mwh, fac_mwh, eu;
  std::map<std::string, std::vector<double>> lost;
  for (size_t i = 0; i < r.run.replications.size(); ++i) {
    const auto& rep = r.run.replications[i];
    ettr.push_back(rep.ettr);
    days.push_back(rep.wall_clock_days);
    tokens.push_back(rep.tokens_trained);
    unexpected.push_back(rep.unexpected);
    planned.push_back(rep.planned);
    productive.push_back(rep.productive_hours);
    for (const auto& [k, v] : rep.lost_hours) lost[k].resize(r.run.replications.size(), 0.0), lost[k][i] = v;
    const auto& fr = r.facility[i];
    pue.push_back(fr.pue_mean);
    it_mwh.push_back(fr.it_energy.si() / 3.6e9);
    fac_mwh.push_back(fr.facility_energy.si() / 3.6e9);
    eu.push_back(fr.effective_utilization());
  }
  std::vector<Column> reps = {
      {"ettr", "1", "effective training time ratio", ettr},
      {"wall_clock_days", "d", "simulated wall-clock", days},
      {"tokens_trained", "tokens", "tokens trained", tokens},
      {"unexpected", "count", "unexpected interruptions", unexpected},
      {"planned", "count", "planned interruptions", planned},
      {"productive_hours", "h", "productive training time", productive},
      {"pue_mean", "1", "energy-weighted PUE", pue},
      {"it_energy_mwh", "MWh", "IT energy", it_mwh},
      {"facility_energy_mwh", "MWh", "facility energy", fac_mwh},
      {"effective_utilization", "1", "product of the five factors", eu},
  };
  for (auto& [k, v] : lost) reps.push_back({"lost_hours_" + k, "h", "wall-clock lost to " + k, v});
  f.write_table("replications", reps, "one row per Monte-Carlo replication");

  if (!r.run.replications.empty()) {
    std::vector<double> t, dur;
    std::vector<std::string> kind, cause;
    for (const auto& e : r.run.replications.front().events) {
      t.push_back(e.time.si());
      kind.push_back(to_string(e.kind));
      cause.push_back(e.cause);
      dur.push_back(e.duration.si());
    }
    f.write_table("events",
                  {{"time_s", "s", "time since the run started", t},
                   {"kind", "", "failure, checkpoint, restart, planned, ...", kind},
                   {"cause", "", "component or reason", cause},
                   {"duration_s", "s", "outage or stall it caused", dur}},
                  "event log of replication 0");
  }
  if (!r.facility.empty()) {
    std::vector<Column> cols;
    for (const auto& ts : r.facility.front().series) cols.push_back({ts.name, ts.unit, ts.description, ts.values});
    f.write_table("timeseries", cols, "facility time series of replication 0");
  }
  write_iteration_schedule(s, f);  // the report's Gantt chart (run_trace.hpp)
  if (r.power) write_power_tables(*r.power, f);  // /power/... (run_trace.hpp)
  if (annotate) annotate(f);
  f.commit();
}

}  // namespace fleetsim
