#include "sim/config/params.hpp"

#include <stdexcept>

namespace fleetsim::config {

const Param& ParamSet::at(const std::string& key) const {
  auto it = values.find(key);
  if (it == values.end()) throw std::logic_error("scenario parameter '" + key + "' was not resolved");
  return it->second;
}

}  // namespace fleetsim::config
