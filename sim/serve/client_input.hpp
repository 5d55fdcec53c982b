// What the studio accepts from a browser (sim/serve/README.md, "Security"): catalog names and
// scenario text, never a file system path. A scenario may name files (a preset as a path,
// `extends:`, facility.site.hourly_csv, pool.training.trace); from a client each of those is
// refused with a ConfigError naming the key, before the loader could open anything.
#pragma once

#include <string>
#include <vector>

namespace fleetsim::serve {

// Bounds on one request's inputs (the HTTP layer bounds the bytes; these bound the parts).
inline constexpr size_t kMaxUploadBytes = 256 * 1024;  // a scenario file is a few kB
inline constexpr size_t kMaxSets = 64;
inline constexpr size_t kMaxSetBytes = 4096;

// True when a scalar reads as a path rather than a name or a quantity: it starts with '/', '~'
// or '.', holds "..", a backslash or a NUL, ends in a file extension (.yaml, .csv, ...), or has a
// '/' that is not part of a unit after a number ("3.35 TB/s", "0.4 kg/kWh", "normal(2 TB/s, 5%)").
[[nodiscard]] bool looks_like_path(const std::string& value);

// A catalog scenario or plan name: letters, digits, '-', '_' and '.', no "..", at most 100.
[[nodiscard]] bool is_catalog_name(const std::string& name);

// Checks one `--set key=value` from a client. Throws ConfigError (file "--set key=value").
void check_client_set(const std::string& set);

// Checks an uploaded scenario's text: every scalar (no paths), file-valued keys absent, and
// `extends:` only a shipped scenario's name. `origin` names the upload in messages.
void check_client_scenario_text(const std::string& text, const std::string& origin);

}  // namespace fleetsim::serve
