// `fleetsim calibrate [--base SCENARIO] MEASUREMENTS.csv [--trace T.json[.gz]]... [--nccl-tests LOG]...
// -o STACK.yaml [--json]`: a software stack fitted to a user's own measured runs (sim/calibrate):
// which efficiencies the rows identify, their bounded fit, bootstrap ranges, residuals and the
// error on rows the fit did not see, printed before the file is trusted.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "sim/app/command.hpp"
#include "sim/calibrate/fit.hpp"
#include "sim/calibrate/measurements.hpp"
#include "sim/calibrate/kineto.hpp"
#include "sim/calibrate/stack_file.hpp"
#include "sim/calibrate/trace_fit.hpp"
#include "sim/core/cli_guards.hpp"
#include "sim/core/error.hpp"
#include "sim/uncertainty/annotate.hpp"

namespace fleetsim::app {
namespace {

struct CalibrateArgs {
  std::string base;
  std::string measurements;
  std::vector<std::string> traces, nccl_tests;
  std::string out;
  std::string fit;
  int draws = 200;
  unsigned long long seed = 37;
  double level = 0.8;
  bool json = false;
};

std::vector<std::string> split_names(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

void print_text(const calibrate::Measurements& m, const calibrate::Calibration& c, const std::string& out_path,
                double seconds, std::ostream& os) {
  char buf[512];
  os << "fleetsim calibrate: " << m.path << " (" << c.calibration_count << " calibration rows, " << c.judged_count
     << " judged; measured " << calibrate::measured_name(m.metric) << ") on "
     << (m.base.empty() ? std::string("the default scenario") : m.base) << ", GPU "
     << m.rows.front().scenario.cluster.gpu.name << "\n\n";
  std::snprintf(buf, sizeof buf, "Error of iteration time, mean |relative|, %d calibration rows\n", c.calibration_count);
  os << buf;
  std::snprintf(buf, sizeof buf, "  held out (%s: each row predicted by a fit that did not see it)   %.1f%%\n",
                c.cross_validation.c_str(), 100 * c.calibration_held_out);
  os << buf;
  std::snprintf(buf, sizeof buf, "  with the preset                                                   %.1f%%\n",
                100 * c.calibration_preset);
  os << buf;
  std::snprintf(buf, sizeof buf, "  with the fit (in sample)                                          %.1f%%\n",
                100 * c.calibration_fitted);
  os << buf;
  if (c.judged_count > 0) {
    std::snprintf(buf, sizeof buf, "Judged rows (role judged, never fitted), %d rows: preset %.1f%%, fit %.1f%%\n",
                  c.judged_count, 100 * c.judged_preset, 100 * c.judged_fitted);
    os << buf;
  }
  if (c.interval_half_width >= 0) {
    std::snprintf(buf, sizeof buf, "%.0f%% interval of a prediction with this stack: x[%.4f, %.4f] of the time\n",
                  100 * c.level, std::exp(-c.interval_half_width), std::exp(c.interval_half_width));
    os << buf;
  } else {
    std::snprintf(buf, sizeof buf, "%.0f%% interval: too few held-out rows for this level (a prediction with it is graded by the preset's cases)\n",
                  100 * c.level);
    os << buf;
  }
  os << "\nParameters (" << c.fitted_count() << " fitted; the others keep the preset's value)\n";
  for (const auto& f : c.parameters) {
    if (f.status == calibrate::ParameterStatus::Fitted)
      std::snprintf(buf, sizeof buf, "  %-34s %-14s preset %-14s %.0f%% bootstrap [%s, %s]%s\n", f.p.name.c_str(),
                    f.p.with_unit(f.value).c_str(), f.p.with_unit(f.preset).c_str(), 100 * c.level,
                    f.p.with_unit(f.lo).c_str(), f.p.with_unit(f.hi).c_str(), f.at_bound ? "  (on its bound)" : "");
    else
      std::snprintf(buf, sizeof buf, "  %-34s %-14s %s: %s\n", f.p.name.c_str(), f.p.with_unit(f.value).c_str(),
                    calibrate::status_name(f.status), f.why.c_str());
    os << buf;
  }
  if (c.fitted_count() > 0) {
    std::snprintf(buf, sizeof buf, "  condition number of the fitted parameters' Jacobian %.3g; at least %d calibration rows needed\n",
                  c.condition_number, c.min_rows);
    os << buf;
  }
  if (m.rows.size() <= 30) {
    os << "\nRows (iteration time, s)\n  row  role         measured     preset      fitted    held out\n";
    for (size_t i = 0; i < m.rows.size(); ++i) {
      const auto& r = c.rows[i];
      std::snprintf(buf, sizeof buf, "  %3d  %-11s %9.4g  %9.4g %+6.1f%%  %9.4g %+6.1f%%", m.rows[i].number,
                    m.rows[i].judged ? "judged" : "calibration", r.measured_s, r.preset_s, 100 * r.error_preset(),
                    r.fitted_s, 100 * r.error_fitted());
      os << buf;
      if (!m.rows[i].judged) {
        std::snprintf(buf, sizeof buf, "  %9.4g %+6.1f%%", r.held_out_s, 100 * r.error_held_out());
        os << buf;
      }
      os << "\n";
    }
  }
  std::snprintf(buf, sizeof buf, "\nwrote %s (%lld step evaluations, %.2f s)\n", out_path.c_str(), c.evaluations, seconds);
  os << buf;
}

void print_traces(const std::vector<calibrate::KinetoTrace>& traces, const calibrate::TraceGemmFit& tf, const GpuSpec& gpu,
                  std::ostream& os) {
  char buf[512];
  size_t shape = 0;
  for (const auto& t : traces) {
    std::snprintf(buf, sizeof buf,
                  "trace %s (%s): %d GPU kernels, %.1f ms; shaped GEMMs %.1f%%, unmatched %.1f%%, NCCL %.1f ms (one rank)\n",
                  t.file.c_str(), t.device.c_str(), t.kernels, t.gpu_time_us / 1e3, 100 * (1 - t.unmatched_share()),
                  100 * t.unmatched_share(), t.nccl_time_us / 1e3);
    os << buf;
    for (const auto& g : t.gemms) {
      const double model = shape < tf.model_tflops.size() ? tf.model_tflops[shape] : 0;
      ++shape;
      std::snprintf(buf, sizeof buf, "  %-12s B%lld M%lld N%lld K%lld x%d  %8.1f TFLOP/s (%.3f of peak)  model %8.1f  %s\n",
                    g.op.c_str(), g.b, g.m, g.n, g.k, g.count, g.tflops_mean, g.tflops_mean * 1e12 / gpu.peak_bf16.si(),
                    model, g.dtype.c_str());
      os << buf;
    }
  }
  if (tf.shapes > 0) {
    std::snprintf(buf, sizeof buf,
                  "from %d traced 16-bit GEMM shapes: gemm_efficiency %.4f (preset %.4f), gemm_half_efficiency_work %.4g "
                  "GFLOP (preset %.4g); time-weighted |error| of the shapes %.1f%% -> %.1f%%\n\n",
                  tf.shapes, tf.gemm_efficiency, gpu.gemm_efficiency, tf.gemm_half_efficiency_work / 1e9,
                  gpu.gemm_half_efficiency_work.si() / 1e9, 100 * tf.error_preset, 100 * tf.error_fit);
    os << buf;
  }
}

void run_calibrate(const CalibrateArgs& a) {
  guards::output_file(a.out, "-o", "the software file");
  guards::count(a.draws, "--draws", 0, 10000, "bootstrap resamples");
  uncertainty::check_level(a.level, "--level");
  for (const auto& t : a.traces)
    guards::input_file(t, "--trace", "a PyTorch profiler (Kineto) trace, .json or .json.gz", std::uintmax_t{1} << 31);
  for (const auto& t : a.nccl_tests) guards::input_file(t, "--nccl-tests", "an nccl-tests log");
  if (!a.nccl_tests.empty())
    throw ConfigError("", "--nccl-tests", "not read by this build yet: calibrate fits measured step times "
                                          "(MEASUREMENTS.csv) and profiler traces' GEMMs (--trace); nccl-tests logs are "
                                          "the next part of issue 37");
  const auto t0 = std::chrono::steady_clock::now();
  const calibrate::Measurements m = calibrate::read_measurements(a.measurements, a.base);
  calibrate::FitOptions o;
  // Traces first: the GEMM ceiling they measure is then held while the rows fit the rest.
  std::vector<calibrate::KinetoTrace> traces;
  const ClusterSpec& cluster = m.rows.front().scenario.cluster;
  for (const auto& path : a.traces) {
    traces.push_back(calibrate::read_kineto(path));
    calibrate::check_trace_gpu(traces.back(), cluster.gpu);
  }
  calibrate::TraceGemmFit tf;
  if (!traces.empty()) {
    tf = calibrate::fit_trace_gemms(traces, cluster.gpu,
                                    calibrate::for_gpu(calibrate::stack_parameter("gemm_efficiency", "--trace"), cluster.gpu),
                                    calibrate::stack_parameter("gemm_half_efficiency_work", "--trace"));
    if (tf.shapes > 0) o.fixed.emplace_back("gemm_efficiency", tf.gemm_efficiency);
    if (tf.shapes >= 2) o.fixed.emplace_back("gemm_half_efficiency_work", tf.gemm_half_efficiency_work);
  }
  o.fit = split_names(a.fit);
  o.draws = a.draws;
  o.seed = a.seed;
  o.level = a.level;
  const calibrate::Calibration c = calibrate::calibrate(m, o);
  calibrate::StackInputs in{a.traces, a.nccl_tests, a.seed, traces, tf};
  calibrate::write_stack_file(a.out, calibrate::stack_yaml(m, c, in));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (a.json) {
    Json j = calibrate::stack_json(m, c, in);
    j["file"] = a.out;
    std::cout << j.dump() << "\n";
  } else {
    print_traces(traces, tf, cluster.gpu, std::cout);
    print_text(m, c, a.out, seconds, std::cout);
  }
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto a = std::make_shared<CalibrateArgs>();
  auto* cmd = app.add_subcommand("calibrate",
                                 "fit a software stack (the step model's efficiencies) to your own measured runs");
  cmd->add_option("MEASUREMENTS.csv", a->measurements,
                  "one measured run per row: scenario keys as --set takes them, and one of step_time_s, "
                  "tokens_per_s_per_gpu, mfu (optional role: calibration | judged)")
      ->required();
  cmd->add_option("--base", a->base, "the scenario each row overrides (default: the default scenario)");
  cmd->add_option("--trace", a->traces, "a PyTorch profiler trace (.json or .json.gz), repeatable");
  cmd->add_option("--nccl-tests", a->nccl_tests, "an nccl-tests output log, repeatable");
  cmd->add_option("-o", a->out, "the software file to write (YAML)")->required();
  cmd->add_option("--fit", a->fit, "comma-separated parameters to fit (default: every one the rows identify)");
  cmd->add_option("--draws", a->draws, "bootstrap resamples (default 200)");
  cmd->add_option("--seed", a->seed, "seed of the bootstrap resamples (default 37)");
  cmd->add_option("--level", a->level, "level of the bootstrap ranges and the prediction interval (default 0.8)");
  cmd->add_flag("--json", a->json, "print the file's content as JSON");
  cmd->callback([a] { run_calibrate(*a); });
}

}  // namespace fleetsim::app
