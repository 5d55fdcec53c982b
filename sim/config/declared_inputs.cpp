// Declared uncertain inputs: gathered from the resolved ParamSet, and the scenario re-built with
// drawn values (declared_inputs.hpp).
#include "sim/config/declared_inputs.hpp"

#include <cstdio>

#include "sim/config/scenario_builder.hpp"
#include "sim/core/error.hpp"

namespace fleetsim::config {
namespace {

void collect(const ParamSet& ps, const std::string& prefix, std::vector<DeclaredInput>& out) {
  for (const auto& [name, p] : ps.values) {
    const std::string key = prefix.empty() ? name : prefix + "." + name;
    if (p.uncertain) out.push_back({key, p.number, *p.uncertain, p.origin});
    if (p.sub) collect(*p.sub, key, out);
    for (size_t i = 0; i < p.rows.size(); ++i) collect(p.rows[i], key + "[" + std::to_string(i) + "]", out);
  }
}

// Sets the number at `key` (a path collect() wrote) in `root`, copying every shared section on
// the way (Param::sub is shared between copies of a ParamSet), so the resolved tree is untouched.
void set_number(ParamSet& root, const std::string& key, double v) {
  ParamSet* cur = &root;
  size_t start = 0;
  while (true) {
    const size_t dot = key.find('.', start);
    std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    long row = -1;
    if (const size_t br = part.find('['); br != std::string::npos) {
      row = std::stol(part.substr(br + 1));
      part = part.substr(0, br);
    }
    Param& p = cur->values.at(part);
    if (dot == std::string::npos) {
      p.number = v;
      return;
    }
    if (row >= 0) {
      cur = &p.rows.at(static_cast<size_t>(row));  // rows are held by value: already this copy's
    } else {
      p.sub = std::make_shared<ParamSet>(*p.sub);
      cur = p.sub.get();
    }
    start = dot + 1;
  }
}

}  // namespace

std::shared_ptr<const DeclaredInputs> collect_declared_inputs(ParamSet params, const std::string& file,
                                                              const std::string& resolved_yaml) {
  std::vector<DeclaredInput> inputs;
  collect(params, "", inputs);
  if (inputs.empty()) return nullptr;
  auto d = std::make_shared<DeclaredInputs>();
  d->inputs = std::move(inputs);
  d->params = std::make_shared<const ParamSet>(std::move(params));
  d->file = file;
  d->resolved_yaml = resolved_yaml;
  return d;
}

Scenario with_input_values(const DeclaredInputs& d, const std::vector<double>& values) {
  ParamSet root = *d.params;
  std::string drawn;
  for (size_t k = 0; k < d.inputs.size() && k < values.size(); ++k) {
    set_number(root, d.inputs[k].key, values[k]);
    char buf[48];
    std::snprintf(buf, sizeof buf, " = %g", values[k]);
    drawn += (drawn.empty() ? "" : ", ") + d.inputs[k].key + buf;
  }
  try {
    return build_scenario(root, d.file, d.resolved_yaml);
  } catch (const ConfigError& e) {
    throw ConfigError(e.file(), e.key(), e.message() + " (with the declared uncertain inputs drawn at " + drawn +
                                             " (SI); narrow their range)", e.line());
  }
}

}  // namespace fleetsim::config
