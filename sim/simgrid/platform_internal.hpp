// Shared between the two SimGrid translation units (platform.cpp, activities.cpp) only.
#pragma once

#include <simgrid/forward.h>

namespace fleetsim::sgtier {

// The host of a physical GPU on the platform built by build_platform (it must be part of it).
simgrid::s4u::Host* platform_host(int gpu);

}  // namespace fleetsim::sgtier
