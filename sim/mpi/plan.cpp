#include "sim/mpi/plan.hpp"

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "sim/mpi/world.hpp"

#if FLEETSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace fleetsim::mpi {

#if FLEETSIM_HAVE_MPI
namespace {

// A design as text: numbers in round-trip form, strings length-prefixed ("5:hello").
struct Writer {
  std::ostringstream o;
  void num(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g ", v);
    o << buf;
  }
  void str(const std::string& s) { o << s.size() << ':' << s << ' '; }
};

struct Reader {
  std::istringstream in;
  explicit Reader(const std::string& s) : in(s) {}
  double num() {
    std::string t;
    in >> t;
    return std::stod(t);
  }
  std::string str() {
    size_t n = 0;
    char colon = 0;
    in >> n >> colon;
    std::string s(n, '\0');
    in.read(s.data(), static_cast<std::streamsize>(n));
    return s;
  }
};

// The fields evaluate_plan fills in (the choices come from the enumeration on every rank).
void encode(Writer& w, size_t index, const plan::Design& d) {
  w.num(static_cast<double>(index));
  for (const std::string* s : {&d.status, &d.layout, &d.fabric, &d.cooling, &d.site, &d.precision, &d.grade}) w.str(*s);
  w.num(static_cast<double>(d.sets.size()));
  for (const auto& s : d.sets) w.str(s);
  for (double v : {d.evaluated ? 1.0 : 0.0, d.oversubscription, static_cast<double>(d.spare_nodes),
                   static_cast<double>(d.gpus_per_node), d.iteration_s, d.mfu, d.ettr, d.days, d.pue, d.days_lower_bound,
                   d.peak_facility_mw, d.mean_facility_mw, d.peak_it_mw, d.facility_mwh, d.co2_t, d.effective_utilization,
                   d.tokens, d.cost.servers, d.cost.nics, d.cost.switches, d.cost.optics, d.cost.facility, d.cost.life_share,
                   d.cost.capital_it, d.cost.capital_facility, d.cost.operations, d.cost.energy, d.cost.rental,
                   d.cost.gpu_hours, d.cost.per_token, d.cost.run_usd, d.excess[0], d.excess[1], d.excess[2], d.excess[3],
                   d.interval_level, d.days_lo, d.days_hi, d.cost_lo, d.cost_hi, d.deadline_probability})
    w.num(v);
}

void decode_into(Reader& r, std::vector<plan::Design>& designs) {
  const auto index = static_cast<size_t>(r.num());
  plan::Design& d = designs.at(index);
  for (std::string* s : {&d.status, &d.layout, &d.fabric, &d.cooling, &d.site, &d.precision, &d.grade}) *s = r.str();
  d.sets.resize(static_cast<size_t>(r.num()));
  for (auto& s : d.sets) s = r.str();
  d.evaluated = r.num() != 0;
  d.oversubscription = r.num();
  d.spare_nodes = static_cast<int>(r.num());
  d.gpus_per_node = static_cast<int>(r.num());
  for (double* v : {&d.iteration_s, &d.mfu, &d.ettr, &d.days, &d.pue, &d.days_lower_bound, &d.peak_facility_mw,
                    &d.mean_facility_mw, &d.peak_it_mw, &d.facility_mwh, &d.co2_t, &d.effective_utilization, &d.tokens,
                    &d.cost.servers, &d.cost.nics, &d.cost.switches, &d.cost.optics, &d.cost.facility, &d.cost.life_share,
                    &d.cost.capital_it, &d.cost.capital_facility, &d.cost.operations, &d.cost.energy, &d.cost.rental,
                    &d.cost.gpu_hours, &d.cost.per_token, &d.cost.run_usd, &d.excess[0], &d.excess[1], &d.excess[2],
                    &d.excess[3], &d.interval_level, &d.days_lo, &d.days_hi, &d.cost_lo, &d.cost_hi, &d.deadline_probability})
    *v = r.num();
}

}  // namespace

plan::Evaluation evaluate_plan_on_ranks(const plan::PlanSpec& spec, plan::EvaluateOptions options) {
  const World w = world();
  if (w.size <= 1) return plan::evaluate_plan(spec, options);
  options.part = w.rank;
  options.parts = w.size;
  if (!w.root()) options.progress = nullptr;
  plan::Evaluation ev = plan::evaluate_plan(spec, options);
  int counts[3] = {ev.layout_searches, ev.runs, ev.pruned}, sums[3] = {};
  MPI_Reduce(counts, sums, 3, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  Writer wr;
  int mine = 0;
  for (size_t i = 0; i < ev.designs.size(); ++i)
    if (ev.designs[i].status != "elsewhere") encode(wr, i, ev.designs[i]), ++mine;
  const std::string all = gather_to_root(std::to_string(mine) + " " + wr.o.str() + "\n");
  if (!w.root()) return ev;
  ev.layout_searches = sums[0], ev.runs = sums[1], ev.pruned = sums[2];
  // Rank 0's text comes first; every rank's block starts with its count.
  Reader r(all);
  for (int q = 0; q < w.size; ++q) {
    const int n = static_cast<int>(r.num());
    for (int k = 0; k < n; ++k) decode_into(r, ev.designs);
  }
  return ev;
}

#else

plan::Evaluation evaluate_plan_on_ranks(const plan::PlanSpec& spec, plan::EvaluateOptions options) {
  return plan::evaluate_plan(spec, options);
}

#endif

}  // namespace fleetsim::mpi
