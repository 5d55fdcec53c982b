// Speed of the facility model: one 54-day run of 98,304 GPUs at hourly steps with seasonal and
// diurnal weather (the evaluation `fleetsim run` does once per scenario). Target: milliseconds.
// This used to be a timed unit test; speed is measured here, not by tests (DEVELOPERS.md).
//
// Usage: bench_facility [repeats]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "sim/facility/facility_model.hpp"
#include "tests/unit/facility_fixtures.hpp"

using namespace fleetsim;
using namespace fleetsim::facility;

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 21;
  FacilityInputs in = test::facility_test_inputs(98304);
  in.facility.site.seasonal_amplitude = Kelvin(8);
  in.facility.site.diurnal_amplitude = Kelvin(4);
  std::vector<double> ms;
  std::size_t steps = 0;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const FacilityResult r = evaluate_facility(in);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    steps = r.series.front().values.size();
  }
  std::sort(ms.begin(), ms.end());
  std::printf("98,304 GPUs x 54 d, hourly (%zu steps): median %.2f ms, min %.2f, max %.2f over %d runs  target 50 ms %s\n",
              steps, ms[ms.size() / 2], ms.front(), ms.back(), repeats, ms[ms.size() / 2] <= 50.0 ? "ok" : "SLOW");
}
