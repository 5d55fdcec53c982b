// `fleetsim validate`: every published case in data/validation that the models can express,
// published vs predicted, with its error and tolerance (DESIGN.md §6). The cases are built in
// sim/reproduce/ (sections.hpp); this file only prints them. Exit code 1 when a case
// fails its tolerance.
#include <cmath>
#include <cstdio>
#include <iostream>

#include "sim/app/command.hpp"
#include "sim/core/cli_guards.hpp"
#include "sim/core/error.hpp"
#include "sim/reproduce/sections.hpp"
#include "sim/results/json.hpp"
#include "sim/uncertainty/coverage.hpp"
#include "sim/uncertainty/parameter_bootstrap.hpp"

namespace fleetsim::app {
namespace {

// Coverage of the step model's 80% intervals, leave-one-source-out (sim/uncertainty/README.md),
// from this run's judged step cases: printed after the cases, or the "coverage" key of --json.
constexpr double kCoverageLevel = 0.8;

void print_coverage(const uncertainty::CoverageReport& c) {
  std::printf("\nCoverage of %.0f%% step intervals, leave-one-source-out (sim/uncertainty/README.md)\n",
              100 * c.level);
  std::printf("  %-60s %6s %8s %9s\n", "source", "cases", "inside", "median hw");
  auto line = [](const std::string& name, const uncertainty::SourceCoverage& s) {
    std::printf("  %-60.60s %6d %7.0f%% %8.1f%%\n", name.c_str(), s.cases, 100 * s.share(),
                100 * s.median_relative_half_width);
  };
  for (const auto& s : c.sources) line(s.source, s);
  line("all judged step cases", c.overall);
  std::printf("  median relative half-width of the %d cases graded calibrated: %.1f%%\n", c.calibrated_cases,
              100 * c.calibrated_median_relative_half_width);
}

Json coverage_json(const uncertainty::CoverageReport& c) {
  Json j = Json::object();
  j["level"] = c.level;
  auto one = [](const uncertainty::SourceCoverage& s) {
    Json o = Json::object();
    o["cases"] = s.cases;
    o["inside"] = s.covered;
    o["share"] = s.share();
    o["median_relative_half_width"] = s.median_relative_half_width;
    return o;
  };
  Json per = Json::object();
  for (const auto& s : c.sources) per[s.source] = one(s);
  j["sources"] = per;
  j["overall"] = one(c.overall);
  j["calibrated_cases"] = c.calibrated_cases;
  j["calibrated_median_relative_half_width"] = c.calibrated_median_relative_half_width;
  return j;
}

int validate(const std::string& only, bool json, const std::string& write_residuals) {
  if (!write_residuals.empty()) guards::output_file(write_residuals, "--write-residuals", "the residual table");
  auto cases = reproduce::validation_cases(only);
  const bool step = only.empty() || only == "step";
  std::vector<uncertainty::StepResidual> residuals;
  if (step) residuals = uncertainty::step_residuals(cases);
  if (!write_residuals.empty()) {
    if (!step) throw ConfigError("", "--write-residuals", "needs the step section (--only step or no --only)");
    uncertainty::write_step_residuals(write_residuals, residuals);
    std::cerr << "validate: " << residuals.size() << " judged step residuals written to " << write_residuals << "\n";
  }
  // The intervals judged are those `fleetsim step` shows: with the fitted parameters' bootstrap term.
  std::vector<double> parameter_terms;
  if (step)
    parameter_terms =
        uncertainty::case_parameter_half_widths(cases, uncertainty::shipped_parameter_draws(), kCoverageLevel);
  int failed = 0;
  for (const auto& c : cases) failed += c.pass ? 0 : 1;
  if (json) {
    Json j = Json::object();
    Json arr = Json::array();
    for (const auto& c : cases) {
      Json o = Json::object();
      o["source"] = c.source;
      o["case"] = c.case_name;
      o["metric"] = c.metric;
      o["published"] = c.published;
      o["predicted"] = c.predicted;
      o["error"] = c.error;
      o["error_kind"] = c.error_is_absolute ? "absolute" : "relative";
      o["tolerance"] = c.tolerance;
      o["pass"] = c.pass;
      // Added keys (consumers of the keys above are unaffected): the split and the scenario.
      o["role"] = c.role == CaseRole::Calibration ? "calibration" : "judged";
      o["scenario"] = c.scenario;
      Json sets = Json::array();
      for (const auto& s : c.overrides) sets.push_back(s);
      o["overrides"] = sets;
      o["note"] = c.note;
      arr.push_back(o);
    }
    j["cases"] = arr;
    j["passed"] = static_cast<int>(cases.size()) - failed;
    j["failed"] = failed;
    if (step) j["coverage"] = coverage_json(uncertainty::step_coverage(residuals, kCoverageLevel, parameter_terms));
    std::cout << j.dump(2) << "\n";
  } else {
    std::string source;
    for (const auto& c : cases) {
      if (c.source != source) {
        source = c.source;
        std::cout << "\n" << source << "\n";
        std::printf("  %-44s %-28s %12s %12s %9s %9s  %s\n", "case", "metric", "published", "predicted", "error", "tol", "");
      }
      char err[32], tol[32];
      if (c.error_is_absolute) {
        std::snprintf(err, sizeof err, "%+.3g", c.error);
        std::snprintf(tol, sizeof tol, "%.3g", c.tolerance);
      } else {
        std::snprintf(err, sizeof err, "%+.1f%%", 100 * c.error);
        std::snprintf(tol, sizeof tol, "%.1f%%", 100 * c.tolerance);
      }
      std::printf("  %-44.44s %-28.28s %12.4g %12.4g %9s %9s  %s\n", c.case_name.c_str(), c.metric.c_str(),
                  c.published, c.predicted, err, tol, c.pass ? "ok" : "FAIL");
    }
    std::printf("\n%zu cases: %zu passed, %d failed\n", cases.size(), cases.size() - failed, failed);
    if (step) print_coverage(uncertainty::step_coverage(residuals, kCoverageLevel, parameter_terms));
  }
  std::cout.flush();
  return failed == 0 ? 0 : 1;
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto only = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto write_residuals = std::make_shared<std::string>();
  auto* c = app.add_subcommand("validate", "reproduce every published case in data/validation with its error");
  // The section names from the one list of sections (sim/reproduce/sections.cpp).
  std::vector<std::string> names;
  for (const auto& s : reproduce::sections()) names.emplace_back(s.name);
  c->add_option("--only", *only, "one section: step, run, facility, pool or stragglers")
      ->check(CLI::IsMember(names));
  c->add_flag("--json", *json, "print {\"cases\": [...]} as JSON");
  c->add_option("--write-residuals", *write_residuals,
                 "write the judged step cases' residuals (regenerates sim/uncertainty/data/step_residuals.csv)");
  c->callback([only, json, write_residuals] {
    int code = validate(*only, *json, *write_residuals);
    if (code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace fleetsim::app
