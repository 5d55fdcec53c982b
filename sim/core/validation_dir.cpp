#include <cstdlib>
#include <string>

#include "sim/core/validation_case.hpp"

namespace fleetsim {

std::string validation_dir() {
  if (const char* env = std::getenv("FLEETSIM_SHARED"); env && *env) return std::string(env) + "/validation";
  return std::string(FLEETSIM_SHARED_DIR) + "/validation";
}

}  // namespace fleetsim
