// Published cases of the run model (research note §7 V1-V3; data/validation/).
#include "sim/run/validation.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <Eigen/Dense>

#include "sim/core/csv.hpp"
#include "sim/core/error.hpp"
#include "sim/core/paths.hpp"
#include "sim/run/checkpoint_policy.hpp"
#include "sim/run/ettr_estimators.hpp"
#include "sim/run/profiles.hpp"

namespace fleetsim::run {
namespace {

using units::days;
using units::hours;
using units::minutes;
using units::seconds;

ValidationCase make_case(std::string source, std::string name, std::string metric, double published,
                         double predicted, double tolerance, bool absolute) {
  ValidationCase c;
  c.source = std::move(source);
  c.case_name = std::move(name);
  c.metric = std::move(metric);
  c.published = published;
  c.predicted = predicted;
  c.error_is_absolute = absolute;
  c.error = absolute ? predicted - published : (predicted - published) / published;
  c.tolerance = tolerance;
  c.pass = std::abs(c.error) <= tolerance;
  return c;
}

std::string normalize(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (std::isalnum(static_cast<unsigned char>(ch))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    else if (!out.empty() && out.back() != '_') out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

struct Table5Row {
  std::string component, category;
  int count = 0;
};

// data/validation/llama3_table5_interruptions.csv: component, category, interruption_count, ...
std::vector<Table5Row> read_table5() {
  const CsvTable t = read_csv(validation_dir() + "/llama3_table5_interruptions.csv");
  t.require_columns({"component", "category", "interruption_count"});
  std::vector<Table5Row> rows;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t.at(i, "component").empty()) continue;
    rows.push_back({t.at(i, "component"), t.at(i, "category"), t.integer(i, "interruption_count")});
  }
  return rows;
}

// Profile component names are the Table 5 rows in snake_case; "Network Switch/Cable" is split
// into network_cable and network_switch.
bool component_in_row(const std::string& component, const std::string& row) {
  const std::string n = normalize(row);
  if (n == "network_switch_cable") return component.rfind("network_", 0) == 0;
  return component == n;
}

}  // namespace

RunInputs llama3_405b_inputs(int replications) {
  RunInputs in;
  in.gpus = 16384;          // Llama 3 §3.3.4: the 54-day snapshot on up to 16K H100
  in.gpus_per_node = 8;     // Grand Teton: 8 GPUs per server (§3.3.1)
  in.gpus_per_leaf = 16;    // 2 servers per rack, one Minipack2 ToR (§3.3.1)
  in.data_parallel_size = 128;  // Table 4, 16,384 GPUs at seq 8,192: TP 8, CP 1, PP 16, DP 128
  in.failures = builtin_profile("llama3-h100");
  RecoverySpec& r = in.recovery;
  r.detect_crash = seconds(30);      // ByteRobust (SOSP'25): detection in 10-30 s [V]
  r.detect_hang = minutes(10);       // NCCL/PyTorch watchdog default 10-30 min [V]
  r.diagnosis = minutes(3);          // MegaScale (NSDI'24): detection + diagnosis < 10 min; C4D tens of s
  r.reschedule_spare = minutes(2);   // research note §2.7: warm spares 1-3 min
  r.reschedule_wait = minutes(30);   // requeue to a cold gang [U] (unused with spares)
  r.init_base = minutes(3);          // research note §2.7: init 1-5 min at 16k GPUs [U]
  r.init_reference_gpus = 16384;
  r.init_scaling_exponent = 0.5;     // [U]
  r.planned_downtime = minutes(5);   // automated maintenance, >= 1 per day (Llama 3 §3.3.4) [U]
  r.policy = RestartPolicy::WarmSpares;
  r.spare_nodes = 64;  // the 16K job ran on a 24K-GPU cluster (Llama 3 footnote): spare capacity
  CheckpointSpec& c = in.checkpoint;
  c.interval_kind = CheckpointIntervalKind::Daly;
  c.write_time = seconds(5);   // async snapshot to host memory: 0.01-0.2 s ideal (§2.3), DCP 6.3 s for 7B [V]
  c.async = true;
  c.storage_bandwidth = BytesPerSecond(2e12);  // Tectonic 2 TB/s sustained (Llama 3 §3.3.1)
  c.load_bandwidth = BytesPerSecond(2e12);
  c.bytes_per_param = 14.0;                    // bf16 + fp32 master + Adam m, v (§2.3)
  in.checkpoint_bytes = Bytes(405e9 * c.bytes_per_param);
  in.tokens_per_iteration = 16.0 * 1024 * 1024;  // 16M-token batches (§3.4.1)
  // ~5.9 s: 6 * 405e9 * 16.8M FLOP / (16,384 x 989 TFLOP/s x 41% MFU, §3.3.2); the ETTR does not
  // depend on it.
  in.iteration_time = [](double slowdown) { return Seconds(5.9 * slowdown); };
  in.run.duration = days(54);
  in.run.replications = replications;
  in.run.seed = 1;
  return in;
}

RunInputs meta_model_inputs(const std::string& profile, int gpus, Seconds u0, Seconds queue,
                            Seconds interval, Seconds duration, int replications) {
  RunInputs in;
  in.gpus = gpus;
  in.gpus_per_node = 8;
  in.gpus_per_leaf = 32;
  in.failures = builtin_profile(profile);
  in.recovery.policy = RestartPolicy::FullRestart;
  in.recovery.reschedule_wait = queue;
  in.recovery.init_base = u0;
  in.recovery.init_scaling_exponent = 0.0;
  in.checkpoint.interval_kind = CheckpointIntervalKind::Fixed;
  in.checkpoint.interval = interval;
  in.checkpoint.async = true;  // non-blocking writes
  in.tokens_per_iteration = 1;
  in.iteration_time = [](double s) { return Seconds(s); };
  in.run.duration = duration;
  in.run.replications = replications;
  in.run.seed = 7;
  return in;
}

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

std::vector<ValidationCase> llama3_cases(int replications) {
  const char* src = "Llama 3 (arXiv:2407.21783) §3.3.4 Table 5";
  const RunResult r = simulate_run(llama3_405b_inputs(replications));
  std::vector<ValidationCase> cases;
  const double unexpected = mean_over_replications(r, [](const ReplicationResult& x) { return x.unexpected; });
  const double planned = mean_over_replications(r, [](const ReplicationResult& x) { return x.planned; });
  // Poisson 95% half-widths: 1.96 sqrt(419) = 40, 1.96 sqrt(47) = 13.
  cases.push_back(make_case(src, "16,384 H100, 54 d", "unexpected interruptions", 419, unexpected,
                            1.96 * std::sqrt(419.0), true));
  cases.push_back(make_case(src, "16,384 H100, 54 d", "planned interruptions", 47, planned,
                            1.96 * std::sqrt(47.0), true));
  // Cause shares: Table 5 counts / 419 (the count column is consistent; the printed 30.1% for
  // Faulty GPU is not, see data/validation/SOURCES.md).
  double total = 0;
  std::map<std::string, double> by_cause;
  for (const auto& x : r.replications)
    for (const auto& [k, v] : x.by_cause) {
      by_cause[k] += v;
      total += v;
    }
  double gpu_share = 0;
  for (const auto& row : read_table5()) {
    double n = 0;
    for (const auto& [k, v] : by_cause)
      if (component_in_row(k, row.component)) n += v;
    if (row.category == "GPU") gpu_share += n / total;
    if (row.count < 15) continue;  // small rows: too few events for a share test
    cases.push_back(make_case(src, row.component, "share of unexpected interruptions",
                              row.count / 419.0, n / total, 0.02, true));
  }
  cases.push_back(make_case(src, "GPU category (six rows)", "share of unexpected interruptions",
                            268.0 / 419.0, gpu_share, 0.05, true));
  ValidationCase e = make_case("Llama 3 (arXiv:2407.21783) §3.3.4", "16,384 H100, 54 d, public recovery parameters",
                               "ETTR (published: > 90%; passes at >= 0.90)", 0.90,
                               mean_over_replications(r, [](const ReplicationResult& x) { return x.ettr; }), 0.10, true);
  e.pass = e.predicted >= 0.90 && e.predicted <= 1.0;
  cases.push_back(e);
  return cases;
}

std::vector<ValidationCase> meta_rsc_cases(int replications) {
  const char* src = "Kokolis et al. HPCA'25 (arXiv:2410.21680), MTTF = 1/(N_nodes r_f)";
  std::vector<ValidationCase> cases;
  for (const auto& [gpus, published] : {std::pair{16384, 1.8}, std::pair{131072, 0.23}}) {
    const std::string name = "meta-rsc1, " + std::to_string(gpus) + " GPUs";
    const Seconds duration = gpus > 20000 ? days(2) : days(14);
    const RunResult r = simulate_run(meta_model_inputs("meta-rsc1", gpus, minutes(5), Seconds(0), minutes(30),
                                                       duration, replications));
    cases.push_back(make_case(src, name, "job MTTI from the profile (h)", published, r.mtti_hours, 0.05, false));
    const double count = mean_over_replications(r, [](const ReplicationResult& x) { return x.unexpected; });
    cases.push_back(make_case(src, name, "job MTTI measured in the simulation (h)", published,
                              duration.si() / 3600.0 / count, 0.05, false));
  }
  return cases;
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

std::vector<ValidationCase> ettr_estimator_cases(int replications) {
  struct Setup {
    const char* name;
    const char* profile;
    int gpus;
    Seconds u0, queue, interval;
    double published;  // the paper's figure where it gives one, else 0
    bool lower_bound;  // the paper states a requirement (ETTR >= published), not a value
  };
  const Setup setups[] = {
      {"16,384 GPUs, meta-rsc1, u0 5 min, dt 5 min", "meta-rsc1", 16384, minutes(5), Seconds(0), minutes(5), 0.93, false},
      {"8,192 GPUs, meta-rsc1, u0 5 min + q 1 min, dt 30 min", "meta-rsc1", 8192, minutes(5), minutes(1), minutes(30), 0.90, false},
      {"100,000 GPUs, meta-rsc2, u0 2 min, dt 2 min", "meta-rsc2", 100000, minutes(2), Seconds(0), minutes(2), 0.90, true},
      {"16,384 GPUs, llama3-h100, u0 10 min, dt 20 min", "llama3-h100", 16384, minutes(10), Seconds(0), minutes(20), 0, false},
  };
  // Grouped by reference: the paper's figures, then the closed form, then the Markov model.
  std::vector<ValidationCase> paper, closed_form, markov_model;
  for (const auto& s : setups) {
    RunInputs in = meta_model_inputs(s.profile, s.gpus, s.u0, s.queue, s.interval, days(30), replications);
    in.failures.planned_rate_per_job = PerSecond(0.0);
    const RunResult r = simulate_run(in);
    const double des = mean_over_replications(r, [](const ReplicationResult& x) { return x.ettr; });
    const double nodes = s.gpus / 8.0;
    const PerSecond per_node(1.0 / (r.mtti_hours * 3600.0) / nodes);
    const double meta = meta_expected_ettr(nodes, per_node, s.u0 + s.queue, s.interval, Seconds(0));
    const double markov = markov_ettr({Seconds(r.mtti_hours * 3600.0), s.interval, Seconds(0), s.u0 + s.queue});
    if (s.published > 0) {
      ValidationCase c = make_case("Kokolis et al. HPCA'25 (arXiv:2410.21680), E[ETTR] examples", s.name,
                                   s.lower_bound ? "ETTR, Meta closed form (paper: >= 0.90)"
                                                 : "ETTR, Meta closed form vs the paper's figure",
                                   s.published, meta, 0.01, true);
      if (s.lower_bound) c.pass = meta >= s.published;
      paper.push_back(c);
    }
    closed_form.push_back(make_case("Kokolis et al. HPCA'25, E[ETTR] = (1 - N r_f (u0 + dt/2)) / (1 + w/dt)",
                                    s.name, "ETTR, simulation vs Meta closed form", meta, des, 0.02, true));
    markov_model.push_back(make_case("CTMC of the job's states (Erlang stages), solved with Eigen", s.name,
                                     "ETTR, simulation vs Markov model", markov, des, 0.01, true));
  }
  std::vector<ValidationCase> cases = paper;
  cases.insert(cases.end(), closed_form.begin(), closed_form.end());
  cases.insert(cases.end(), markov_model.begin(), markov_model.end());
  return cases;
}

std::vector<ValidationCase> ft_hsdp_cases(int replications) {
  // Salpekar et al., arXiv 2602.00277 (abstract): at O(100k) GPUs, fully synchronous training
  // with a 10-min recovery stall reaches ETTR 44%; DP-replica fault tolerance with a 3-min stall
  // and non-blocking catch-up reaches 80%. Job MTTF ~18 min: RSC-1 rates at 98,304 GPUs.
  const char* src = "FT-HSDP (Salpekar et al., arXiv 2602.00277), O(100k) GPUs";
  RunInputs in = llama3_405b_inputs(replications);
  in.gpus = 98304;
  in.data_parallel_size = 96;
  in.failures = builtin_profile("meta-rsc1");
  in.failures.planned_rate_per_job = PerSecond(0.0);
  in.run.duration = days(14);
  in.recovery.spare_nodes = 256;
  // 10-min stall: detection 30 s + diagnosis 3 min + spare swap 2 min + init and load 4.5 min.
  in.recovery.init_base = Seconds(270.0 / std::sqrt(98304.0 / 16384.0)) - Seconds(in.checkpoint_bytes / in.checkpoint.load_bandwidth);
  const RunResult full = simulate_run(in);
  in.recovery.policy = RestartPolicy::ReplicaRestart;  // 3-min stall: detection 30 s + reconfigure 150 s
  const RunResult replica = simulate_run(in);
  std::vector<ValidationCase> cases;
  // The paper's 44% is 1 - 10 min / 18 min: each failure costs a full stall. In the simulation a
  // failure during a recovery restarts it instead of adding a whole stall, so the ETTR is higher.
  cases.push_back(make_case(src, "98,304 GPUs, meta-rsc1, full restart, 10-min stall", "ETTR", 0.44,
                            mean_over_replications(full, [](const ReplicationResult& x) { return x.ettr; }), 0.10, true));
  cases.push_back(make_case(src, "98,304 GPUs, meta-rsc1, replica restart, 3-min stall", "ETTR", 0.80,
                            mean_over_replications(replica, [](const ReplicationResult& x) { return x.ettr; }), 0.05, true));
  return cases;
}

}  // namespace fleetsim::run

namespace fleetsim {

std::vector<ValidationCase> run_validation_cases() {
  std::vector<ValidationCase> all;
  for (auto part : {run::llama3_cases(), run::meta_rsc_cases(), run::daly_cases(), run::ettr_estimator_cases(),
                     run::ft_hsdp_cases()})
    all.insert(all.end(), part.begin(), part.end());
  return all;
}

}  // namespace fleetsim
