#include "sim/config/plan_schema.hpp"

#include "sim/core/limits.hpp"
#include "sim/units/quantity.hpp"

namespace fleetsim::config {
namespace {

using S = std::shared_ptr<Schema>;
using DollarsPerWatt = decltype(Dollars() / Watts());
using DollarsPerSecond = decltype(Dollars() / Seconds());

Field optional(Field f) {
  f.required = false;
  return f;
}

S make(std::string name, std::string doc, std::vector<Field> fields) {
  auto s = std::make_shared<Schema>();
  s->name = std::move(name);
  s->doc = std::move(doc);
  s->fields = std::move(fields);
  return s;
}

S system_price_schema() {
  return make("system price", "Price of one server (node) of a GPU/node pair, and its rental alternative.", {
      text("gpu", "", "GPU preset name (models/gpus)"),
      text("node", "", "node preset name (models/nodes)"),
      quantity("server_price", dim<Dollars>(), "", "price of one node with its GPUs, CPUs, memory, NVLink (NICs apart)"),
      quantity("rental_price", dim<DollarsPerSecond>(), "", "rental price of one GPU, e.g. '2 USD/h'"),
      text("server_source", "", "where server_price comes from, with the date read"),
      text("rental_source", "", "where rental_price comes from, with the date read"),
  });
}

S cooling_price_schema() {
  return make("facility price", "Facility capex per MW of IT (critical) load, by cooling kind.", {
      choice("kind", {"air_chiller", "air_economizer", "liquid_direct", "immersion"}, "", "cooling plant kind"),
      quantity("capex_per_it_power", dim<DollarsPerWatt>(), "", "facility capex per IT power, e.g. 11 M USD per MW as '11 USD/W'"),
      text("source", "", "where the figure comes from, with the date read"),
  });
}

S workload_section() {
  return make("plan workload", "What is trained.", {
      text("model", "", "model preset name or YAML file (empty: the base scenario's model)"),
      quantity("tokens", dim<Tokens>(), "", "tokens to train, e.g. 15.6T"),
  });
}

S constraints_section() {
  return make("plan constraints", "What a design must meet (0 = no limit).", {
      quantity("deadline", dim<Seconds>(), "0 d", "wall-clock time to train the tokens", 0, false),
      quantity("facility_power_cap", dim<Watts>(), "0 MW", "peak facility power at the meter (PUE included)", 0, false),
      quantity("budget", dim<Dollars>(), "0 USD", "cost of the run (cost basis: evaluation.cost_basis)", 0, false),
      integer("gpus_max", "0", "GPUs bought, hot spares included", 0, limits::kMaxGpus),
  });
}

S system_row() {
  return make("plan system", "One GPU/node type to consider.", {
      preset("gpu", "gpus", "GPU preset"),
      preset("node", "nodes", "node (server or rack) preset"),
  });
}

S fabric_row() {
  return make("plan fabric", "One scale-out fabric to consider.", {
      preset("fabric", "fabrics", "fabric preset (rail-optimized or fat tree)"),
      real("oversubscription", "0", "leaf downlink:uplink ratio (0 = the preset's)", 0, 64),
  });
}

Field with_default_site() {
  Field f = preset("site", "sites", "site preset (climate, energy price, grid carbon)");
  f.default_text = "temperate";
  f.required = false;
  return f;
}

S cooling_row() {
  return make("plan cooling", "One cooling plant and site to consider.", {
      preset("cooling", "cooling", "cooling plant preset"),
      with_default_site(),
  });
}

S spare_row() {
  return make("plan spares", "One hot-spare share to consider.", {
      real("share", "0", "hot spare nodes as a share of the job's nodes, e.g. '2 %'", 0, 1),
  });
}

S checkpoint_row() {
  Field interval = quantity("interval", dim<Seconds>(), "daly", "time between checkpoints, or 'daly'");
  interval.choices = {"daly"};
  return make("plan checkpoint", "One checkpoint policy to consider.", {
      text("name", "checkpoint", "label in the tables"),
      interval,
      boolean("async", "true", "asynchronous persist after a short blocking snapshot"),
      quantity("write_time", dim<Seconds>(), "5 s", "blocking part of one checkpoint", 0, false),
      quantity("storage_bandwidth", dim<BytesPerSecond>(), "2 TB/s", "durable storage write bandwidth"),
      quantity("load_bandwidth", dim<BytesPerSecond>(), "2 TB/s", "storage read bandwidth on restart"),
      boolean("in_memory", "false",
              "in-memory tier (Gemini, SOSP'23): checkpoints to peers' host memory, restart loads from it; "
              "write and load bandwidth = nodes x in_memory_bandwidth_per_node"),
      quantity("in_memory_bandwidth_per_node", dim<BytesPerSecond>(), "25 GB/s",
               "host-memory tier bandwidth per node (one 200 Gb/s NIC's worth) [U]"),
  });
}

S failure_row() {
  return make("plan failures", "One failure profile to consider.", {
      preset("profile", "failures", "failure profile preset"),
      real("rate_scale", "1", "multiplies every component rate", 0, limits::kMaxRateScale),
  });
}

S precision_row() {
  return make("plan precision", "One training precision to consider.", {
      text("precision", "", "a workload.training.precision value (bf16, fp16, fp8; `fleetsim describe` lists the scenario's)"),
  });
}

S candidates_section() {
  return make("plan candidates", "The candidate space: every combination of the rows below is a design.", {
      table("systems", system_row(), "GPU/node types"),
      int_list("gpus", "GPU counts of the job (hot spares come on top)"),
      optional(table("precision", precision_row(), "training precisions (empty: the base scenario's); each gets its own layout search")),
      optional(table("fabrics", fabric_row(), "fabrics (empty: the base scenario's)")),
      optional(table("cooling", cooling_row(), "cooling plants and sites (empty: the base scenario's)")),
      optional(table("spares", spare_row(), "hot spare shares (empty: the base scenario's recovery)")),
      optional(table("checkpoint", checkpoint_row(), "checkpoint policies (empty: the base scenario's)")),
      optional(table("failures", failure_row(), "failure profiles (empty: the base scenario's)")),
  });
}

S evaluation_section() {
  return make("plan evaluation", "How each design is evaluated.", {
      integer("replications", "1", "Monte-Carlo replications of the run model per design", 1, 1000),
      integer("seed", "1", "base seed (every design uses the same)", 0),
      choice("cost_basis", {"owned", "rental"}, "owned",
             "owned: the run's share of capex (annualized at the cost of capital) + operations + energy; "
             "rental: GPU-hours x rental price"),
      choice("layout", {"search", "base"}, "search",
             "search: each system x GPU count gets the time-to-train search's layout; base: keep the base "
             "scenario's layout (it must divide every count)"),
      integer("search_top", "3", "layouts kept per system x GPU count from the time-to-train search", 1, 20),
  });
}

}  // namespace

std::shared_ptr<const Schema> price_schema() {
  static const std::shared_ptr<const Schema> s = make("prices", "A price catalog: every value with its source and date.", {
      table("systems", system_price_schema(), "server and rental prices per GPU/node pair"),
      quantity("nic_price", dim<Dollars>(), "", "one scale-out NIC (port) with its cable to the leaf"),
      quantity("switch_port_price", dim<Dollars>(), "", "one switch port (switch price / radix)"),
      quantity("optics_price", dim<Dollars>(), "", "one optical transceiver (two per switch-to-switch link)"),
      table("facility", cooling_price_schema(), "facility capex per IT power by cooling kind"),
      quantity("amortization", dim<Seconds>(), "", "period over which the IT capex (servers, network) is recovered, e.g. '5 yr'"),
      quantity("facility_amortization", dim<Seconds>(), "", "period over which the facility capex is recovered, e.g. '20 yr'"),
      real("cost_of_capital", "0", "annual rate, e.g. '8 %'", 0, 1),
      real("operations_share", "0", "operations (staff, maintenance, insurance) per year, share of capex", 0, 1),
  });
  return s;
}

std::shared_ptr<const Schema> plan_schema() {
  static const std::shared_ptr<const Schema> s = make("plan", "A cluster plan: workload, constraints, candidate space, prices.", {
      text("description", "", "what the plan asks"),
      text("base", "llama3-405b-16k", "scenario the designs start from (batch, recovery, facility details)"),
      section("workload", workload_section(), "model and tokens"),
      section("constraints", constraints_section(), "deadline, power cap, budget, GPU limit"),
      section("candidates", candidates_section(), "the space of designs"),
      [] {
        Field f = preset("prices", "prices", "price catalog (models/prices) with overrides");
        f.default_text = "default";
        f.required = false;
        return f;
      }(),
      section("evaluation", evaluation_section(), "replications, seed, cost basis"),
  });
  return s;
}

}  // namespace fleetsim::config
