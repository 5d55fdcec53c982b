// Grade and interval from a user's software file (user_calibration.hpp).
#include "sim/uncertainty/user_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/uncertainty/features.hpp"

namespace fleetsim::uncertainty {
namespace {

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

constexpr const char* kUserSource = "user measurements in ";

}  // namespace

std::string grade_label(const Provenance& p) {
  const bool user = !p.sources.empty() && p.sources.front().rfind(kUserSource, 0) == 0;
  if (user && p.grade == Grade::Calibrated) return "calibrated (user data)";
  return grade_name(p.grade);
}

double conformal_half_width(std::vector<double> a, double level) {
  const auto k = static_cast<size_t>(std::ceil((static_cast<double>(a.size()) + 1) * level));
  if (a.empty() || k > a.size()) return -1;
  std::sort(a.begin(), a.end());
  return a[k - 1];
}

StepUncertainty user_step_uncertainty(const Scenario& s, const config::SoftwareCalibration& c, double level,
                                      const StepUncertainty& fallback) {
  std::vector<double> abs;
  for (double r : c.held_out_log_residuals) abs.push_back(std::fabs(r));
  const double h = conformal_half_width(abs, level);
  if (h < 0) {
    StepUncertainty u = fallback;
    u.provenance.why += "; the software file " + c.file + " has " + std::to_string(abs.size()) +
                        " held-out residuals, too few for a " + fmt(100 * level) + "% interval of its own";
    return u;
  }
  const StepFeatures f = step_features(s);
  std::vector<std::string> outside;
  if (f.gpu != c.gpu) outside.push_back("new GPU: " + f.gpu + ", calibrated on " + c.gpu);
  if (f.gpus > c.gpus_hi)
    outside.push_back(std::to_string(f.gpus) + " GPUs, " + fmt(static_cast<double>(f.gpus) / c.gpus_hi) +
                      "x the largest measured (" + std::to_string(c.gpus_hi) + ")");
  else if (f.gpus < c.gpus_lo)
    outside.push_back(std::to_string(f.gpus) + " GPUs, below the smallest measured (" + std::to_string(c.gpus_lo) + ")");
  // Model sizes within rounding of the file's range (printed with 6 digits) count as inside.
  if (f.params_b > c.params_hi * (1 + 1e-4) || f.params_b < c.params_lo * (1 - 1e-4))
    outside.push_back("another model size: " + fmt(f.params_b) + "B parameters, measured " + fmt(c.params_lo) + "-" +
                      fmt(c.params_hi) + "B");
  if (std::find(c.precisions.begin(), c.precisions.end(), f.precision) == c.precisions.end())
    outside.push_back("precision " + f.precision + " not measured");
  StepUncertainty u;
  u.level = level;
  u.provenance.sources = {kUserSource + c.file + ": " + std::to_string(c.rows) + " calibration rows, " +
                          c.held_out_method + " held-out error " + fmt(100 * c.held_out_error) + "%"};
  if (outside.empty()) {
    u.provenance.grade = Grade::Calibrated;
    u.provenance.why = "the software file's GPU, GPU count (" + std::to_string(c.gpus_lo) + "-" +
                       std::to_string(c.gpus_hi) + "), model size and precision cover this scenario";
  } else {
    u.provenance.grade = Grade::Extrapolated;
    u.provenance.why = "outside the software file's measured range: ";
    for (size_t i = 0; i < outside.size(); ++i) u.provenance.why += (i ? "; " : "") + outside[i];
  }
  u.model_half_width = h;
  u.half_width = h * widening(u.provenance.grade);
  u.residuals = static_cast<int>(abs.size());
  // The fitted values and their bootstrap ranges, for the record; the held-out residuals already
  // hold the error of the fit, so the term is not added (adds_parameter_term's reasoning).
  for (const auto& p : c.fitted) u.parameters.push_back({"software: " + c.file, p.name, p.si, p.lo, p.hi, c.rows, 0});
  return u;
}

}  // namespace fleetsim::uncertainty
