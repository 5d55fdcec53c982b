// The run model's published cases (research note §7 V1-V3 and the ETTR estimators), shared by
// `fleetsim validate` (through run_validation_cases()), the [validation] tests and the benchmark.
// One source file each: llama3_run.cpp, kokolis.cpp, daly.cpp, ft_hsdp.cpp.
#pragma once

#include <string>
#include <vector>

#include "sim/reproduce/case.hpp"
#include "sim/run/run_model.hpp"

namespace fleetsim::reproduce {

// Llama 3 405B on 16,384 H100 for 54 days with the llama3-h100 profile and recovery parameters
// from public sources (each cited where it is set).
[[nodiscard]] RunInputs llama3_405b_inputs(int replications);

// A Kokolis-style job: `profile` rates, every interruption costs u0 (+ queue q), checkpoints
// every `interval` with a non-blocking write, nothing else (no planned maintenance, no stragglers).
[[nodiscard]] RunInputs meta_model_inputs(const std::string& profile, int gpus, Seconds u0, Seconds queue,
                                          Seconds interval, Seconds duration, int replications);

// Daly's setting: exponential job interrupts of mean M (failures also during restart and dump),
// restart R, synchronous dump delta, a fixed interval, `solve` hours of compute to finish.
[[nodiscard]] RunInputs daly_inputs(Seconds mtti, Seconds interval, Seconds dump, Seconds restart,
                                    Seconds solve, int replications);

struct DalySweep {
  double published_min = 0, closed_form_min = 0, des_optimum_min = 0;
  std::vector<std::pair<double, double>> points;  // (interval min, mean wall-clock h)
};
// Sweeps the interval over [0.5, 2] x Daly's optimum with common random numbers and returns the
// minimum of a quadratic fit of wall-clock against log(interval).
[[nodiscard]] DalySweep daly_sweep(Seconds mtti, double published_min, int replications);

[[nodiscard]] std::vector<ValidationCase> llama3_cases(int replications = 200);
[[nodiscard]] std::vector<ValidationCase> meta_rsc_cases(int replications = 100);
[[nodiscard]] std::vector<ValidationCase> daly_cases(int replications = 400);
[[nodiscard]] std::vector<ValidationCase> ettr_estimator_cases(int replications = 100);
// Kokolis et al. HPCA'25 Sec 5.1 (F35): 512+-GPU job failures 14% -> 4% after lemon retirement
// (kokolis_lemons.cpp states what is fixed, assumed, calibrated and judged).
struct LemonCheck {
  double t_lo_s = 0, t_hi_s = 0, job_s = 0;  // the admissible job-length window and the length used
  double multiplier = 0;                     // lemon multiplier fitted to the before-figure
  double before = 0, after = 0;              // DES shares of 512-GPU jobs that fail
  double lemons_start = 0, lemons_end = 0, retired = 0, retired_lemons = 0, retirement_gpu_hours = 0;  // fleet
};
[[nodiscard]] LemonCheck meta_lemon_check(int replications);
[[nodiscard]] std::vector<ValidationCase> meta_lemon_cases(int replications = 20000);
// V4: full restart vs restart of the failed data-parallel replica at O(100k) GPUs.
[[nodiscard]] std::vector<ValidationCase> ft_hsdp_cases(int replications = 50);

}  // namespace fleetsim::reproduce
