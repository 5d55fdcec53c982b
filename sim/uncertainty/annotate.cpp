// Intervals and provenance beside the headline numbers (annotate.hpp).
#include "sim/uncertainty/annotate.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/error.hpp"
#include "sim/uncertainty/parameter_bootstrap.hpp"
#include "sim/uncertainty/residuals.hpp"
#include "sim/uncertainty/user_calibration.hpp"

namespace fleetsim::uncertainty {

void check_level(double level, const std::string& key) {
  if (!(level > 0 && level < 1))
    throw ConfigError("", key, "the interval level must lie strictly between 0 and 1 (e.g. 0.8 for 80%)");
}

StepUncertainty scenario_step_uncertainty(const Scenario& s, double level) {
  const StepUncertainty u = step_uncertainty(step_features(s), shipped_step_residuals(), level);
  ParameterTerm p = parameter_term(s.cluster, s.workload, shipped_parameter_draws(), level);
  StepUncertainty shipped = add_parameter_term(u, p.half_width, std::move(p.parameters));
  // A user's software file grades the prediction by its own held-out residuals (user_calibration.hpp).
  if (const auto software = config::software_of(s)) return user_step_uncertainty(s, *software, level, shipped);
  return shipped;
}

Interval time_interval(double predicted, const StepUncertainty& u) {
  return {predicted * u.time_lo(), predicted * u.time_hi(), u.level};
}

Interval rate_interval(double predicted, const StepUncertainty& u) {
  return {predicted / u.time_hi(), predicted / u.time_lo(), u.level};
}

Interval sample_interval(std::vector<double> samples, double level) {
  Interval out;
  out.level = level;
  if (samples.empty()) return out;
  std::sort(samples.begin(), samples.end());
  auto quantile = [&](double q) {
    const double pos = q * static_cast<double>(samples.size() - 1);
    const size_t lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(lo + 1, samples.size() - 1);
    return samples[lo] + (pos - static_cast<double>(lo)) * (samples[hi] - samples[lo]);
  };
  out.lo = quantile((1 - level) / 2);
  out.hi = quantile((1 + level) / 2);
  return out;
}

Interval combine_with_step(const Interval& mc, const StepUncertainty& u) {
  if (!(mc.lo > 0 && mc.hi > 0)) return mc;
  const double mid = std::sqrt(mc.lo * mc.hi);
  const double h_mc = 0.5 * std::log(mc.hi / mc.lo);
  const double h = std::hypot(h_mc, u.half_width);
  return {mid * std::exp(-h), mid * std::exp(h), mc.level};
}

Json interval_json(const Interval& i) {
  Json j = Json::object();
  j["lo"] = i.lo;
  j["hi"] = i.hi;
  j["level"] = i.level;
  return j;
}

Json provenance_json(const Provenance& p) {
  Json j = Json::object();
  j["grade"] = grade_label(p);
  j["why"] = p.why;
  Json sources = Json::array();
  for (const auto& s : p.sources) sources.push_back(s);
  j["sources"] = sources;
  return j;
}

Json parameters_json(const StepUncertainty& u) {
  Json j = Json::object();
  j["level"] = u.level;
  j["model_form_half_width"] = u.model_half_width;
  j["parameter_half_width"] = u.parameter_half_width;
  j["parameter_term_added"] = u.parameter_term_added;
  Json fitted = Json::array();
  for (const auto& p : u.parameters) {
    Json e = Json::object();
    e["family"] = p.family;
    e["parameter"] = p.name;
    e["value"] = p.value;
    e["lo"] = p.lo;
    e["hi"] = p.hi;
    e["rows"] = p.rows;
    e["draws"] = p.draws;
    fitted.push_back(e);
  }
  j["fitted"] = fitted;
  return j;
}

Json with_intervals(const Json& obj, const std::map<std::string, Interval>& intervals) {
  Json::Object out;
  for (const auto& [k, v] : obj.as_object()) {
    out.emplace_back(k, v);
    if (auto it = intervals.find(k); it != intervals.end()) out.emplace_back(k + "_interval", interval_json(it->second));
  }
  return Json(std::move(out));
}

}  // namespace fleetsim::uncertainty
