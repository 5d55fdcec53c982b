// A number declared uncertain in a scenario (issue 25): any quantity, ratio or temperature key may
// be written
//   {value: V, range: [lo, hi]}                          uniform on [lo, hi]
//   {value: V, range: [lo, hi], distribution: triangular} mode V
//   {value: V, distribution: normal, sd: S}              mean V; S in the key's unit
//   {value: V, distribution: lognormal, sigma: s}        median V; s = standard deviation of ln x
// (normal and lognormal take an optional range that truncates them). V is what the point
// prediction uses, so the headline number is the one the plain key would give; the sampling
// commands draw from the rest (sim/uncertainty/inputs.hpp). Every part is checked here, naming
// the key: lo < hi, V inside the range, sd and sigma > 0, a known distribution, numbers only.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/config/resolve.hpp"
#include "sim/config/yaml_source.hpp"
#include "sim/core/error.hpp"
#include "sim/core/limits.hpp"

namespace fleetsim::config {
namespace {

const std::vector<std::string>& distributions() {
  static const std::vector<std::string> names = {"uniform", "triangular", "normal", "lognormal"};
  return names;
}

const std::vector<std::string>& declaration_keys() {
  static const std::vector<std::string> keys = {"value", "range", "distribution", "sd", "sigma", "source"};
  return keys;
}

const char* type_name(FieldType t) {
  switch (t) {
    case FieldType::Integer: return "an integer";
    case FieldType::Bool: return "true or false";
    case FieldType::Choice: return "a choice of words";
    case FieldType::Text: return "text";
    default: return "not a number";
  }
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

std::string shown_number(double v, const Field& f) {
  if (f.type == FieldType::Quantity) return units::format(v, f.dim);
  char buf[48];
  std::snprintf(buf, sizeof buf, f.type == FieldType::Temperature ? "%g degC" : "%g", v);
  return buf;
}

}  // namespace

Param Resolver::uncertain_value(const YAML::Node& node, const Field& f, const std::string& path,
                                const std::string& file, bool partial) {
  const int line = file.rfind("--", 0) == 0 ? 0 : line_of(node);
  const bool numeric = f.type == FieldType::Quantity || f.type == FieldType::Real || f.type == FieldType::Temperature;
  if (!numeric) {
    if (f.type == FieldType::Integer && (node["value"].IsDefined() || node["range"].IsDefined()))
      throw ConfigError(file, path, "is an integer key and cannot be declared uncertain ({value, range} or a "
                                    "distribution): a draw would have to be rounded, and counts and layouts must divide "
                                    "exactly; give one integer (or sweep it with fleetsim sweep)", line);
    if (node["value"].IsDefined() || node["range"].IsDefined() || node["distribution"].IsDefined())
      throw ConfigError(file, path, std::string("is ") + type_name(f.type) +
                                        ", not a number: only a quantity, ratio or temperature key can be declared "
                                        "uncertain ({value, range} or a distribution)", line);
    throw ConfigError(file, path, std::string("expected ") + type_name(f.type) + ", got " + kind_of(node), line);
  }
  if (!allow_uncertain_)
    throw ConfigError(file, path, "an uncertain value ({value, range} or a distribution) is accepted in scenario files "
                                  "and --set only; give one number here", line);
  for (const auto& kv : node) {
    spend(file);
    const std::string k = kv.first.IsScalar() ? kv.first.Scalar() : "";
    if (std::find(declaration_keys().begin(), declaration_keys().end(), k) == declaration_keys().end())
      throw ConfigError(file, path + "." + k, "unknown key in an uncertain value; " + did_you_mean(k, declaration_keys()) +
                                                  "valid keys: " + join(declaration_keys()) +
                                                  " (e.g. {value: 1, range: [0.7, 1.5]})", line_of(kv.first));
  }
  const YAML::Node v = node["value"];
  if (!v.IsDefined() || v.IsNull())
    throw ConfigError(file, path, "an uncertain value needs value: (the number the point prediction uses), e.g. "
                                  "{value: 1, range: [0.7, 1.5]}", line);
  // One number, never a nested declaration: {value: {value: 1, range: [...]}, range: [...]} once
  // took the inner value and silently dropped the inner range (issue 40).
  if (!v.IsScalar())
    throw ConfigError(file, path + ".value", "must be a number (the one the point prediction uses), got " + kind_of(v) +
                                                 "; valid: {value: 1, range: [0.7, 1.5]}", line);
  // The value and the range's ends are parsed, unit and bounds, as the plain key would be; a word
  // the key accepts instead of a number (checkpoint.interval: daly) has no distribution.
  Field plain = f;
  plain.choices.clear();
  if (v.IsScalar() && std::find(f.choices.begin(), f.choices.end(), v.Scalar()) != f.choices.end())
    throw ConfigError(file, path, "'" + v.Scalar() + "' is a word, not a number: only a number can be declared uncertain", line);
  Param p = value(v, plain, path, file, partial);
  if (node["source"].IsDefined() && node["source"].IsScalar()) p.source = node["source"].Scalar();

  const YAML::Node range = node["range"], dist_node = node["distribution"];
  const YAML::Node sd_node = node["sd"], sigma_node = node["sigma"];
  std::string dist;
  if (dist_node.IsDefined()) {
    if (!dist_node.IsScalar())
      throw ConfigError(file, path + ".distribution", "expected one of " + join(distributions()) + ", got " + kind_of(dist_node), line);
    dist = dist_node.Scalar();
    if (std::find(distributions().begin(), distributions().end(), dist) == distributions().end())
      throw ConfigError(file, path + ".distribution", "'" + dist + "' is not valid; " + did_you_mean(dist, distributions()) +
                                                          "choose one of: " + join(distributions()), line);
  } else if (range.IsDefined()) {
    dist = "uniform";
  }
  if (dist.empty()) {
    if (sd_node.IsDefined() || sigma_node.IsDefined())
      throw ConfigError(file, path, "sd or sigma needs distribution: normal (sd) or lognormal (sigma)", line);
    return p;  // {value: V} (or {value, source}): a plain number
  }

  UncertainSpec u;
  u.distribution = dist;
  // The support: the range, or the key's own bounds (normal and lognormal are truncated to them).
  u.lo = f.min;
  u.hi = f.type == FieldType::Quantity && f.dim == dim<Seconds>() ? std::min(f.max, limits::kMaxTimeSeconds) : f.max;
  if (range.IsDefined()) {
    if (!range.IsSequence() || range.size() != 2)
      throw ConfigError(file, path + ".range", "expected [lo, hi] (two numbers in the key's unit), got " + kind_of(range), line);
    for (const YAML::Node& end : {range[0], range[1]})
      if (!end.IsScalar())
        throw ConfigError(file, path + ".range", "expected [lo, hi] (two numbers in the key's unit), got an end that is " +
                                                     kind_of(end), line);
    u.lo = value(range[0], plain, path + ".range", file, partial).number;
    u.hi = value(range[1], plain, path + ".range", file, partial).number;
    u.has_range = true;
    if (!(u.lo < u.hi))
      throw ConfigError(file, path + ".range", "lo (" + shown_number(u.lo, f) + ") must be below hi (" +
                                                   shown_number(u.hi, f) + "): write [lo, hi]", line);
    if (p.number < u.lo || p.number > u.hi)
      throw ConfigError(file, path, "value " + shown_number(p.number, f) + " lies outside its range [" +
                                        shown_number(u.lo, f) + ", " + shown_number(u.hi, f) + "]", line);
  }
  auto refuse_param = [&](const YAML::Node& n, const char* name) {
    if (n.IsDefined())
      throw ConfigError(file, path + "." + name, std::string(name) + " is not a parameter of " + dist +
                                                     " (sd belongs to normal, sigma to lognormal)", line);
  };
  // A positive, finite scale; `d` is its dimension (the key's for sd, none for sigma).
  auto scale = [&](const YAML::Node& n, const char* name, const units::DimVec& d, const std::string& what) {
    if (!n.IsDefined() || n.IsNull())
      throw ConfigError(file, path, dist + " needs " + name + " (" + what + ")", line);
    if (!n.IsScalar()) throw ConfigError(file, path + "." + name, "expected a number, got " + kind_of(n), line);
    double x = 0;
    try {
      x = units::parse_si(n.Scalar(), d);
    } catch (const units::UnitError& e) {
      throw ConfigError(file, path + "." + name, e.what(), line);
    }
    if (!(x > 0) || !std::isfinite(x))
      throw ConfigError(file, path + "." + name, "must be > 0 (" + what + "), got " + n.Scalar(), line);
    return x;
  };
  const units::DimVec key_dim = f.type == FieldType::Quantity ? f.dim
                                : f.type == FieldType::Temperature ? dim<Kelvin>() : units::DimVec{};
  char buf[160];
  if (dist == "uniform" || dist == "triangular") {
    if (!u.has_range) throw ConfigError(file, path, dist + " needs range: [lo, hi]", line);
    refuse_param(sd_node, "sd");
    refuse_param(sigma_node, "sigma");
    u.shown = dist + " on [" + shown_number(u.lo, f) + ", " + shown_number(u.hi, f) + "]" +
              (dist == "triangular" ? ", mode " + shown_number(p.number, f) : "");
  } else if (dist == "normal") {
    refuse_param(sigma_node, "sigma");
    u.sd = scale(sd_node, "sd", key_dim, "the standard deviation, in the key's unit");
    const double mass = normal_cdf((u.hi - p.number) / u.sd) - normal_cdf((u.lo - p.number) / u.sd);
    if (!(mass >= 1e-6))
      throw ConfigError(file, path, "the normal distribution puts almost none of its mass inside the key's valid range; "
                                    "give a smaller sd or a range", line);
    u.shown = "normal, mean " + shown_number(p.number, f) + ", sd " + shown_number(u.sd, f) +
              (f.type == FieldType::Temperature ? " (K)" : "");
  } else {  // lognormal
    refuse_param(sd_node, "sd");
    u.sigma = scale(sigma_node, "sigma", units::DimVec{}, "the standard deviation of ln(value)");
    if (!(p.number > 0))
      throw ConfigError(file, path, "lognormal needs value > 0 (its median), got " + shown_number(p.number, f), line);
    if (u.sigma > 5) throw ConfigError(file, path + ".sigma", "must be <= 5 (a factor e^5 = 148 either way)", line);
    u.lo = std::max(u.lo, 0.0);
    const double z_hi = std::isfinite(u.hi) ? std::log(u.hi / p.number) / u.sigma : INFINITY;
    const double z_lo = u.lo > 0 ? std::log(u.lo / p.number) / u.sigma : -INFINITY;
    if (!(normal_cdf(z_hi) - normal_cdf(z_lo) >= 1e-6))
      throw ConfigError(file, path, "the lognormal distribution puts almost none of its mass inside the key's valid "
                                    "range; give a smaller sigma or a range", line);
  }
  if (dist == "lognormal") {
    std::snprintf(buf, sizeof buf, ", sigma %g", u.sigma);
    u.shown = "lognormal, median " + shown_number(p.number, f) + buf;
  }
  if (u.has_range && (dist == "normal" || dist == "lognormal"))
    u.shown += ", truncated to [" + shown_number(u.lo, f) + ", " + shown_number(u.hi, f) + "]";
  p.uncertain = std::make_shared<const UncertainSpec>(std::move(u));
  return p;
}

}  // namespace fleetsim::config
