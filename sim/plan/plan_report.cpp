#include "sim/plan/plan_report.hpp"

#include <algorithm>
#include <cstdio>

#include "sim/plan/design_run.hpp"
#include "sim/results/hdf5_writer.hpp"
#include "sim/uncertainty/annotate.hpp"

namespace fleetsim::plan {
namespace {

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string money(double usd) {
  char buf[64];
  if (usd >= 1e9) std::snprintf(buf, sizeof buf, "%.2fB", usd / 1e9);
  else if (usd >= 1e6) std::snprintf(buf, sizeof buf, "%.1fM", usd / 1e6);
  else std::snprintf(buf, sizeof buf, "%.0f", usd);
  return buf;
}

Json design_json(const Design& d, size_t index) {
  Json j = Json::object();
  j["index"] = static_cast<long long>(index);
  j["gpu"] = d.gpu;
  j["node"] = d.node;
  j["precision"] = d.precision;
  j["gpus"] = d.gpus;
  j["spare_nodes"] = d.spare_nodes;
  j["gpus_bought"] = d.gpus_bought();
  j["fabric"] = d.fabric;
  j["oversubscription"] = d.oversubscription;
  j["cooling"] = d.cooling;
  j["site"] = d.site;
  j["checkpoint"] = d.checkpoint;
  j["failures"] = d.failures;
  j["layout"] = d.layout;
  j["status"] = d.status;
  j["evaluated"] = d.evaluated;
  j["feasible"] = d.feasible();
  j["days_lower_bound"] = d.days_lower_bound;
  j["iteration_s"] = d.iteration_s;
  j["mfu"] = d.mfu;
  if (d.evaluated) {
    j["days"] = d.days;
    j["ettr"] = d.ettr;
    j["pue"] = d.pue;
    j["peak_facility_mw"] = d.peak_facility_mw;
    j["peak_it_mw"] = d.peak_it_mw;
    j["mean_facility_mw"] = d.mean_facility_mw;
    j["facility_energy_mwh"] = d.facility_mwh;
    j["co2_t"] = d.co2_t;
    j["effective_utilization"] = d.effective_utilization;
    j["cost_usd"] = d.cost.run_usd;
    j["cost_per_token_usd"] = d.cost.per_token;
    j["gpu_hours"] = d.cost.gpu_hours;
    j["rental_usd"] = d.cost.rental;
    j["owned_usd"] = d.cost.owned();
    j["life_share"] = d.cost.life_share;
    Json capex = Json::object();
    capex["servers"] = d.cost.servers;
    capex["nics"] = d.cost.nics;
    capex["switches"] = d.cost.switches;
    capex["optics"] = d.cost.optics;
    capex["facility"] = d.cost.facility;
    capex["total"] = d.cost.capex();
    j["capex_usd"] = capex;
    Json run = Json::object();
    for (const auto& item : d.cost.waterfall()) run[item.name] = item.usd;
    j["run_cost_usd"] = run;
    // How sure (DESIGN.md §5): `<key>_interval` beside days and cost_usd, the deadline's chance.
    j = uncertainty::with_intervals(j, {{"days", {d.days_lo, d.days_hi, d.interval_level}},
                                        {"cost_usd", {d.cost_lo, d.cost_hi, d.interval_level}}});
    j["deadline_probability"] = d.deadline_probability >= 0 ? Json(d.deadline_probability) : Json();
    j["provenance_grade"] = d.grade;
  }
  Json ex = Json::object();
  for (int c = 0; c < 4; ++c) ex[constraint_name(kConstraints[c])] = d.excess[c];
  j["excess"] = ex;
  Json sets = Json::array();
  for (const auto& s : d.sets) sets.push_back(s);
  j["sets"] = sets;
  return j;
}

std::string probability(double p) { return p < 0 ? "-" : fixed(p, 2); }

std::string row(const Design& d, size_t i) {
  char buf[640];
  const std::string days = fixed(d.days, 1) + " [" + fixed(d.days_lo, 1) + "-" + fixed(d.days_hi, 1) + "]";
  const std::string cost = money(d.cost.run_usd) + " [" + money(d.cost_lo) + "-" + money(d.cost_hi) + "]";
  std::snprintf(buf, sizeof buf, "%5zu  %-14s %-5s %6d %5d  %-19s %4.1f  %-24s %-13s %17s %21s %6s %7.2f  %5.1f%%  %6.4f  %5.3f  %s",
                i, d.gpu.c_str(), d.precision.c_str(), d.gpus, d.spare_nodes, d.fabric.c_str(), d.oversubscription,
                d.cooling.c_str(), d.checkpoint.c_str(), days.c_str(), cost.c_str(), probability(d.deadline_probability).c_str(),
                d.peak_facility_mw, 100 * d.mfu, d.ettr, d.pue, d.layout.c_str());
  return buf;
}

}  // namespace

Json to_json(const PlanSpec& p, const Evaluation& ev, const Summary& s) {
  Json plan = Json::object();
  plan["file"] = p.file;
  plan["description"] = p.description;
  plan["tokens"] = p.tokens.si();
  Json c = Json::object();
  c["deadline_days"] = p.deadline.si() / 86400.0;
  c["facility_power_cap_mw"] = p.facility_power_cap.si() / 1e6;
  c["budget_usd"] = p.budget.si();
  c["gpus_max"] = p.gpus_max;
  plan["constraints"] = c;
  plan["cost_basis"] = p.rental_basis ? "rental" : "owned";
  plan["prices"] = p.prices.name;
  plan["evaluation"] = std::string("layout: time-to-train search per system x GPU count; run: discrete-event run model, ") +
                       std::to_string(p.replications) + " replication(s), seed " + std::to_string(p.seed) +
                       "; facility: facility model";
  Json designs = Json::array();
  for (size_t i = 0; i < ev.designs.size(); ++i) designs.push_back(design_json(ev.designs[i], i));
  plan["designs"] = designs;
  Json pareto = Json::array();
  for (size_t i : s.pareto) pareto.push_back(static_cast<long long>(i));
  plan["pareto"] = pareto;
  plan["met"] = s.met;
  // The chance the chosen design (the cheapest meeting every constraint) meets the deadline
  // (sim/plan/README.md, "How sure"); null without a choice or a deadline.
  plan["deadline_probability"] = s.cheapest_meeting_deadline && ev.designs[*s.cheapest_meeting_deadline].deadline_probability >= 0
                                     ? Json(ev.designs[*s.cheapest_meeting_deadline].deadline_probability)
                                     : Json();
  plan["interval_level"] = kIntervalLevel;
  Json dups = Json::array();
  for (const auto& n : p.duplicates) dups.push_back(n);
  plan["duplicates"] = dups;
  plan["cheapest_meeting_deadline"] = s.cheapest_meeting_deadline ? Json(static_cast<long long>(*s.cheapest_meeting_deadline)) : Json();
  plan["fastest_in_budget"] = s.fastest_in_budget ? Json(static_cast<long long>(*s.fastest_in_budget)) : Json();
  Json binding = Json::array();
  for (const auto& b : s.binding) {
    Json j = Json::object();
    j["constraint"] = b.constraint;
    j["excess"] = b.excess;
    j["unit"] = b.unit;
    j["text"] = b.text;
    binding.push_back(j);
  }
  plan["binding"] = binding;
  Json counts = Json::object();
  counts["designs"] = static_cast<long long>(ev.designs.size());
  counts["layout_searches"] = ev.layout_searches;
  counts["runs"] = ev.runs;
  counts["pruned"] = ev.pruned;
  counts["evaluated"] = s.evaluated;
  counts["feasible"] = s.feasible;
  plan["counts"] = counts;
  Json root = Json::object();
  root["plan"] = plan;
  return root;
}

void print_table(const PlanSpec& p, const Evaluation& ev, const Summary& s, std::ostream& out) {
  out << "fleetsim plan: " << (p.description.empty() ? p.file : p.description) << "\n";
  out << "  " << p.file << ": " << ev.designs.size() << " designs, " << ev.layout_searches << " layout searches, "
      << ev.runs << " run through the run model (" << p.replications << " replication(s) each), " << ev.pruned
      << " pruned before it; " << s.feasible << " meet every constraint\n";
  for (const auto& n : p.duplicates) out << "  note: " << n << "\n";
  out << "  constraints: deadline " << (p.deadline.si() > 0 ? fixed(p.deadline.si() / 86400, 1) + " d" : "none")
      << ", facility power cap " << (p.facility_power_cap.si() > 0 ? fixed(p.facility_power_cap.si() / 1e6, 1) + " MW" : "none")
      << ", budget " << (p.budget.si() > 0 ? money(p.budget.si()) + " USD" : "none") << ", gpus_max "
      << (p.gpus_max > 0 ? std::to_string(p.gpus_max) : "none") << "; cost basis " << (p.rental_basis ? "rental" : "owned")
      << " (prices " << p.prices.name << ")\n\n";
  const char* head =
      "    #  gpu            prec    gpus spare  fabric            over  cooling                  checkpoint    days [80%]"
      "        cost USD [80%]  P(dl)  peak MW    MFU    ETTR    PUE  layout";
  out << "Pareto set over (days, cost, peak facility MW) of the designs that meet every constraint\n" << head << "\n";
  if (s.pareto.empty()) out << "  (none)\n";
  for (size_t i : s.pareto) out << row(ev.designs[i], i) << "\n";
  out << "\n";
  if (s.cheapest_meeting_deadline) {
    const Design& d = ev.designs[*s.cheapest_meeting_deadline];
    out << "cheapest design that meets the deadline (and every other constraint): #" << *s.cheapest_meeting_deadline << " "
        << d.gpu << " x " << d.gpus << ", " << fixed(d.days, 1) << " d, " << money(d.cost.run_usd) << " USD ("
        << money(d.cost.capex()) << " USD capex, " << fixed(100 * d.cost.life_share, 1) << "% of its life; rental would be "
        << money(d.cost.rental) << " USD), " << fixed(d.peak_facility_mw, 1) << " MW peak, "
        << fixed(d.cost.per_token * 1e6, 3) << " USD per million tokens\n";
    out << "  trains in " << d.precision << "; " << fixed(100 * d.interval_level, 0) << "% interval " << fixed(d.days_lo, 1) << "-"
        << fixed(d.days_hi, 1) << " d, " << money(d.cost_lo) << "-" << money(d.cost_hi) << " USD (step model: " << d.grade
        << ", " << p.replications << " run replication(s))";
    if (d.deadline_probability >= 0)
      out << "; probability it meets the " << fixed(p.deadline.si() / 86400, 1) << " d deadline: " << fixed(d.deadline_probability, 2);
    out << "\n";
  }
  if (s.fastest_in_budget) {
    const Design& d = ev.designs[*s.fastest_in_budget];
    out << "fastest design inside the budget, power and GPU limits: #" << *s.fastest_in_budget << " " << d.gpu << " x "
        << d.gpus << ", " << fixed(d.days, 1) << " d, " << money(d.cost.run_usd) << " USD\n";
  }
  // Designs that did not run, by reason (system x count), so an empty answer explains itself.
  std::vector<std::pair<std::string, int>> reasons;
  for (const auto& d : ev.designs) {
    if (d.evaluated) continue;
    const std::string r = d.gpu + " x " + std::to_string(d.gpus) + ": " + d.status;
    auto it = std::find_if(reasons.begin(), reasons.end(), [&](const auto& x) { return x.first == r; });
    if (it == reasons.end()) reasons.emplace_back(r, 1);
    else ++it->second;
  }
  if (!reasons.empty()) out << "not run:\n";
  for (const auto& [r, n] : reasons) out << "  " << n << " design(s) " << r << "\n";
  if (!s.met) out << "NO DESIGN MEETS EVERY CONSTRAINT\n";
  for (const auto& b : s.binding) out << (s.met ? "binding: " : "unmet: ") << b.text << "\n";
}

void write_plan_file(const std::string& path, const PlanSpec& p, const Evaluation& ev, const Summary& s,
                     const std::string& command) {
  ResultsFile f(path);
  f.write_meta({p.file, "", static_cast<unsigned long long>(p.seed), p.replications, command});
  std::vector<std::string> gpu, node, fabric, cooling, site, checkpoint, layout, status, precision;
  std::vector<double> gpus, spares, over, days, cost, mw, mfu, ettr, pue, capex, energy, rental, feasible;
  std::vector<double> days_lo, days_hi, cost_lo, cost_hi, p_deadline;
  for (const auto& d : ev.designs) {
    gpu.push_back(d.gpu), node.push_back(d.node), fabric.push_back(d.fabric), cooling.push_back(d.cooling);
    site.push_back(d.site), checkpoint.push_back(d.checkpoint), layout.push_back(d.layout), status.push_back(d.status);
    gpus.push_back(d.gpus), spares.push_back(d.spare_nodes), over.push_back(d.oversubscription);
    days.push_back(d.evaluated ? d.days : 0), cost.push_back(d.cost.run_usd), mw.push_back(d.peak_facility_mw);
    mfu.push_back(d.mfu), ettr.push_back(d.ettr), pue.push_back(d.pue), capex.push_back(d.cost.capex());
    energy.push_back(d.cost.energy), rental.push_back(d.cost.rental), feasible.push_back(d.feasible() ? 1 : 0);
    precision.push_back(d.precision);
    days_lo.push_back(d.days_lo), days_hi.push_back(d.days_hi), cost_lo.push_back(d.cost_lo), cost_hi.push_back(d.cost_hi);
    p_deadline.push_back(d.evaluated ? d.deadline_probability : -1);
  }
  f.write_table("designs",
                {{"gpu", "", "GPU preset", gpu}, {"node", "", "node preset", node}, {"gpus", "count", "GPUs of the job", gpus},
                 {"spare_nodes", "count", "hot spare nodes", spares}, {"fabric", "", "fabric preset", fabric},
                 {"oversubscription", "1", "leaf oversubscription", over}, {"cooling", "", "cooling preset", cooling},
                 {"site", "", "site preset", site}, {"checkpoint", "", "checkpoint policy", checkpoint},
                 {"layout", "", "parallel layout", layout}, {"status", "", "ok or why not evaluated", status},
                 {"days", "d", "wall-clock to train the tokens (0 = not run)", days},
                 {"cost_usd", "USD", "cost of the run (plan's basis)", cost},
                 {"peak_facility_mw", "MW", "peak facility power at the meter", mw}, {"mfu", "1", "model FLOPs utilization", mfu},
                 {"ettr", "1", "effective training time ratio", ettr}, {"pue", "1", "energy-weighted PUE", pue},
                 {"capex_usd", "USD", "capex of the cluster and facility", capex},
                 {"energy_usd", "USD", "energy cost of the run", energy}, {"rental_usd", "USD", "rental alternative", rental},
                 {"feasible", "1", "meets every constraint", feasible},
                 {"precision", "", "workload.training.precision", precision},
                 {"days_lo", "d", "80% interval of days, low end", days_lo}, {"days_hi", "d", "80% interval of days, high end", days_hi},
                 {"cost_usd_lo", "USD", "80% interval of the run cost, low end", cost_lo},
                 {"cost_usd_hi", "USD", "80% interval of the run cost, high end", cost_hi},
                 {"deadline_probability", "1", "probability of meeting the deadline (-1: no deadline or not run)", p_deadline}},
                "one row per design, in enumeration order");
  f.write_table("constraints",
                {{"constraint", "", "deadline, facility_power_cap, budget, gpus_max", std::vector<std::string>{"deadline", "facility_power_cap", "budget", "gpus_max"}},
                 {"limit", "", "d, MW, USD, GPUs (0 = none)",
                  std::vector<double>{p.deadline.si() / 86400.0, p.facility_power_cap.si() / 1e6, p.budget.si(),
                                      static_cast<double>(p.gpus_max)}}},
                "the plan's constraints");
  std::vector<double> pareto(s.pareto.begin(), s.pareto.end());
  f.write_table("pareto", {{"design", "index", "row of designs", pareto}}, "Pareto set over (days, cost, peak MW)");
  if (s.cheapest_meeting_deadline) {
    const Design& d = ev.designs[*s.cheapest_meeting_deadline];
    std::vector<std::string> names = {"GPU-hours"};
    std::vector<double> usd = {0}, hours = {d.cost.gpu_hours};
    for (const auto& item : d.cost.waterfall()) names.push_back(item.name), usd.push_back(item.usd), hours.push_back(0);
    f.write_table("waterfall", {{"item", "", "cost component", names}, {"usd", "USD", "dollars", usd},
                                {"gpu_hours", "h", "GPU-hours of the run", hours}},
                  "cost waterfall of the cheapest design meeting the deadline: GPU-hours to dollars");
  }
  f.commit();
}

}  // namespace fleetsim::plan
