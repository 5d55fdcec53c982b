// Speed of the power timeline (issue #29): `fleetsim run scenarios/llama3-405b-16k.yaml --set
// facility.power_timeline=on` must finish in <= 5 s for 16,384 GPUs (one day at 10 ms, 8.64
// million samples per stage class, plus the run-level steps of the whole 54-day run). Timed: the
// whole pipeline (step, 20 run replications, facility, power timeline), the power timeline alone,
// and with every mitigation on.
//
// Usage: bench_power [repeats]
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/peak_memory.hpp"
#include "sim/config/load.hpp"
#include "sim/core/paths.hpp"
#include "sim/pipeline/power_inputs.hpp"
#include "sim/pipeline/run_pipeline.hpp"

using namespace fleetsim;

namespace {

// Wall and CPU seconds (all threads): on a shared machine the CPU time says what the work costs.
struct Timing {
  double wall_s = 0, cpu_s = 0;
};

template <class F>
Timing median_s(int repeats, F&& f) {
  std::vector<double> wall, cpu;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    f();
    cpu.push_back(static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
    wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

void report(const char* name, Timing t, double target_s) {
  std::printf("%-58s median %6.3f s wall, %6.3f s CPU  target %4.1f s %s | peak RSS %.1f MiB\n", name, t.wall_s,
              t.cpu_s, target_s, t.wall_s <= target_s ? "ok  " : "SLOW", bench_util::peak_rss_mib());
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  const std::string path = home_dir() + "/scenarios/llama3-405b-16k.yaml";
  const Scenario s = config::load_scenario(path, {"facility.power_timeline=on"});
  PipelineResult r;
  report("run llama3-405b-16k, power_timeline on (whole pipeline)",
         median_s(repeats, [&] { r = run_pipeline(s, {}); }), 5.0);

  // The power timeline alone, from the same inputs the pipeline gives it.
  const step::IterationTimeline schedule = step::iteration_timeline(s.cluster, s.workload);
  facility::PowerDynamicsInputs in;
  in.cluster = s.cluster;
  in.facility = s.facility;
  in.iteration_period = schedule.result.iteration_time;
  in.stages = stage_activities(schedule, s.facility);
  in.run = job_states(r.run.replications.front());
  in.run_length = Seconds(r.run.replications.front().wall_clock_days * 86400.0);
  in.run_facility_energy = r.facility.front().facility_energy;
  report("power timeline alone: 16 stage classes x 1 d at 10 ms",
         median_s(repeats, [&] { (void)facility::evaluate_power_dynamics(in); }), 5.0);
  auto& pd = in.facility.power;
  pd.smoothing.floor = 0.9;
  pd.smoothing.ramp_up_rate = WattsPerSecond(2000);
  pd.smoothing.ramp_down_rate = WattsPerSecond(2000);
  pd.smoothing.hold_time = Seconds(1);
  pd.storage.capacity = Joules(3.6e9);
  pd.storage.power = Watts(20e6);
  pd.filler.power_level = 0.6;
  report("power timeline alone, every mitigation on",
         median_s(repeats, [&] { (void)facility::evaluate_power_dynamics(in); }), 5.0);
}
