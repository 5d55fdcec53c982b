// Llama 3 (arXiv:2407.21783) §3.3.4: interruptions of the 54-day 405B pre-training on 16,384 H100
// (Table 5, data/validation/llama3_table5_interruptions.csv) and its ETTR. The counts and shares are
// calibration (the llama3-h100 profile is Table 5 over 54 days); the ETTR (> 90%) is judged.
#include "sim/reproduce/run_sources.hpp"

#include <cctype>
#include <cmath>
#include <map>

#include "sim/core/csv.hpp"
#include "sim/core/paths.hpp"
#include "sim/run/profiles.hpp"

namespace fleetsim::reproduce {

// The run model's inputs and results are used unqualified in this file.
using namespace fleetsim::run;

namespace {

using units::days;
using units::hours;
using units::minutes;
using units::seconds;

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
  // The llama3-h100 profile's rates are Table 5's counts over 54 days: the counts and shares check
  // that the engine reproduces its calibration, not a prediction.
  for (auto& c : cases) {
    c.role = CaseRole::Calibration;
    c.note = "models/failures/llama3-h100.yaml is Table 5 / 54 days";
  }
  ValidationCase e = make_case("Llama 3 (arXiv:2407.21783) §3.3.4", "16,384 H100, 54 d, public recovery parameters",
                               "ETTR (published: > 90%; passes at >= 0.90)", 0.90,
                               mean_over_replications(r, [](const ReplicationResult& x) { return x.ettr; }), 0.10, true);
  e.pass = e.predicted >= 0.90 && e.predicted <= 1.0;
  cases.push_back(e);
  return cases;
}

}  // namespace fleetsim::reproduce
