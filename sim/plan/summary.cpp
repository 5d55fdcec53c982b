#include "sim/plan/summary.hpp"

#include <algorithm>
#include <cstdio>

namespace fleetsim::plan {
namespace {

const char* unit_of(int c) {
  static const char* units[] = {"d", "MW", "USD", "GPUs"};
  return units[c];
}

double limit_of(const PlanSpec& p, int c) {
  switch (c) {
    case 0: return p.deadline.si() / 86400.0;
    case 1: return p.facility_power_cap.si() / 1e6;
    case 2: return p.budget.si();
    default: return p.gpus_max;
  }
}

std::string fmt(double v) {
  char buf[64];
  if (std::abs(v) >= 1e6) std::snprintf(buf, sizeof buf, "%.4g M", v / 1e6);
  else std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

bool meets_all_but(const Design& d, int skip) {
  for (int c = 0; c < 4; ++c)
    if (c != skip && d.excess[c] > 0) return false;
  return true;
}

}  // namespace

bool dominates(const Design& a, const Design& b) {
  const double ax[3] = {a.days, a.cost.run_usd, a.peak_facility_mw}, bx[3] = {b.days, b.cost.run_usd, b.peak_facility_mw};
  bool better = false;
  for (int k = 0; k < 3; ++k) {
    if (ax[k] > bx[k]) return false;
    if (ax[k] < bx[k]) better = true;
  }
  return better;
}

Summary summarize(const PlanSpec& p, const std::vector<Design>& ds) {
  Summary s;
  std::vector<size_t> feasible;
  for (size_t i = 0; i < ds.size(); ++i) {
    s.evaluated += ds[i].evaluated;
    if (ds[i].feasible()) feasible.push_back(i);
  }
  s.feasible = static_cast<int>(feasible.size());
  s.met = !feasible.empty();
  for (size_t i : feasible) {
    bool dominated = false;
    for (size_t j : feasible) dominated = dominated || dominates(ds[j], ds[i]);
    if (!dominated) s.pareto.push_back(i);
  }
  std::stable_sort(s.pareto.begin(), s.pareto.end(), [&](size_t a, size_t b) { return ds[a].days < ds[b].days; });
  for (size_t i : feasible)
    if (!s.cheapest_meeting_deadline || ds[i].cost.run_usd < ds[*s.cheapest_meeting_deadline].cost.run_usd)
      s.cheapest_meeting_deadline = i;
  for (size_t i = 0; i < ds.size(); ++i)
    if (ds[i].evaluated && meets_all_but(ds[i], 0) && (!s.fastest_in_budget || ds[i].days < ds[*s.fastest_in_budget].days))
      s.fastest_in_budget = i;

  if (s.met) {
    // Binding: what the cheapest evaluated design that beats the chosen one on cost violates.
    const Design& chosen = ds[*s.cheapest_meeting_deadline];
    std::optional<size_t> cheaper;
    for (size_t i = 0; i < ds.size(); ++i)
      if (ds[i].evaluated && ds[i].cost.run_usd < chosen.cost.run_usd &&
          (!cheaper || ds[i].cost.run_usd < ds[*cheaper].cost.run_usd))
        cheaper = i;
    if (!cheaper) {
      s.binding.push_back({"none", 0, "", "no constraint binds: the cheapest design evaluated meets them all"});
    } else {
      for (int c = 0; c < 4; ++c) {
        if (ds[*cheaper].excess[c] <= 0) continue;
        Binding b;
        b.constraint = constraint_name(kConstraints[c]);
        b.excess = ds[*cheaper].excess[c];
        b.unit = unit_of(c);
        b.text = b.constraint + " binds: the cheapest design evaluated (" + ds[*cheaper].gpu + " x " +
                 std::to_string(ds[*cheaper].gpus) + ", " + fmt(ds[*cheaper].cost.run_usd) + " USD) exceeds it by " +
                 fmt(b.excess) + " " + b.unit + " (limit " + fmt(limit_of(p, c)) + " " + b.unit + ")";
        s.binding.push_back(b);
      }
    }
    return s;
  }
  // Nothing meets every constraint: for each constraint, the smallest excess among the designs
  // that meet all the others (the deadline also from pruned designs' compute-only bound).
  for (int c = 0; c < 4; ++c) {
    std::optional<size_t> best;
    for (size_t i = 0; i < ds.size(); ++i) {
      const bool known = ds[i].evaluated || (c == 0 && ds[i].days_lower_bound > 0) || (c == 3 && ds[i].excess[3] > 0);
      if (!known || ds[i].excess[c] <= 0 || !meets_all_but(ds[i], c)) continue;
      if (!best || ds[i].excess[c] < ds[*best].excess[c]) best = i;
    }
    if (!best) continue;
    Binding b;
    b.constraint = constraint_name(kConstraints[c]);
    b.excess = ds[*best].excess[c];
    b.unit = unit_of(c);
    const double lim = limit_of(p, c);
    b.text = b.constraint + " cannot be met: the closest design (" + ds[*best].gpu + " x " + std::to_string(ds[*best].gpus) +
             ") exceeds it by " + fmt(b.excess) + " " + b.unit + " (" + fmt(100.0 * b.excess / std::max(1e-12, lim)) +
             "% over the limit of " + fmt(lim) + " " + b.unit + ")" +
             (ds[*best].evaluated ? "" : " even at ETTR 1 (compute-only bound)");
    s.binding.push_back(b);
  }
  // Every design misses two or more: the smallest excess of each constraint over all of them.
  for (int c = 0; c < 4 && s.binding.empty() && s.evaluated > 0; ++c) {
    std::optional<size_t> best;
    for (size_t i = 0; i < ds.size(); ++i)
      if (ds[i].evaluated && ds[i].excess[c] > 0 && (!best || ds[i].excess[c] < ds[*best].excess[c])) best = i;
    if (!best) continue;
    for (int k = 0; k < 4; ++k) {
      double least = -1;
      for (const auto& d : ds)
        if (d.evaluated && d.excess[k] > 0 && (least < 0 || d.excess[k] < least)) least = d.excess[k];
      if (least < 0) continue;
      const double lim = limit_of(p, k);
      s.binding.push_back({constraint_name(kConstraints[k]), least, unit_of(k),
                           std::string(constraint_name(kConstraints[k])) + " cannot be met together with the others: every "
                           "design misses two or more constraints; the smallest excess over this one is " + fmt(least) +
                           " " + unit_of(k) + " (limit " + fmt(lim) + " " + unit_of(k) + ")"});
    }
  }
  if (s.binding.empty())
    s.binding.push_back({"none", 0, "", "no design could be evaluated (see each design's status)"});
  return s;
}

}  // namespace fleetsim::plan
