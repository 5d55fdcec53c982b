// A `fleetsim calibrate` software file as overrides and a calibration record (software_file.hpp).
#include "sim/config/software_file.hpp"

#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>

#include "sim/config/yaml_source.hpp"
#include "sim/core/error.hpp"

namespace fleetsim::config {
namespace {

constexpr const char* kPrefix = "software=";

YAML::Node need(const YAML::Node& n, const std::string& key, const std::string& file, const std::string& path) {
  const YAML::Node v = n[key];
  if (!v.IsDefined())
    throw ConfigError(file, path + key, "missing; not a software file written by fleetsim calibrate (its `" + key +
                                            "` key is absent)");
  return v;
}

template <class T>
T as(const YAML::Node& n, const std::string& file, const std::string& key) {
  try {
    return n.as<T>();
  } catch (const YAML::Exception&) {
    throw ConfigError(file, key, "malformed value in the software file", n.Mark().line + 1);
  }
}

SoftwareCalibration read_calibration(const std::string& file, const YAML::Node& doc) {
  if (!doc.IsMap() || !doc["kind"].IsDefined() || !doc["kind"].IsScalar() || doc["kind"].Scalar() != "software")
    throw ConfigError(file, "kind", "not a software file (expected `kind: software`, as fleetsim calibrate writes)");
  SoftwareCalibration c;
  c.file = file;
  const YAML::Node cal = need(doc, "calibration", file, "");
  const YAML::Node range = need(cal, "range", file, "calibration.");
  c.gpu = as<std::string>(need(range, "gpu", file, "calibration.range."), file, "calibration.range.gpu");
  const YAML::Node g = need(range, "gpus", file, "calibration.range.");
  const YAML::Node p = need(range, "params_b", file, "calibration.range.");
  if (!g.IsSequence() || g.size() != 2 || !p.IsSequence() || p.size() != 2)
    throw ConfigError(file, "calibration.range", "gpus and params_b must be [lo, hi]");
  c.gpus_lo = as<int>(g[0], file, "calibration.range.gpus");
  c.gpus_hi = as<int>(g[1], file, "calibration.range.gpus");
  c.params_lo = as<double>(p[0], file, "calibration.range.params_b");
  c.params_hi = as<double>(p[1], file, "calibration.range.params_b");
  for (const auto& e : need(range, "precision", file, "calibration.range."))
    c.precisions.push_back(as<std::string>(e, file, "calibration.range.precision"));
  for (const auto& e : need(cal, "held_out_log_residuals", file, "calibration."))
    c.held_out_log_residuals.push_back(as<double>(e, file, "calibration.held_out_log_residuals"));
  c.rows = as<int>(need(cal, "calibration_rows", file, "calibration."), file, "calibration.calibration_rows");
  const YAML::Node err = need(cal, "mean_abs_error", file, "calibration.");
  c.held_out_error = as<double>(need(err, "held_out", file, "calibration.mean_abs_error."), file,
                                "calibration.mean_abs_error.held_out");
  c.held_out_method = as<std::string>(need(err, "held_out_method", file, "calibration.mean_abs_error."), file,
                                      "calibration.mean_abs_error.held_out_method");
  const YAML::Node params = need(doc, "parameters", file, "");
  if (!params.IsMap()) throw ConfigError(file, "parameters", "expected a mapping of parameter names");
  for (const auto& kv : params) {
    const std::string name = as<std::string>(kv.first, file, "parameters");
    const std::string at = "parameters." + name + ".";
    const YAML::Node e = kv.second;
    const std::string status = as<std::string>(need(e, "status", file, at), file, at + "status");
    if (status != "fitted" && status != "fitted on traces") continue;
    SoftwareCalibration::Fitted f;
    f.name = name;
    f.key = as<std::string>(need(e, "key", file, at), file, at + "key");
    f.value = as<std::string>(need(e, "value", file, at), file, at + "value");
    f.si = as<double>(need(e, "si", file, at), file, at + "si");
    const YAML::Node b = need(e, "bootstrap", file, at);
    if (!b.IsSequence() || b.size() != 2) throw ConfigError(file, at + "bootstrap", "expected [lo, hi]");
    f.lo = as<double>(b[0], file, at + "bootstrap");
    f.hi = as<double>(b[1], file, at + "bootstrap");
    if (f.key.rfind("cluster.", 0) != 0 || f.key.find('=') != std::string::npos)
      throw ConfigError(file, at + "key", "'" + f.key + "' is not a cluster.* scenario key");
    c.fitted.push_back(std::move(f));
  }
  return c;
}

struct Registry {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const SoftwareCalibration>> by_yaml;
  std::deque<std::string> order;
};
Registry& registry() {
  static Registry r;
  return r;
}
constexpr size_t kRemembered = 4096;

}  // namespace

void remember_software(const Scenario& s, std::shared_ptr<const SoftwareCalibration> c) {
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  if (!c) {
    r.by_yaml.erase(s.resolved_yaml);  // the same document loaded without a file
    return;
  }
  if (r.by_yaml.emplace(s.resolved_yaml, c).second) r.order.push_back(s.resolved_yaml);
  else r.by_yaml[s.resolved_yaml] = std::move(c);
  while (r.order.size() > kRemembered) {
    r.by_yaml.erase(r.order.front());
    r.order.pop_front();
  }
}

std::shared_ptr<const SoftwareCalibration> software_of(const Scenario& s) {
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  const auto it = r.by_yaml.find(s.resolved_yaml);
  return it == r.by_yaml.end() ? nullptr : it->second;
}

namespace {
bool is_calibrate_file(const std::string& value) {
  std::error_code ec;
  if (value.empty() || !std::filesystem::is_regular_file(value, ec)) return false;
  try {
    return YAML::LoadFile(value)["calibration"].IsDefined();
  } catch (const YAML::Exception&) {
    return false;  // not YAML: the software key's loader names the file and what is wrong
  }
}
}  // namespace

std::shared_ptr<const SoftwareCalibration> expand_software_sets(std::vector<std::string>& sets) {
  std::string file;
  std::vector<std::string> rest;
  std::set<std::string> explicit_keys;
  for (const auto& s : sets) {
    // Only a file that fleetsim calibrate wrote (it has a `calibration:` record) is expanded here;
    // a preset name or a stack file of models/software/'s form goes on to the `software:` key.
    if (s.rfind(kPrefix, 0) == 0 && is_calibrate_file(s.substr(std::string(kPrefix).size()))) {
      if (!file.empty())
        throw ConfigError("--set " + s, "software", "a second software file (the first: " + file + "); give one");
      file = s.substr(std::string(kPrefix).size());
      if (file.empty()) throw ConfigError("--set " + s, "software", "expected a file, e.g. --set software=my-stack.yaml");
      continue;
    }
    explicit_keys.insert(s.substr(0, s.find('=')));
    rest.push_back(s);
  }
  if (file.empty()) return nullptr;
  const YAML::Node doc = read_yaml_file(file, "--set software", "software");
  auto c = std::make_shared<SoftwareCalibration>(read_calibration(file, doc));
  for (const auto& f : c->fitted)
    if (!explicit_keys.count(f.key)) rest.push_back(f.key + "=" + f.value);
  sets = std::move(rest);
  return c;
}

}  // namespace fleetsim::config
