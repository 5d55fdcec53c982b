// Keys of `pool.interference:` (issue 28): jobs slowing each other on the shared fabric, and
// explicit jobs with fixed placements. The model: sim/pool/interference.hpp, sim/pool/README.md.
#include <algorithm>
#include <map>

#include "sim/config/pool_config.hpp"
#include "sim/config/resolve.hpp"
#include "sim/config/scenario_builder.hpp"
#include "sim/config/yaml_source.hpp"
#include "sim/core/error.hpp"
#include "sim/units/parse.hpp"

namespace fleetsim::config {
namespace {

std::shared_ptr<Schema> make(std::string name, std::string doc, std::vector<Field> fields) {
  auto s = std::make_shared<Schema>();
  s->name = std::move(name);
  s->doc = std::move(doc);
  s->fields = std::move(fields);
  return s;
}

std::shared_ptr<const Schema> explicit_job_schema() {
  return make("job", "A job with a fixed placement on whole nodes (a published pairwise experiment).", {
      text("name", "", "label, unique (reported as pool.iteration_time_alone.<name> etc.)"),
      integer("gpus", "8", "GPUs of the job: the nodes listed, times GPUs per node"),
      int_list("nodes", "pool node indices the job runs on (node k holds GPUs k*G .. k*G+G-1)"),
      quantity("start", dim<Seconds>(), "0 s", "submission time", 0, false),
      quantity("duration", dim<Seconds>(), "1 h", "run time alone"),
      quantity("compute_time", dim<Seconds>(), "1 s", "exposed compute per iteration (all but inter-node communication)", 0, false),
      quantity("comm_bytes", dim<Bytes>(), "0 B",
               "bytes every NIC sends across nodes per iteration (ring all-reduce of B bytes over n: 2 (n-1)/n B)", 0, false),
      choice("traffic", {"ring", "all-to-all"}, "ring", "ring: data-parallel ring in node order; all-to-all: expert parallel"),
  });
}

TrafficPattern traffic_of(const std::string& t) { return t == "all-to-all" ? TrafficPattern::AllToAll : TrafficPattern::Ring; }

std::shared_ptr<const Schema> stream_model_schema() {
  return make("model", "A representative model for the stream's training jobs from a size on (their traffic from the step model).", {
      integer("min_gpus", "1", "the row serves jobs of at least this many GPUs (up to the next row's)"),
      text("model", "", "catalog workload model (models/workloads/<name>.yaml) or a YAML file"),
      boolean("moe", "false", "the row serves the MoE share of the stream (all_to_all_share) instead of the dense jobs"),
  });
}

// The default mapping of job sizes to representative models (sim/pool/README.md, "Stream traffic
// from the step model"): Llama 3 at the sizes Meta and NVIDIA train each (NeMo's 8B recipes on 8-64
// GPUs, 70B on 64-1,024, 405B on 1,024 and more; Llama 3 Table 4: 405B on 8-16k), Mixtral 8x7B
// for the MoE share (NeMo's Mixtral recipes on 64-256 GPUs).
struct DefaultModel { int min_gpus; bool moe; const char* name; };
constexpr DefaultModel kDefaultModels[] = {
    {1, false, "llama3-8b"}, {128, false, "llama3-70b"}, {1024, false, "llama3-405b"}, {1, true, "mixtral-8x7b"}};

ModelSpec load_model(const std::string& name, const std::string& file, const std::string& key) {
  Field field = preset("x", "workloads", "stream model");
  field.section = kind_schema("workloads");
  Schema wrapper;
  wrapper.name = "stream model";
  wrapper.fields = {field};
  YAML::Node node(YAML::NodeType::Map);
  node["x"] = name;
  try {
    Resolver resolver;
    return build_model(resolver.resolve(node, wrapper, "workloads", "<workloads preset " + name + ">").sub("x"));
  } catch (const ConfigError& e) {
    throw ConfigError(file, key, "model '" + name + "': " + e.message());
  }
}

}  // namespace

std::shared_ptr<const Schema> pool_interference_schema() {
  Field jobs = table("jobs", explicit_job_schema(), "explicit jobs with fixed placements, besides the streams");
  jobs.required = false;
  Field models = table("models", stream_model_schema(),
                       "representative models per job size for the stream's traffic (default: llama3-8b from 1 GPU, "
                       "llama3-70b from 128, llama3-405b from 1024; mixtral-8x7b for the MoE share)");
  models.required = false;
  return make("interference", "Jobs slowing each other on the shared fabric (off by default).", {
      boolean("enabled", "false", "model the running jobs' traffic on the fabric and the slowdown where they share links"),
      choice("routing", {"ecmp", "adaptive"}, "ecmp",
             "ecmp: each flow hashed onto one cable of a switch bundle (seeded draw); adaptive: spread evenly"),
      choice("overlap", {"random", "aligned"}, "random",
             "random: other jobs count with their communication share; aligned: all communicate at once (worst case)"),
      choice("sharing", {"fair", "comm-priority"}, "fair",
             "fair: max-min per flow; comm-priority: jobs whose communication blocks the most GPU time first (Crux)"),
      real("comm_share", "0.2",
           "override: stream jobs' exposed inter-node communication / iteration time on an idle fabric; when set it wins "
           "over the step model (unset: each job's traffic from its size's representative model, see models)", 0, 1),
      real("all_to_all_share", "0",
           "stream jobs: share running the MoE representative (with comm_share set: all-to-all traffic instead of a ring)", 0, 1),
      models,
      jobs,
  });
}

void build_pool_interference(const ParamSet& p, Scenario& s, const std::string& file, bool present) {
  InterferenceSpec& o = s.pool.interference;
  o.enabled = p.flag("enabled");
  o.routing = p.text("routing") == "adaptive" ? FabricRouting::Adaptive : FabricRouting::Ecmp;
  o.overlap = p.text("overlap") == "aligned" ? CommOverlap::Aligned : CommOverlap::Random;
  o.sharing = p.text("sharing") == "comm-priority" ? LinkSharing::CommPriority : LinkSharing::Fair;
  o.comm_share = p.num("comm_share");
  o.traffic_from_step = p.at("comm_share").origin == "default" || p.at("comm_share").origin.empty();
  o.all_to_all_share = p.num("all_to_all_share");
  o.stream_models.clear();
  if (o.enabled && o.traffic_from_step) {
    const auto& rows = p.at("models").rows;
    if (rows.empty())
      for (const DefaultModel& d : kDefaultModels) {
        if (d.moe && !(o.all_to_all_share > 0)) continue;
        o.stream_models.push_back({d.min_gpus, d.moe, d.name, load_model(d.name, file, "pool.interference.models")});
      }
    for (size_t i = 0; i < rows.size(); ++i) {
      const std::string k = "pool.interference.models[" + std::to_string(i) + "]";
      const std::string name = rows[i].text("model");
      if (name.empty()) throw ConfigError(file, k + ".model", "every row needs a catalog model (models/workloads/<name>.yaml)");
      o.stream_models.push_back({rows[i].integer("min_gpus"), rows[i].flag("moe"), name, load_model(name, file, k + ".model")});
    }
    std::stable_sort(o.stream_models.begin(), o.stream_models.end(),
                     [](const StreamModel& a, const StreamModel& b) { return a.min_gpus < b.min_gpus; });
    if (o.all_to_all_share > 0 && std::none_of(o.stream_models.begin(), o.stream_models.end(),
                                               [](const StreamModel& m) { return m.moe; }))
      throw ConfigError(file, "pool.interference.models",
                        "all_to_all_share > 0 needs a row with moe: true (the MoE jobs' representative model)");
  }
  o.jobs.clear();
  for (const ParamSet& row : p.at("jobs").rows) {
    ExplicitJob e;
    e.name = row.text("name");
    e.gpus = row.integer("gpus");
    for (long long n : row.at("nodes").ints) e.nodes.push_back(static_cast<int>(std::clamp<long long>(n, -1, 1LL << 30)));
    e.start_s = row.get<Seconds>("start").si();
    e.duration_s = row.get<Seconds>("duration").si();
    e.compute_time_s = row.get<Seconds>("compute_time").si();
    e.comm_bytes = row.get<Bytes>("comm_bytes").si();
    e.traffic = traffic_of(row.text("traffic"));
    o.jobs.push_back(std::move(e));
  }
  if (!present) return;

  // Rules that need the rest of the scenario: every explicit job on existing nodes of its own.
  auto fail = [&](const std::string& key, const std::string& msg) { throw ConfigError(file, key, msg); };
  if (!o.jobs.empty() && !o.enabled)
    fail("pool.interference.enabled", "explicit jobs (pool.interference.jobs) need the interference model: give enabled: true");
  const int G = s.cluster.node.gpus_per_node;
  const int pool_gpus = s.pool.gpus > 0 ? s.pool.gpus : s.cluster.gpus;
  const int nodes = (pool_gpus / G) - s.pool.spare_nodes;
  std::map<int, std::vector<size_t>> holders;  // node -> explicit jobs on it
  for (size_t i = 0; i < o.jobs.size(); ++i) {
    const ExplicitJob& e = o.jobs[i];
    const std::string k = "pool.interference.jobs[" + std::to_string(i) + "]";
    const std::string who = "job '" + e.name + "'";
    if (e.name.empty()) fail(k + ".name", "every explicit job needs a name");
    for (size_t m = 0; m < i; ++m)
      if (o.jobs[m].name == e.name) fail(k + ".name", "the name '" + e.name + "' is already job " + std::to_string(m) + "'s");
    if (e.gpus > nodes * G)
      fail(k + ".gpus", who + " asks for " + std::to_string(e.gpus) + " GPUs, more than the pool's " +
                            std::to_string(nodes * G) + " schedulable GPUs");
    if (e.gpus > G && e.gpus % G != 0)
      fail(k + ".gpus", who + ": a job above one node takes whole nodes (a multiple of " + std::to_string(G) + " GPUs)");
    const size_t want = static_cast<size_t>((e.gpus + G - 1) / G);
    if (e.nodes.size() != want)
      fail(k + ".nodes", who + " has " + std::to_string(e.gpus) + " GPUs, so " + std::to_string(want) +
                             " node(s) must be listed; got " + std::to_string(e.nodes.size()));
    for (size_t a = 0; a < e.nodes.size(); ++a) {
      const int n = e.nodes[a];
      if (n < 0 || n >= nodes)
        fail(k + ".nodes", who + " names node " + std::to_string(n) + ", which does not exist: the pool has " +
                               std::to_string(nodes) + " schedulable nodes (0-" + std::to_string(nodes - 1) + ")");
      for (size_t b = 0; b < a; ++b)
        if (e.nodes[b] == n) fail(k + ".nodes", who + " lists node " + std::to_string(n) + " twice");
    }
    if (!(e.duration_s > 0)) fail(k + ".duration", who + " needs a run time > 0");
    // Issue 40: a job submitted after the pool's end never ran, silently.
    if (const double end = s.pool.warmup_s + s.pool.duration_s; !(e.start_s < end))
      fail(k + ".start", who + " starts at " + units::format(Seconds(e.start_s)) + ", at or after the end of the pool (" +
                             "pool.warmup + pool.duration = " + units::format(Seconds(end)) + "), so it would never run; "
                             "valid: 0 s to below " + units::format(Seconds(end)));
    if (!(e.compute_time_s + e.comm_bytes > 0))
      fail(k + ".compute_time", who + " has neither compute time nor communication per iteration");
    for (int n : e.nodes) {
      for (size_t m : holders[n]) {
        const ExplicitJob& o2 = o.jobs[m];
        const bool overlap = e.start_s < o2.start_s + o2.duration_s && o2.start_s < e.start_s + e.duration_s;
        if (overlap)
          fail(k + ".nodes", who + " and job '" + o2.name + "' both hold node " + std::to_string(n) +
                                 " at the same time (two jobs on one GPU); give them disjoint nodes or disjoint times");
      }
      holders[n].push_back(i);
    }
  }
}

}  // namespace fleetsim::config
