// Facts fixed when the binary was built: version, git revision, the source tree it came from.
// They live in one translation unit (build_info.cpp) so that a path or revision change rebuilds
// one file, and so that two checkouts of the same sources compile to the same objects elsewhere.
#pragma once

namespace fleetsim {

const char* fleetsim_version();
const char* git_revision();
// The source tree the binary was built from (the fallback home of the catalog and data).
const char* build_source_dir();

}  // namespace fleetsim
