// NeMo's TE userbuffers configurations (tp_comm_overlap_cfg) as the scenario's TP-overlap keys
// (workload.parallel.tp_comm_overlap_*; sim/step/tp_overlap.hpp). NeMo 2 recipes name a config of
// nemo/collections/llm/recipes/tp_overlap_configs/userbuffers.py ("userbuffers_bf16_h100_h16384_tp8_
// cp2_mbs1_seqlen8192"), the NeMo-Framework-Launcher the same configs as "ub_cfg_h100_bf16_h16384_
// tp8_cp2_mbs1_seqlen8192"; both are looked up in data/supplement/nemo_userbuffers_configs.csv
// (every op's method, SMs, aggregate and fp8_buf, with the NeMo commit they were read at; where a
// config changed, the newest). A recipe may also spell the ops out (cfg.<op>.method / num_sm / ...).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace fleetsim::importer {

struct UserbuffersOp {
  std::string method;  // bulk | pipeline | ring_exchange
  int num_sm = 0;
  bool aggregate = false, fp8_buf = false;
};

// The scenario keys a set of per-op settings means.
struct TpOverlapKeys {
  std::string rs_method = "pipeline";  // proj_fprop / fc2_fprop
  std::vector<int> rs_sms, bulk_sms;   // [proj, fc2], [qkv_dgrad, qkv_wgrad, fc1_dgrad, fc1_wgrad]
  bool aggregate = false, rs_fp8_buf = false;
  std::vector<std::string> notes;      // what was approximated (a mixed method, ...)
};

// The ops of a named config (either spelling); throws ConfigError naming `origin` and `key` with
// the known names when the name is not in the table.
[[nodiscard]] std::map<std::string, UserbuffersOp> nemo_userbuffers_config(const std::string& name,
                                                                            const std::string& origin,
                                                                            const std::string& key);
// The keys for the ten ops (missing ops keep the scenario defaults).
[[nodiscard]] TpOverlapKeys tp_overlap_keys(const std::map<std::string, UserbuffersOp>& ops);

}  // namespace fleetsim::importer
