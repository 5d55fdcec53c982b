// Leave-one-source-out coverage of the step intervals (coverage.hpp).
#include "sim/uncertainty/coverage.hpp"

#include <algorithm>
#include <stdexcept>

namespace fleetsim::uncertainty {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

SourceCoverage summarize(const std::string& source, const std::vector<const CaseCoverage*>& cases) {
  SourceCoverage s;
  s.source = source;
  std::vector<double> widths;
  for (const auto* c : cases) {
    ++s.cases;
    s.covered += c->covered ? 1 : 0;
    widths.push_back(c->interval.relative_half_width());
  }
  s.median_relative_half_width = median(widths);
  return s;
}

}  // namespace

CoverageReport step_coverage(const std::vector<StepResidual>& rows, double level,
                             const std::vector<double>& parameter_half_widths) {
  if (!parameter_half_widths.empty() && parameter_half_widths.size() != rows.size())
    throw std::invalid_argument("step_coverage: one parameter half-width per residual row");
  CoverageReport out;
  out.level = level;
  for (size_t i = 0; i < rows.size(); ++i) {
    const StepResidual& r = rows[i];
    CaseCoverage c;
    c.row = &r;
    c.interval = step_uncertainty(r.features, rows, level, r.source);
    if (!parameter_half_widths.empty()) c.interval = add_parameter_term(c.interval, parameter_half_widths[i]);
    c.covered = c.interval.covers(r.log_ratio);
    out.cases.push_back(c);
  }
  std::vector<std::string> order;
  for (const auto& r : rows)
    if (std::find(order.begin(), order.end(), r.source) == order.end()) order.push_back(r.source);
  std::vector<const CaseCoverage*> all, calibrated;
  for (const auto& c : out.cases) {
    all.push_back(&c);
    if (c.interval.provenance.grade == Grade::Calibrated) calibrated.push_back(&c);
  }
  for (const auto& s : order) {
    std::vector<const CaseCoverage*> mine;
    for (const auto& c : out.cases)
      if (c.row->source == s) mine.push_back(&c);
    out.sources.push_back(summarize(s, mine));
  }
  out.overall = summarize("", all);
  const SourceCoverage cal = summarize("calibrated", calibrated);
  out.calibrated_median_relative_half_width = cal.median_relative_half_width;
  out.calibrated_cases = cal.cases;
  return out;
}

}  // namespace fleetsim::uncertainty
