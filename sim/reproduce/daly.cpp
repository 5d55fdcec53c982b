// Daly, FGCS 22(3) 2006, Figs. 3-5: the optimal checkpoint interval, closed form and in the
// simulation (a sweep of the interval with common random numbers). Judged.
#include "sim/reproduce/run_sources.hpp"

#include <algorithm>
#include <cmath>

#include <Eigen/Dense>

#include "sim/run/checkpoint_policy.hpp"

namespace fleetsim::reproduce {

// The run model's inputs and results are used unqualified in this file.
using namespace fleetsim::run;

namespace {

using units::days;
using units::hours;
using units::minutes;
using units::seconds;

}  // namespace

RunInputs daly_inputs(Seconds mtti, Seconds interval, Seconds dump, Seconds restart, Seconds solve,
                      int replications) {
  RunInputs in;
  in.gpus = 8;
  in.gpus_per_node = 8;
  FailureComponent job;
  job.name = "interrupt";
  job.category = "Daly";
  job.scope = ComponentScope::Job;
  job.rate = PerSecond(1.0 / mtti.si());
  job.needs_repair = false;
  in.failures.components = {job};
  in.failures.repair_median = hours(1);
  in.recovery.policy = RestartPolicy::FullRestart;
  in.recovery.init_base = restart;
  in.recovery.init_scaling_exponent = 0.0;
  in.checkpoint.interval_kind = CheckpointIntervalKind::Fixed;
  in.checkpoint.interval = interval;
  in.checkpoint.write_time = dump;
  in.checkpoint.async = false;
  in.tokens_per_iteration = 1;
  in.iteration_time = [](double s) { return Seconds(s); };
  in.train_tokens = solve.si();  // one token per second of compute
  in.run.replications = replications;
  in.run.seed = 11;
  return in;
}

DalySweep daly_sweep(Seconds mtti, double published_min, int replications) {
  const Seconds dump = minutes(5), restart = minutes(10), solve = hours(500);  // Daly 2006, Figs. 3-5
  DalySweep s;
  s.published_min = published_min;
  const Seconds opt = daly_interval(dump, mtti);
  s.closed_form_min = opt.si() / 60.0;
  const int n = 9;
  Eigen::MatrixXd a(n, 3);
  Eigen::VectorXd b(n);
  for (int i = 0; i < n; ++i) {
    const double x = std::log(0.5) + i * (std::log(2.0) - std::log(0.5)) / (n - 1);
    const Seconds tau = opt * std::exp(x);
    const RunResult r = simulate_run(daly_inputs(mtti, tau, dump, restart, solve, replications));
    const double wall_h = mean_over_replications(r, [](const ReplicationResult& y) { return y.wall_clock_days * 24.0; });
    s.points.emplace_back(tau.si() / 60.0, wall_h);
    a(i, 0) = 1.0;
    a(i, 1) = x;
    a(i, 2) = x * x;
    b(i) = wall_h;
  }
  const Eigen::Vector3d c = a.colPivHouseholderQr().solve(b);
  s.des_optimum_min = s.closed_form_min * std::exp(-c(1) / (2.0 * c(2)));
  return s;
}

std::vector<ValidationCase> daly_cases(int replications) {
  const char* src = "Daly, FGCS 22(3) 2006, Figs. 3-5 (delta 5 min, R 10 min)";
  std::vector<ValidationCase> cases;
  for (const auto& [mtti, published] :
       {std::pair{hours(24), 117.0}, std::pair{hours(6), 57.0}, std::pair{minutes(15), 9.1}}) {
    const std::string name = "M = " + std::to_string(static_cast<int>(mtti.si() / 60)) + " min";
    // Short M: thousands of interrupts per replication already average the noise out.
    const int reps = std::max(50, static_cast<int>(replications * std::min(1.0, mtti.si() / hours(6).si())));
    const DalySweep s = daly_sweep(mtti, published, reps);
    cases.push_back(make_case(src, name, "optimal interval, closed form (min)", published, s.closed_form_min, 0.5, true));
    cases.push_back(make_case(src, name, "interval minimising wall-clock in the simulation (min)", published,
                              s.des_optimum_min, 0.10, false));
  }
  return cases;
}

}  // namespace fleetsim::reproduce
