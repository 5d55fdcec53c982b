#include "sim/search/space.hpp"

#include <algorithm>
#include <sstream>
#include <tuple>

#include "sim/core/error.hpp"

#include "sim/search/uneven_split.hpp"

namespace fleetsim::search {

bool simpler(const Candidate& a, const Candidate& b) {
  auto key = [](const Candidate& c) {
    return std::tie(c.chunked_loss, c.zero_stage, c.balanced_split, c.recompute, c.tp, c.cp, c.pp, c.vpp,
                    c.ep, c.micro_batch, c.sequence_parallel, c.layer_split);
  };
  return key(a) < key(b);
}

WorkloadSpec apply(const Candidate& c, const WorkloadSpec& base) {
  WorkloadSpec w = base;
  ParallelSpec& p = w.parallel;
  p.tensor_model_parallel_size = c.tp;
  p.pipeline_model_parallel_size = c.pp;
  p.virtual_pipeline_model_parallel_size = c.vpp;
  p.context_parallel_size = c.cp;
  p.expert_model_parallel_size = c.ep;
  p.data_parallel_size = c.dp;
  p.sequence_parallel = c.sequence_parallel;
  p.recompute_granularity = c.recompute;
  p.zero_stage = c.zero_stage;
  p.use_distributed_optimizer = c.zero_stage >= 1;
  p.pipeline_layer_split = c.layer_split;
  w.training.micro_batch_size = c.micro_batch;
  return w;
}

Candidate from_workload(const WorkloadSpec& w, int gpus) {
  const ParallelSpec& p = w.parallel;
  Candidate c;
  c.tp = p.tensor_model_parallel_size;
  c.pp = p.pipeline_model_parallel_size;
  c.vpp = p.virtual_pipeline_model_parallel_size;
  c.cp = p.context_parallel_size;
  c.ep = p.expert_model_parallel_size;
  const long long mp = 1LL * c.tp * c.pp * c.cp;
  c.dp = mp > 0 ? static_cast<int>(gpus / mp) : 0;
  c.micro_batch = w.training.micro_batch_size;
  c.sequence_parallel = p.sequence_parallel;
  c.recompute = p.recompute_granularity;
  c.zero_stage = p.effective_zero_stage();
  c.layer_split = p.pipeline_layer_split;
  // An explicit split that equals the default one is the same layout.
  if (!c.layer_split.empty() && c.layer_split == explicit_split(default_split(w.model.num_layers, c.pp, c.vpp),
                                                                w.model.num_layers, c.pp))
    c.layer_split = default_split(w.model.num_layers, c.pp, c.vpp);
  return c;
}

const char* recompute_name(Recompute r) {
  switch (r) {
    case Recompute::None: return "none";
    case Recompute::Selective: return "selective";
    case Recompute::Full: return "full";
  }
  return "none";
}

std::string describe(const Candidate& c) {
  std::string s = "TP " + std::to_string(c.tp) + ", PP " + std::to_string(c.pp);
  if (!c.layer_split.empty()) s += " (layers " + format_split(c.layer_split) + ")";
  if (c.vpp > 1) s += ", VPP " + std::to_string(c.vpp);
  s += ", CP " + std::to_string(c.cp);
  if (c.ep > 1) s += ", EP " + std::to_string(c.ep);
  s += ", DP " + std::to_string(c.dp) + ", micro-batch " + std::to_string(c.micro_batch);
  if (c.sequence_parallel) s += ", SP";
  s += c.recompute == Recompute::None ? std::string(", no recomputation")
                                      : std::string(", ") + recompute_name(c.recompute) + " recomputation";
  if (c.zero_stage == 1) s += ", distributed optimizer";
  else if (c.zero_stage >= 2) s += ", ZeRO-" + std::to_string(c.zero_stage);
  if (c.chunked_loss) s += ", chunked loss";
  return s;
}

std::vector<std::string> to_sets(const Candidate& c) {
  const std::string P = "workload.parallel.";
  std::string split = "[";
  for (size_t i = 0; i < c.layer_split.size(); ++i) split += (i ? "," : "") + std::to_string(c.layer_split[i]);
  split += "]";
  return {P + "tensor_model_parallel_size=" + std::to_string(c.tp),
          P + "pipeline_model_parallel_size=" + std::to_string(c.pp),
          P + "virtual_pipeline_model_parallel_size=" + std::to_string(c.vpp),
          P + "context_parallel_size=" + std::to_string(c.cp),
          P + "expert_model_parallel_size=" + std::to_string(c.ep),
          P + "sequence_parallel=" + std::string(c.sequence_parallel ? "true" : "false"),
          P + "recompute_granularity=" + recompute_name(c.recompute),
          P + "use_distributed_optimizer=" + std::string(c.zero_stage >= 1 ? "true" : "false"),
          P + "zero_stage=" + std::to_string(c.zero_stage),
          P + "pipeline_layer_split=" + split,
          "workload.training.micro_batch_size=" + std::to_string(c.micro_batch)};
}

Space default_space(const Scenario& s) {
  const ModelSpec& m = s.workload.model;
  Space sp;
  const int node = std::max(1, s.cluster.node.gpus_per_node);
  for (int t = 1; t <= node; t *= 2) sp.tp.push_back(t);
  if (sp.tp.back() != node) sp.tp.push_back(node);
  for (int c = 1; c <= 32 && (c == 1 || m.seq_length / c >= 512); c *= 2) sp.cp.push_back(c);
  for (int p = 1; p <= std::max(1, m.num_layers); ++p)
    if (s.cluster.gpus % p == 0) sp.pp.push_back(p);
  sp.vpp = {1, 2, 3, 4, 6, 8};
  if (s.workload.parallel.pipeline_schedule == PipelineScheduleKind::DualPipe) {
    // DualPipe: one chunk per rank and an even pipeline (sim/step/dualpipe.hpp).
    sp.vpp = {1};
    std::vector<int> even;
    for (int p : sp.pp)
      if (p >= 2 && p % 2 == 0) even.push_back(p);
    sp.pp = even;
  }
  if (m.is_moe()) {
    for (int e = 1; e <= m.num_experts; ++e)
      if (m.num_experts % e == 0) sp.ep.push_back(e);
  } else {
    sp.ep = {1};
  }
  for (int b = 1; b <= 16 && b <= std::max(1, s.workload.training.global_batch_size); b *= 2) sp.micro_batch.push_back(b);
  sp.zero_stage = {0, 1, 2, 3};
  sp.sequence_parallel = {false, true};
  sp.chunked_loss = {false, true};
  sp.recompute = {Recompute::None, Recompute::Selective, Recompute::Full};
  return sp;
}

namespace {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

}  // namespace

void override_dimension(Space& space, const std::string& spec) {
  const auto eq = spec.find('=');
  auto bad = [&](const std::string& msg) { throw ConfigError("", "--space", "'" + spec + "': " + msg); };
  if (eq == std::string::npos) bad("expected KEY=V1,V2,...");
  const std::string key = spec.substr(0, eq);
  const auto values = split_list(spec.substr(eq + 1));
  if (values.empty()) bad("no values");
  auto ints = [&](int min) {
    std::vector<int> v;
    for (const auto& s : values) {
      size_t used = 0;
      int x = 0;
      try {
        x = std::stoi(s, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != s.size() || x < min) bad("'" + s + "' is not an integer >= " + std::to_string(min));
      if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
    }
    return v;
  };
  auto bools = [&] {
    std::vector<bool> v;
    for (const auto& s : values) {
      if (s != "true" && s != "false") bad("'" + s + "' is not true or false");
      const bool b = s == "true";
      if (std::find(v.begin(), v.end(), b) == v.end()) v.push_back(b);
    }
    return v;
  };
  if (key == "tp" || key == "tensor_model_parallel_size") space.tp = ints(1);
  else if (key == "pp" || key == "pipeline_model_parallel_size") space.pp = ints(1);
  else if (key == "vpp" || key == "virtual_pipeline_model_parallel_size") space.vpp = ints(1);
  else if (key == "cp" || key == "context_parallel_size") space.cp = ints(1);
  else if (key == "ep" || key == "expert_model_parallel_size") space.ep = ints(1);
  else if (key == "micro_batch" || key == "micro_batch_size") space.micro_batch = ints(1);
  else if (key == "zero_stage") {
    space.zero_stage = ints(0);
    for (int z : space.zero_stage)
      if (z > 3) bad("ZeRO stages are 0 to 3");
  } else if (key == "sequence_parallel") space.sequence_parallel = bools();
  else if (key == "chunked_loss") space.chunked_loss = bools();
  else if (key == "balanced_splits") {
    const auto v = bools();
    if (v.size() != 1) bad("give one value");
    space.balanced_splits = v.front();
  } else if (key == "recompute" || key == "recompute_granularity") {
    space.recompute.clear();
    for (const auto& s : values) {
      Recompute r = Recompute::None;
      if (s == "none") r = Recompute::None;
      else if (s == "selective") r = Recompute::Selective;
      else if (s == "full") r = Recompute::Full;
      else bad("'" + s + "' is not none, selective or full");
      if (std::find(space.recompute.begin(), space.recompute.end(), r) == space.recompute.end())
        space.recompute.push_back(r);
    }
  } else {
    bad("unknown dimension; use tp, pp, vpp, cp, ep, micro_batch, sequence_parallel, recompute, zero_stage, "
        "chunked_loss or balanced_splits");
  }
}

std::vector<Group> enumerate_groups(const Space& space, int gpus) {
  std::vector<Group> out;
  for (int tp : space.tp)
    for (int cp : space.cp)
      for (int pp : space.pp) {
        const long long mp = 1LL * tp * cp * pp;
        if (mp <= 0 || gpus % mp != 0) continue;
        for (int vpp : space.vpp) {
          if (pp == 1 && vpp > 1) continue;   // interleaving needs a pipeline
          for (int ep : space.ep)
            for (int mb : space.micro_batch)
              for (bool seq : space.sequence_parallel) {
                if (tp == 1 && seq) continue;   // sequence parallelism shards over TP
                for (Recompute rc : space.recompute) out.push_back(Group{tp, cp, pp, vpp, ep, mb, seq, rc});
              }
        }
      }
  return out;
}

int variants_per_group(const Space& space, const Group& g) {
  const int kinds = (space.balanced_splits && g.pp > 1) ? 2 : 1;
  return static_cast<int>(space.zero_stage.size() * space.chunked_loss.size()) * kinds;
}

}  // namespace fleetsim::search
