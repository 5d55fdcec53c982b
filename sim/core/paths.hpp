// Where fleetsim finds what it reads at run time: the catalog (models/), the scenarios, the
// published ground truth (data/validation/) and the analysis scripts. One root holds them all:
//   1. $FLEETSIM_HOME when set (an explicit override; it must hold models/);
//   2. <prefix>/share/fleetsim when the binary runs from <prefix>/bin (an installed copy);
//   3. the source tree the binary was built from (a build tree).
// So `fleetsim` works from any working directory, from the build tree and from an install.
#pragma once

#include <string>

namespace fleetsim {

std::string home_dir();
// <home>/data: the project's own copy of the published tables it checks against (SOURCES.md there).
std::string data_dir();
// <home>/data/validation: published tables, mirrored from the project's upstream copy.
std::string validation_dir();

}  // namespace fleetsim
