// Grade and interval of a step prediction made with a user's software file (`--set
// software=FILE`, written by `fleetsim calibrate`; sim/uncertainty/README.md, "User data"): the
// interval comes from that file's held-out residuals, not from the published cases, and the grade
// says whether the scenario lies inside what the user measured:
//   calibrated (user data) - the same GPU, a GPU count, model size and precision inside the
//                            calibration rows' range;
//   extrapolated           - otherwise, saying why (new GPU, 100x the GPUs, another model size,
//                            an unmeasured precision); the half-width widened as widening() says.
#pragma once

#include <string>
#include <vector>

#include "sim/config/software_file.hpp"
#include "sim/scenario.hpp"
#include "sim/uncertainty/step_interval.hpp"

namespace fleetsim::uncertainty {

// The grade as printed: grade_name, or "calibrated (user data)" for a prediction graded by a user's
// software file inside its measured range (its sources name the file; "extrapolated" outside it
// says so in `why`).
[[nodiscard]] std::string grade_label(const Provenance& p);

// The split-conformal half-width (log T) at `level` of |log residuals|: the ceil((n+1) level)-th
// smallest (Lei et al. 2018; as step_uncertainty), or -1 when that rank exceeds n (too few).
[[nodiscard]] double conformal_half_width(std::vector<double> abs_log_residuals, double level);

// The grade and interval of `s` from its software file's calibration. When the file's residuals
// are too few for `level`, `fallback` (the published cases' grading) is returned with a note.
[[nodiscard]] StepUncertainty user_step_uncertainty(const Scenario& s, const config::SoftwareCalibration& c,
                                                    double level, const StepUncertainty& fallback);

}  // namespace fleetsim::uncertainty
