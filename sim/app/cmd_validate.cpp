// `fleetsim validate`: every published case in data/validation that the models can express,
// published vs predicted, with its error and tolerance (DESIGN.md §6). The cases are built in
// sim/reproduce/ (sections.hpp); this file only prints them. Exit code 1 when a case
// fails its tolerance.
#include <cmath>
#include <cstdio>
#include <iostream>

#include "sim/app/command.hpp"
#include "sim/reproduce/sections.hpp"
#include "sim/results/json.hpp"

namespace fleetsim::app {
namespace {

int validate(const std::string& only, bool json) {
  auto cases = reproduce::validation_cases(only);
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
  }
  std::cout.flush();
  return failed == 0 ? 0 : 1;
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto only = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto* c = app.add_subcommand("validate", "reproduce every published case in data/validation with its error");
  c->add_option("--only", *only, "one model: step, run, facility or pool")
      ->check(CLI::IsMember({"step", "run", "facility", "pool"}));
  c->add_flag("--json", *json, "print {\"cases\": [...]} as JSON");
  c->callback([only, json] {
    int code = validate(*only, *json);
    if (code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace fleetsim::app
