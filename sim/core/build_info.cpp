#include "sim/core/build_info.hpp"

namespace fleetsim {

const char* fleetsim_version() { return FLEETSIM_VERSION; }
const char* git_revision() { return FLEETSIM_GIT_REVISION; }
const char* build_source_dir() { return FLEETSIM_SOURCE_DIR; }

}  // namespace fleetsim
