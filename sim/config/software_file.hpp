// A software file written by `fleetsim calibrate` (sim/calibrate/README.md, "The stack file"),
// read back for `--set software=FILE`: its fitted parameters become overrides of the GPU, node and
// fabric fields they replace, and what it was fitted on (GPU, measured range, held-out residuals)
// travels with the scenario so that a prediction made with it is graded `calibrated (user data)`
// inside that range and `extrapolated` outside (sim/uncertainty/user_calibration.hpp).
//
// Interim form until the scenario's own `software:` key (issue 37 part 1, models/software/) lands:
// only `--set software=FILE` is read, and it is expanded here, before the other overrides apply.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/scenario.hpp"

namespace fleetsim::config {

struct SoftwareCalibration {
  std::string file;
  std::string gpu;                      // the GPU preset it was calibrated on
  int gpus_lo = 0, gpus_hi = 0;         // GPU counts of the calibration rows
  double params_lo = 0, params_hi = 0;  // model parameters (billions) of the calibration rows
  std::vector<std::string> precisions;  // bf16 | fp16 | fp8 of the calibration rows
  std::vector<double> held_out_log_residuals;  // log(T_pred / T_measured), each row held out of its fit
  int rows = 0;                         // calibration rows
  double held_out_error = 0;            // their mean |relative error|
  std::string held_out_method;          // leave-one-out | 5-fold
  struct Fitted {
    std::string name, key, value;       // preset key, scenario key, value with its unit
    double si = 0, lo = 0, hi = 0;      // value and bootstrap range in SI units
  };
  std::vector<Fitted> fitted;
};

// Replaces each `software=FILE` in `sets` by the file's fitted parameters as `key=value`
// overrides, placed after every other override (so a `cluster.gpu=` preset change does not wipe
// them) except where the command line sets the same key itself (the explicit key wins). Returns
// the file's calibration, or null when no `software=` is given. Throws ConfigError naming the file
// and key for a missing, unreadable or malformed file, or for two `software=` overrides.
[[nodiscard]] std::shared_ptr<const SoftwareCalibration> expand_software_sets(std::vector<std::string>& sets);

// The software file a scenario was loaded with (`--set software=FILE`), or null. Interim, until the
// scenario's own `software:` key carries it: load_scenario records it under the scenario's resolved
// document (which holds the file's fitted values), so a scenario is found by its resolved text; the
// record keeps the last 4,096 such scenarios (a sweep reloads each point, and finds it again).
void remember_software(const Scenario& s, std::shared_ptr<const SoftwareCalibration> c);
[[nodiscard]] std::shared_ptr<const SoftwareCalibration> software_of(const Scenario& s);

}  // namespace fleetsim::config
