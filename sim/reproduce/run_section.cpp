// The run section of `fleetsim validate`: the run model's published cases in printed order.
#include "sim/reproduce/run_sources.hpp"
#include "sim/reproduce/sections.hpp"

namespace fleetsim::reproduce {

std::vector<ValidationCase> run_validation_cases() {
  std::vector<ValidationCase> all;
  for (auto part : {llama3_cases(), meta_rsc_cases(), meta_lemon_cases(), daly_cases(), ettr_estimator_cases(),
                     ft_hsdp_cases()})
    all.insert(all.end(), part.begin(), part.end());
  return all;
}

}  // namespace fleetsim::reproduce
