#include "sim/results/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <stdexcept>

namespace fleetsim {
namespace {

bool matches(std::string_view pattern, std::string_view name) {
  if (pattern == name) return true;
  // "a.b.*" matches "a.b.x" (one trailing key of a by-cause map).
  if (pattern.size() >= 2 && pattern.substr(pattern.size() - 2) == ".*") {
    std::string_view stem = pattern.substr(0, pattern.size() - 1);
    return name.size() > stem.size() && name.substr(0, stem.size()) == stem &&
           name.substr(stem.size()).find('.') == std::string_view::npos;
  }
  return false;
}

std::string format_value(double v, std::string_view unit) {
  char buf[64];
  if (unit == "1" && std::fabs(v) <= 1.0) std::snprintf(buf, sizeof buf, "%.4f", v);
  else if (unit == "count") std::snprintf(buf, sizeof buf, "%.1f", v);
  else std::snprintf(buf, sizeof buf, "%.4g", v);
  std::string s = buf;
  if (unit != "1" && unit != "count" && !unit.empty()) s += " " + std::string(unit);
  return s;
}

}  // namespace

const MetricDef& metric_def(std::string_view name) {
  for (const auto* defs : {&step_metric_defs(), &run_metric_defs(), &facility_metric_defs(), &pool_metric_defs(),
                            &power_dynamics_metric_defs()})
    for (const auto& d : *defs)
      if (matches(d.name, name)) return d;
  throw std::logic_error("metric '" + std::string(name) + "' is not in the metric catalog");
}

Stat summarize(std::vector<double> samples) {
  Stat s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  double sum = 0.0;
  for (double x : samples) sum += x;
  s.mean = sum / static_cast<double>(samples.size());
  auto quantile = [&](double q) {
    double pos = q * static_cast<double>(samples.size() - 1);
    size_t lo = static_cast<size_t>(std::floor(pos));
    size_t hi = std::min(lo + 1, samples.size() - 1);
    double frac = pos - static_cast<double>(lo);
    return samples[lo] * (1.0 - frac) + samples[hi] * frac;
  };
  s.p05 = quantile(0.05);
  s.p95 = quantile(0.95);
  return s;
}

void Report::push(std::string_view name, Value v) {
  std::string full = prefix_ + std::string(name);
  const MetricDef& def = metric_def(name);
  if (const double* d = std::get_if<double>(&v); d && !std::isfinite(*d))
    throw std::logic_error("metric '" + full + "' is not a finite number");
  entries_.push_back({std::move(full), std::move(v), &def});
}

void Report::add(std::string_view name, double value) { push(name, value); }
void Report::add(std::string_view name, Stat value) { push(name, value); }
void Report::add(std::string_view name, bool value) { push(name, value); }
void Report::add(std::string_view name, std::string value) { push(name, std::move(value)); }

Json Report::to_json() const {
  Json out = Json::object();
  for (const auto& e : entries_) {
    Json v;
    if (const double* d = std::get_if<double>(&e.value)) v = *d;
    else if (const bool* b = std::get_if<bool>(&e.value)) v = *b;
    else if (const std::string* s = std::get_if<std::string>(&e.value)) v = *s;
    else {
      const Stat& st = std::get<Stat>(e.value);
      v = Json::object();
      v["mean"] = st.mean;
      v["p05"] = st.p05;
      v["p95"] = st.p95;
    }
    out.set_path(e.name, std::move(v));
  }
  return out;
}

void Report::print_table(std::ostream& out, std::string_view prefix) const {
  size_t width = 0;
  for (const auto& e : entries_) width = std::max(width, e.def->description.size());
  for (const auto& e : entries_) {
    if (e.name.compare(0, prefix.size(), prefix) != 0) continue;
    std::string desc(e.def->description);
    // By-cause entries share a description; show which key they are.
    if (e.def->name.size() >= 2 && e.def->name.substr(e.def->name.size() - 2) == ".*")
      desc += " [" + e.name.substr(e.name.rfind('.') + 1) + "]";
    std::string value;
    if (const double* d = std::get_if<double>(&e.value)) value = format_value(*d, e.def->unit);
    else if (const bool* b = std::get_if<bool>(&e.value)) value = *b ? "yes" : "no";
    else if (const std::string* s = std::get_if<std::string>(&e.value)) value = *s;
    else {
      const Stat& st = std::get<Stat>(e.value);
      value = format_value(st.mean, e.def->unit) + "  [p05 " + format_value(st.p05, e.def->unit) + ", p95 " +
              format_value(st.p95, e.def->unit) + "]";
    }
    out << "  " << desc << std::string(width + 2 - std::min(width + 2, desc.size()), ' ') << value << "\n";
  }
}

}  // namespace fleetsim
