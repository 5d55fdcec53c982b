#include "sim/import/nemo_userbuffers.hpp"

#include "sim/core/csv.hpp"
#include "sim/core/error.hpp"
#include "sim/core/paths.hpp"

namespace fleetsim::importer {
namespace {

// "ub_cfg_h100_bf16_h16384_..." (NeMo-Framework-Launcher) -> "userbuffers_bf16_h100_h16384_...".
std::string canonical(const std::string& name) {
  const std::string launcher = "ub_cfg_";
  if (name.rfind(launcher, 0) != 0) return name;
  const std::string rest = name.substr(launcher.size());
  const size_t a = rest.find('_');
  if (a == std::string::npos) return name;
  const size_t b = rest.find('_', a + 1);
  if (b == std::string::npos) return name;
  return "userbuffers_" + rest.substr(a + 1, b - a - 1) + "_" + rest.substr(0, a) + rest.substr(b);
}

}  // namespace

std::map<std::string, UserbuffersOp> nemo_userbuffers_config(const std::string& name, const std::string& origin,
                                                            const std::string& key) {
  const CsvTable t = read_csv(data_dir() + "/supplement/nemo_userbuffers_configs.csv");
  t.require_columns({"config", "op", "method", "num_sm", "aggregate", "fp8_buf", "since"});
  const std::string want = canonical(name);
  std::map<std::string, UserbuffersOp> ops;
  std::map<std::string, std::string> since;
  std::vector<std::string> known;
  for (size_t i = 0; i < t.size(); ++i) {
    const std::string& c = t.at(i, "config");
    if (known.empty() || known.back() != c) known.push_back(c);
    if (c != want) continue;
    const std::string& op = t.at(i, "op");
    if (since.count(op) && since[op] > t.at(i, "since")) continue;  // keep the newest reading
    since[op] = t.at(i, "since");
    ops[op] = UserbuffersOp{t.at(i, "method"), t.integer(i, "num_sm"), t.at(i, "aggregate") == "true",
                            t.at(i, "fp8_buf") == "true"};
  }
  if (ops.empty()) {
    std::string list;
    for (const auto& k : known)
      if (list.find(k) == std::string::npos) list += (list.empty() ? "" : ", ") + k;
    throw ConfigError(origin, key, "'" + name + "' is not a NeMo userbuffers config fleetsim knows; valid: " + list +
                                       " (or the ub_cfg_<gpu>_<precision>_... launcher spelling), or give the ops");
  }
  return ops;
}

TpOverlapKeys tp_overlap_keys(const std::map<std::string, UserbuffersOp>& ops) {
  TpOverlapKeys k;
  auto get = [&](const char* op) -> const UserbuffersOp* {
    const auto it = ops.find(op);
    return it == ops.end() ? nullptr : &it->second;
  };
  // Forward reduce-scatters: one method for both (the scenario's key); a mix is approximated by
  // the attention output's.
  const UserbuffersOp* proj = get("proj_fprop");
  const UserbuffersOp* fc2 = get("fc2_fprop");
  if (proj != nullptr) k.rs_method = proj->method == "ring_exchange" ? "ring_exchange" : "pipeline";
  if (proj != nullptr && fc2 != nullptr && proj->method != fc2->method)
    k.notes.push_back("tp_comm_overlap_cfg: proj_fprop is " + proj->method + ", fc2_fprop " + fc2->method +
                      "; both costed as " + k.rs_method);
  if (proj != nullptr || fc2 != nullptr) {
    const int p = proj != nullptr && proj->method == "pipeline" ? proj->num_sm : 16;
    const int f = fc2 != nullptr && fc2->method == "pipeline" ? fc2->num_sm : 16;
    k.rs_sms = {p, f};
    k.rs_fp8_buf = (proj != nullptr && proj->fp8_buf) || (fc2 != nullptr && fc2->fp8_buf);
  }
  const char* bulk[] = {"qkv_dgrad", "qkv_wgrad", "fc1_dgrad", "fc1_wgrad"};
  bool any = false;
  for (const char* b : bulk) any = any || get(b) != nullptr;
  if (any) {
    const int defaults[] = {4, 24, 2, 4};  // NeMo's 70B TP 4 config: the scenario defaults
    for (int i = 0; i < 4; ++i) {
      const UserbuffersOp* o = get(bulk[i]);
      k.bulk_sms.push_back(o != nullptr ? o->num_sm : defaults[i]);
    }
  }
  const UserbuffersOp* ag = get("qkv_fprop");
  k.aggregate = ag != nullptr && ag->method == "ring_exchange" && ag->aggregate;
  return k;
}

}  // namespace fleetsim::importer
