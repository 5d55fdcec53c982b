// The pool section of `fleetsim validate`: the pool model's published cases in printed order.
#include "sim/reproduce/pool_sources.hpp"
#include "sim/reproduce/sections.hpp"

namespace fleetsim::reproduce {

std::vector<ValidationCase> pool_validation_cases() {
  std::vector<ValidationCase> all;
  for (auto part : {fgd_reproduction().cases, helios_reproduction().cases, lyra_reproduction().cases,
                    crux_reproduction().cases, stragglers_reproduction().cases})
    all.insert(all.end(), part.begin(), part.end());
  return all;
}

}  // namespace fleetsim::reproduce
