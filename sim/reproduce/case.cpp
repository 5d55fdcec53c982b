#include "sim/reproduce/case.hpp"

#include <cmath>

namespace fleetsim::reproduce {

ValidationCase make_case(std::string source, std::string name, std::string metric, double published,
                         double predicted, double tolerance, bool absolute) {
  ValidationCase c;
  c.source = std::move(source);
  c.case_name = std::move(name);
  c.metric = std::move(metric);
  c.published = published;
  c.predicted = predicted;
  c.error_is_absolute = absolute;
  c.error = absolute ? predicted - published : (predicted - published) / published;
  c.tolerance = tolerance;
  c.pass = std::abs(c.error) <= tolerance;
  return c;
}

ValidationCase mean_absolute(const std::vector<ValidationCase>& cases, const std::string& source,
                             double tolerance) {
  ValidationCase v;
  v.source = source;
  v.case_name = "mean |error| over " + std::to_string(cases.size()) + " cases";
  v.metric = cases.empty() ? "" : cases.front().metric;
  double sum = 0;
  for (const auto& c : cases) sum += std::fabs(c.error);
  v.error = cases.empty() ? 0 : sum / cases.size();
  v.predicted = v.error;
  v.tolerance = tolerance;
  v.error_is_absolute = !cases.empty() && cases.front().error_is_absolute;
  v.pass = v.error <= tolerance;
  return v;
}

}  // namespace fleetsim::reproduce
