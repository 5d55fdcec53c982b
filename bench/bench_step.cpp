// Evaluations per second of the analytical step model (DESIGN.md §2: microseconds per layout, so
// search and sweeps can use it): Llama 3 405B from the default scenario on 8, 16,384 and
// 131,072 H100, one core; and DeepSeek-V3 on 2,048 H800 (scenarios/deepseek-v3-2048-h800.yaml:
// DualPipe, EP 64, MLA, MTP) with DualPipe and with 1F1B on the same layout. The target is
// >= 10,000 evaluations/s at 16,384 GPUs and on the DeepSeek-V3 scenario.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "sim/config/load.hpp"
#include "sim/step/slowdown.hpp"
#include "sim/step/step_model.hpp"
#include "sim/uncertainty/inputs.hpp"
#include "sim/uncertainty/annotate.hpp"
#include "sim/uncertainty/features.hpp"
#include "sim/uncertainty/residuals.hpp"

using namespace fleetsim;

namespace {

struct Case {
  const char* label;
  std::vector<std::string> sets;
  const char* scenario = "llama3-405b-16k";
};

double evaluations_per_second(const Scenario& s, double seconds, StepResult& last) {
  using clock = std::chrono::steady_clock;
  long n = 0;
  const auto start = clock::now();
  double elapsed = 0;
  StepOptions opt;
  do {
    for (int i = 0; i < 100; ++i) {
      // Alternate two cluster states so no result can be reused between calls.
      opt.compute_slowdown = (n + i) % 2 ? 1.0 : 1.0001;
      last = evaluate_step(s.cluster, s.workload, opt);
    }
    n += 100;
    elapsed = std::chrono::duration<double>(clock::now() - start).count();
  } while (elapsed < seconds);
  return static_cast<double>(n) / elapsed;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const double seconds = argc > 1 ? std::atof(argv[1]) : 1.0;
    const std::string pp = "workload.parallel.pipeline_model_parallel_size=";
    const std::string vpp = "workload.parallel.virtual_pipeline_model_parallel_size=";
    const std::string split16 = "workload.parallel.pipeline_layer_split=[7,8,8,8,8,8,8,8,8,8,8,8,8,8,8,7]";
    const std::vector<Case> cases = {
        {"8 GPUs (TP 8, PP 1, 2,048 microbatches)",
         {"cluster.gpus=8", pp + "1", vpp + "1", "workload.parallel.pipeline_layer_split=[126]"}},
        {"16,384 GPUs (TP 8, PP 16, VPP 8, DP 128)", {}},
        {"16,384 GPUs, 1F1B (VPP 1)", {vpp + "1", split16}},
        {"131,072 GPUs (TP 8, PP 16, VPP 1, DP 1,024)", {"cluster.gpus=131072", vpp + "1", split16}},
        {"DeepSeek-V3, 2,048 H800, DualPipe", {}, "deepseek-v3-2048-h800"},
        {"DeepSeek-V3, 2,048 H800, 1F1B", {"workload.parallel.pipeline_schedule=megatron"}, "deepseek-v3-2048-h800"},
    };
    std::printf("fleetsim step model, analytical tier: Llama 3 405B (default scenario) and DeepSeek-V3, one core\n");
    for (const auto& c : cases) {
      const Scenario s = config::load_scenario(c.scenario, c.sets);
      StepResult r;
      const double rate = evaluations_per_second(s, seconds, r);
      std::printf("  %-42s %10.0f evaluations/s  (%6.1f us each; iteration %.3f s, MFU %.3f)\n", c.label,
                  rate, 1e6 / rate, r.iteration_time.si(), r.mfu);
    }
    // Issue 27: `fleetsim step` with every slowdown process on at 131,072 GPUs must stay < 10 ms:
    // one step evaluation plus the slowdown processes (order statistics, no per-GPU work).
    {
      const Scenario s = config::load_scenario(
          "llama3-405b-16k",
          {"cluster.gpus=131072", vpp + "1", split16, "stragglers.device_speed_sigma=0.02", "stragglers.step_jitter_cv=0.02",
           "stragglers.gc_pause=300 ms", "stragglers.seq_doc_median=2000", "stragglers.seq_doc_sigma=1.5",
           "stragglers.degraded_link_share=1e-5", "stragglers.fail_slow_rate_per_node=0.01 /d",
           "stragglers.fail_slow_policy=rebalance", "stragglers.fail_slow_duration=6 h", "stragglers.fail_slow_kind=network"});
      using clock = std::chrono::steady_clock;
      const auto start = clock::now();
      int n = 0;
      double factor = 0;
      do {
        const StepResult r = evaluate_step(s.cluster, s.workload);
        factor = step::evaluate_slowdown(s.stragglers, s.cluster, s.workload, r).expected_factor;
        ++n;
      } while (std::chrono::duration<double>(clock::now() - start).count() < seconds);
      const double each = std::chrono::duration<double>(clock::now() - start).count() / n;
      std::printf("  %-42s %10.1f us each (step + every slowdown process; target < 10 ms %s; slowdown %.3f)\n",
                  "131,072 GPUs, every slowdown process on", 1e6 * each, each < 0.01 ? "ok" : "SLOW", factor);
    }
    // Issue 25: what the intervals beside the headline numbers cost `fleetsim step`: the model-form
    // term alone (a residual-table lookup) and with the fitted parameters' bootstrap term (one
    // parameter: 2 evaluations; the three A100 parameters: one evaluation per bootstrap draw).
    std::printf("intervals (sim/uncertainty), per prediction:\n");
    const std::pair<const char*, std::vector<std::string>> interval_cases[] = {
        {"llama3-405b-16k", {}}, {"llama3-405b-16k", {"workload.training.precision=fp8"}}, {"selene-a100", {}}};
    for (const auto& [name, sets] : interval_cases) {
      const Scenario s = config::load_scenario(name, sets);
      auto per_call = [&](auto&& f) {
        using clock = std::chrono::steady_clock;
        const auto start = clock::now();
        int n = 0;
        do f(), ++n;
        while (std::chrono::duration<double>(clock::now() - start).count() < seconds);
        return std::chrono::duration<double>(clock::now() - start).count() / n;
      };
      (void)uncertainty::scenario_step_uncertainty(s, 0.8);  // read the tables once
      const double model = per_call([&] {
        (void)uncertainty::step_uncertainty(uncertainty::step_features(s), uncertainty::shipped_step_residuals(), 0.8);
      });
      uncertainty::StepUncertainty u;
      const double both = per_call([&] { u = uncertainty::scenario_step_uncertainty(s, 0.8); });
      std::printf("  %-20s %-34s model-form %8.1f us, with parameter term %9.1f us (+-%.2f%%)\n", name,
                  sets.empty() ? "" : sets.front().c_str(), 1e6 * model, 1e6 * both,
                  100 * (std::exp(u.parameter_half_width) - 1));
    }
    // Issue 25: `fleetsim step` with a declared uncertain input draws it 1000 times (re-building
    // the scenario and re-evaluating the iteration each time); one thread, and the machine's cores.
    {
      const Scenario s = config::load_scenario(
          "llama3-405b-16k", {"cluster.gpu.gemm_efficiency={value: 0.8, range: [0.7, 0.9]}"});
      uncertainty::StepUncertainty u;
      u.level = 0.8;
      const auto eval = [](const Scenario& x) { return evaluate_step(x.cluster, x.workload); };
      for (int threads : {1, static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))}) {
        using clock = std::chrono::steady_clock;
        const auto start = clock::now();
        const auto spread = uncertainty::step_input_spread(s, u, eval, uncertainty::kDefaultInputDraws, threads);
        const double wall = std::chrono::duration<double>(clock::now() - start).count();
        char label[64];
        std::snprintf(label, sizeof label, "1000 draws of gemm_efficiency, %d thread%s", threads, threads == 1 ? "" : "s");
        std::printf("  %-42s %10.3f s wall (%6.1f us a draw; iteration [%.3f, %.3f] s from the input)\n", label, wall,
                    1e6 * wall / spread.draws, spread.iteration_time.lo, spread.iteration_time.hi);
      }
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_step: %s\n", e.what());
    return 2;
  }
}
