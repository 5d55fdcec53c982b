// Provenance grade and model-form interval of a step prediction (step_interval.hpp).
#include "sim/uncertainty/step_interval.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <set>
#include <sstream>
#include <stdexcept>

namespace fleetsim::uncertainty {
namespace {

// "64-1024 GPUs" (counts whole: precision 6 keeps 16384 from printing as 1.638e+04), "8.54-406B".
std::string fmt_range(double lo, double hi, const char* unit, int precision = 6) {
  std::ostringstream os;
  os.precision(precision);
  os << lo << "-" << hi << unit;
  return os.str();
}

}  // namespace

const char* grade_name(Grade g) {
  switch (g) {
    case Grade::Calibrated: return "calibrated";
    case Grade::Transferred: return "transferred";
    case Grade::Extrapolated: return "extrapolated";
    case Grade::Uncalibrated: return "uncalibrated";
  }
  return "uncalibrated";
}

double widening(Grade g) {
  switch (g) {
    case Grade::Calibrated: return 1.0;
    case Grade::Transferred:
    case Grade::Extrapolated: return 1.5;
    case Grade::Uncalibrated: return 2.0;
  }
  return 2.0;
}

double StepUncertainty::time_lo() const { return std::exp(-half_width); }
double StepUncertainty::time_hi() const { return std::exp(half_width); }
bool StepUncertainty::covers(double log_ratio) const { return std::fabs(log_ratio) <= half_width; }

StepUncertainty step_uncertainty(const StepFeatures& f, const std::vector<StepResidual>& rows, double level,
                                 const std::string& exclude_source) {
  if (!(level > 0 && level < 1)) throw std::invalid_argument("level must lie in (0, 1)");
  std::vector<const StepResidual*> pool, gpu, group;
  for (const auto& r : rows) {
    if (!exclude_source.empty() && r.source == exclude_source) continue;
    pool.push_back(&r);
    if (r.features.gpu != f.gpu) continue;
    gpu.push_back(&r);
    if (r.features.precision == f.precision && r.features.regime == f.regime) group.push_back(&r);
  }
  StepUncertainty u;
  u.level = level;
  const std::string what = f.gpu + " " + f.precision + " " + f.regime;
  std::vector<const StepResidual*> used;
  std::ostringstream why;
  if (static_cast<int>(group.size()) >= kMinGroup) {
    int gmin = group.front()->features.gpus, gmax = gmin;
    double pmin = group.front()->features.params_b, pmax = pmin;
    for (const auto* r : group) {
      gmin = std::min(gmin, r->features.gpus), gmax = std::max(gmax, r->features.gpus);
      pmin = std::min(pmin, r->features.params_b), pmax = std::max(pmax, r->features.params_b);
    }
    const bool gpus_in = f.gpus >= gmin && f.gpus <= gmax;
    const bool params_in = f.params_b >= pmin * (1 - 1e-9) && f.params_b <= pmax * (1 + 1e-9);
    u.provenance.grade = gpus_in && params_in ? Grade::Calibrated : Grade::Extrapolated;
    why << group.size() << " judged " << what << " cases";
    if (gpus_in && params_in)
      why << " cover " << fmt_range(gmin, gmax, " GPUs") << " and " << fmt_range(pmin, pmax, "B parameters", 4);
    else
      why << " cover " << fmt_range(gmin, gmax, " GPUs") << " and " << fmt_range(pmin, pmax, "B parameters", 4)
          << "; this scenario has " << f.gpus << " GPUs and " << std::setprecision(4) << f.params_b
          << "B parameters (outside)";
    used = group;
  } else if (!gpu.empty()) {
    u.provenance.grade = Grade::Transferred;
    why << (group.empty() ? "no" : "only " + std::to_string(group.size())) << " judged " << what << " case"
        << (group.size() == 1 ? "" : "s");
    if (static_cast<int>(gpu.size()) >= kMinGroup) {
      why << "; transferred from " << gpu.size() << " judged " << f.gpu << " cases in other precisions or regimes";
      used = gpu;
    } else {
      why << "; transferred from all " << pool.size() << " judged step cases";
      used = pool;
    }
  } else {
    u.provenance.grade = Grade::Uncalibrated;
    why << "no judged case on " << f.gpu << "; residuals of all " << pool.size() << " judged step cases, widened";
    used = pool;
  }
  if (used.empty()) {  // no judged data at all (an empty table): no interval can be stated honestly
    u.provenance.grade = Grade::Uncalibrated;
    u.provenance.why = "no judged step cases";
    u.half_width = INFINITY;
    return u;
  }
  // Score = |log(T_true / T_pred)|, the model itself as the predictor (Lei et al. 2018 §2.2, the
  // absolute residual). No bias correction is fitted on the residuals: a centre taken from other
  // sources carries their stack's offset to this one (README, "Why the interval is symmetric").
  std::vector<double> score;
  std::set<std::string> sources;
  for (const auto* r : used) score.push_back(std::fabs(r->log_ratio)), sources.insert(r->source);
  std::sort(score.begin(), score.end());
  const size_t n = score.size();
  // Split conformal rank (Lei et al. 2018, eq. 2): the ceil((n+1) level)-th smallest score; with
  // fewer residuals than that rank needs, the largest (the interval's level is then not guaranteed).
  const size_t k = static_cast<size_t>(std::ceil((static_cast<double>(n) + 1) * level));
  const double q = score[std::min(k, n) - 1];
  u.half_width = q * widening(u.provenance.grade);
  u.model_half_width = u.half_width;
  u.residuals = static_cast<int>(n);
  u.provenance.sources.assign(sources.begin(), sources.end());
  u.provenance.why = why.str();
  return u;
}

bool adds_parameter_term(Grade g) { return g != Grade::Calibrated; }

StepUncertainty add_parameter_term(StepUncertainty u, double h_param, std::vector<ParameterSpread> parameters) {
  u.parameter_half_width = h_param;
  u.parameters = std::move(parameters);
  u.parameter_term_added = h_param > 0 && adds_parameter_term(u.provenance.grade) && std::isfinite(u.half_width);
  if (u.parameter_term_added) u.half_width = std::hypot(u.half_width, h_param);
  return u;
}

}  // namespace fleetsim::uncertainty
