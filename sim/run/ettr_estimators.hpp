// Analytic ETTR estimators, used to check the simulation (research note §2.2, §7 V2).
#pragma once

#include "sim/units/quantity.hpp"

namespace fleetsim::run {

// Kokolis et al. HPCA'25 (Meta), expected ETTR of a job of N nodes failing at r_f per node and
// per unit time, with restart overhead u0 (queue time q included), checkpoint interval dt and
// blocking write w:  E[ETTR] ~ (1 - N r_f (u0 + dt/2)) / (1 + w/dt).
// First order, small-loss: valid when N r_f (u0 + dt/2) << 1.
[[nodiscard]] double meta_expected_ettr(double nodes, PerSecond rate_per_node, Seconds u0,
                                        Seconds interval, Seconds write);

// Exact ETTR of Daly's model (FGCS 2006, eq. 13 with T_s / T_w): exponential interrupts of mean
// M that can also strike during the restart R and the dump delta; work committed per interval tau.
//   ETTR = tau / (M e^{R/M} (e^{(tau+delta)/M} - 1))
[[nodiscard]] double daly_ettr(Seconds mtti, Seconds interval, Seconds dump, Seconds restart);

// A continuous-time Markov chain of the job's states solved for its stationary distribution with
// Eigen: the checkpoint cycle (compute tau then blocking dump delta) as K Erlang stages, the
// restart R as J Erlang stages, a failure (rate 1/M) from any state to the first restart stage.
// Work tau is committed on each cycle completion, so ETTR = pi(last cycle stage) K/(tau+delta) tau.
// Erlang stages make the deterministic durations exact as K, J grow (variance L^2/K).
struct MarkovEttrInputs {
  Seconds mtti;
  Seconds interval;   // compute time per checkpoint cycle
  Seconds dump;       // blocking checkpoint time
  Seconds restart;    // all recovery phases of one interruption
  int cycle_stages = 400;
  int restart_stages = 100;
};
[[nodiscard]] double markov_ettr(const MarkovEttrInputs& in);

}  // namespace fleetsim::run
