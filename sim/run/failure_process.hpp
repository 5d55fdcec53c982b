// The job's failure processes, aggregated into classes (DESIGN.md §3: never one process per GPU).
//
// Each profile component becomes one class whose count comes from the cluster shape (GPUs, nodes,
// NICs, leaf and spine switches, links, or the job itself). With lemon nodes a node-, GPU- or
// NIC-scoped component splits into a normal and a lemon class; the profile rate is the fleet
// average, so lemons redistribute failures without changing the total.
//
// Exponential classes superpose into one Poisson process of the whole job (Palm-Khintchine): the
// engine draws the next failure from the total rate and picks the class by its share.
// A Weibull class (shape k, mean 1/rate per component) is a superposition of `count` renewal
// processes started new at t = 0 (a fresh cohort, research note §1.4 (a)). Its intensity is
// approximated by count * [f(t) + F(t)/mu]: the first renewal exactly plus the later ones at
// their stationary rate 1/mu. Cumulative intensity:
//   Lambda(t) = count * [F(t) + t/mu - P(1/k, (t/theta)^k)],   mu = theta Gamma(1 + 1/k),
// exact for k = 1 (then Lambda = count t / mu) and tending to the stationary rate for large t.
// Replaced parts are not rejuvenated (documented simplification).
#pragma once

#include <string>
#include <vector>

#include "sim/run/run_model.hpp"

namespace fleetsim::run {

// failures.lemon_retirement.after_failures at most this (a node keeps this many failure times).
inline constexpr int kMaxRetirementFailures = 64;

struct FailureClass {
  std::string name;           // the component's name (also the by-cause key)
  std::string category;
  FailureMode mode = FailureMode::Crash;
  ComponentScope scope = ComponentScope::Gpu;
  bool lemon = false;
  double count = 0;           // components of this class in the job (may be fractional for lemons)
  double rate = 0;            // per component per second, after scale, multiplier and lemon factor
  double weibull_shape = 1.0;
  int nodes_lost = 0;         // nodes that leave the job for repair (0: a reset or restart fixes it)
  double theta = 0;           // Weibull scale: mean 1/rate = theta Gamma(1 + 1/k)
  int bin = -1;               // frailty bin of a split class (-1: not split)
  double per_node = 0;        // components of this class per node (split classes)
  [[nodiscard]] double total_rate() const { return count * rate; }  // long-run, per second
};

// One bin of the discretized frailty distribution: the share of nodes in it and their hazard
// multiplier (the conditional mean of Z over the bin, so E[Z] = 1 is kept exactly).
struct FrailtyBin {
  double mass = 0;
  double multiplier = 1;
  bool lemon = false;
};

// The bins of a profile's frailty distribution (two_point: 2; lognormal: quantile bins halving
// toward the tail, with an edge at the 1 - lemon_fraction quantile).
[[nodiscard]] std::vector<FrailtyBin> frailty_bins(const FailureProfile& p);

struct FailureModel {
  std::vector<FailureClass> classes;
  std::vector<FrailtyBin> bins;        // split classes refer to these (empty: no split)
  bool per_node = false;               // lemon_model per_node: counts are drawn per replication
  int nodes = 0;
  std::vector<int> exponential;        // indices of exponential classes
  std::vector<double> exp_cumulative;  // cumulative rates over `exponential`
  std::vector<int> weibull;            // indices of Weibull classes
  double exp_rate = 0;                 // total exponential rate, per second
  double total_rate = 0;               // long-run total, per second
  [[nodiscard]] Seconds mtti() const { return Seconds(total_rate > 0 ? 1.0 / total_rate : 1e300); }
};

// How many components of a scope the job has.
[[nodiscard]] double component_count(ComponentScope scope, const RunInputs& in);

[[nodiscard]] FailureModel build_failure_model(const RunInputs& in);

// Recomputes the exponential and total rates from the classes' counts and rates (after a
// replication sets its own per-node counts, or a node is retired).
void sum_rates(FailureModel& m);

// Picks an exponential class for a uniform draw u in (0, 1).
[[nodiscard]] int pick_exponential(const FailureModel& m, double u);

// Cumulative intensity of a Weibull class at time t (seconds from the run start), and the next
// arrival after t given an Exp(1) draw e: Lambda(next) = Lambda(t) + e (solved by bisection).
[[nodiscard]] double weibull_cumulative(const FailureClass& c, double t);
// `cumulative`, when given, holds Lambda(t) on entry (saving one evaluation) and Lambda(next) on exit.
[[nodiscard]] double weibull_next(const FailureClass& c, double t, double e, double* cumulative = nullptr);
// The intensity d Lambda / dt = count [f(t) + F(t)/mu].
[[nodiscard]] double weibull_intensity(const FailureClass& c, double t);

// Lambda of a Weibull class tabulated on a geometric time grid over [t0, t1], for fast inversion
// (linear interpolation between points 0.3% apart; exact enough for arrivals drawn from Exp(1)).
class WeibullTable {
 public:
  WeibullTable() = default;
  WeibullTable(const FailureClass& c, double t0, double t1, int points = 8192);
  [[nodiscard]] double cumulative(double t) const;  // Lambda(t); outside the grid: exact
  [[nodiscard]] double next(double t, double lambda_t, double e, double* lambda_next) const;

 private:
  FailureClass c_;
  std::vector<double> t_, lambda_;
};

}  // namespace fleetsim::run
