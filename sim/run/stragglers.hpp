// Stragglers: a synchronous iteration is as slow as its slowest rank (research note §3).
#pragma once

#include "sim/run/specs.hpp"

namespace fleetsim::run {

// E[max of n i.i.d. standard normals], by numerical integration of the order-statistic density
// n phi(x) Phi(x)^(n-1) (David & Nagaraja, Order Statistics, 3rd ed., eq. 2.1.5). No sampling of n.
[[nodiscard]] double expected_max_normal(int n);

// Gumbel asymptotic form of the same (research note §3.1):
// mu + sigma (b_n + gamma / a_n), a_n = sqrt(2 ln n), b_n = a_n - (ln ln n + ln 4 pi) / (2 a_n).
[[nodiscard]] double gumbel_max_normal(int n);

// E[min(exp(sigma Z_(n)), cap)]: the expected slowest of n lognormal speed factors, truncated.
[[nodiscard]] double expected_slowest_lognormal(int n, double sigma, double cap);

// The compute slowdown a synchronous job of `gpus` ranks sees from static per-GPU speed spread
// (sigma_dev, lognormal) and per-iteration jitter (cv): each rank's per-iteration factor is
// s_i (1 + eps_i); over the ensemble of devices these are i.i.d., approximately lognormal with
// sigma = sqrt(sigma_dev^2 + cv^2), and the iteration waits for the slowest of the job's ranks.
// The expectation is over device draws (per replication the static part would vary around it).
[[nodiscard]] double straggler_slowdown(const StragglerSpec& spec, int gpus);

}  // namespace fleetsim::run
