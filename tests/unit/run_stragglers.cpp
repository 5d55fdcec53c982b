// Order statistics of the slowest rank (sim/run/stragglers.hpp).
#include <catch2/catch.hpp>

#include "sim/run/stragglers.hpp"

using namespace fleetsim;
using namespace fleetsim::run;

TEST_CASE("the expected maximum of two standard normals is one over root pi", "[unit][run]") {
  CHECK(expected_max_normal(2) == Approx(1.0 / std::sqrt(3.14159265358979)).epsilon(1e-4));
}

TEST_CASE("the expected maximum of normals matches published order-statistic tables", "[unit][run]") {
  // Harter (1961) / David & Nagaraja tables: E[Z_(8:8)] = 1.4236, E[Z_(100:100)] = 2.5076.
  CHECK(expected_max_normal(8) == Approx(1.4236).margin(1e-3));
  CHECK(expected_max_normal(100) == Approx(2.5076).margin(1e-3));
}

TEST_CASE("the Gumbel form approaches the exact maximum at large job sizes", "[unit][run]") {
  // Research note §3.1 table: 16,384 -> 3.99, 100,000 -> 4.40 (Gumbel form).
  CHECK(gumbel_max_normal(16384) == Approx(3.99).margin(0.01));
  CHECK(gumbel_max_normal(100000) == Approx(4.40).margin(0.01));
  CHECK(expected_max_normal(16384) == Approx(gumbel_max_normal(16384)).margin(0.1));
}

TEST_CASE("one percent per-step jitter costs about four percent at 16k GPUs", "[unit][run]") {
  StragglerSpec s;
  s.step_jitter_cv = 0.01;
  const double slow = straggler_slowdown(s, 16384);
  CHECK(slow == Approx(1.04).margin(0.005));
}

TEST_CASE("no variation means no straggler slowdown", "[unit][run]") {
  CHECK(straggler_slowdown(StragglerSpec{}, 131072) == 1.0);
}

TEST_CASE("the slowest device is capped at the truncation slowdown", "[unit][run]") {
  StragglerSpec s;
  s.device_speed_sigma = 0.5;
  s.device_speed_max_slowdown = 1.5;
  CHECK(straggler_slowdown(s, 100000) == Approx(1.5).margin(1e-3));
}

TEST_CASE("larger jobs wait longer for their slowest rank", "[unit][run]") {
  StragglerSpec s;
  s.device_speed_sigma = 0.03;
  CHECK(straggler_slowdown(s, 1024) < straggler_slowdown(s, 16384));
  CHECK(straggler_slowdown(s, 16384) < straggler_slowdown(s, 131072));
}
