// The project carries its published data in data/validation/, a copy of the developers' upstream
// folder of published data. Where FLEETSIM_UPSTREAM_VALIDATION names that folder, every carried
// file must equal its upstream version byte for byte, so an upstream correction is noticed; where
// it is unset (a user's clone) there is nothing to compare and the test says so. The checkout
// itself never reads outside its tree.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/test_paths.hpp"

namespace fs = std::filesystem;

namespace {
std::string bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
}  // namespace

TEST_CASE("data/validation equals the upstream folder in FLEETSIM_UPSTREAM_VALIDATION byte for byte", "[data]") {
  const fs::path carried = fs::path(fleetsim::testing::source_dir()) / "data" / "validation";
  REQUIRE(fs::is_directory(carried));
  const char* env = std::getenv("FLEETSIM_UPSTREAM_VALIDATION");
  if (env == nullptr || *env == '\0') {
    WARN("FLEETSIM_UPSTREAM_VALIDATION is not set: no upstream folder to compare with (skipped)");
    return;
  }
  const fs::path upstream = env;
  REQUIRE(fs::is_directory(upstream));
  int compared = 0;
  for (const auto& e : fs::recursive_directory_iterator(carried)) {
    if (!e.is_regular_file()) continue;
    const fs::path rel = fs::relative(e.path(), carried);
    INFO("data/validation/" << rel.string());
    REQUIRE(fs::is_regular_file(upstream / rel));  // carried but no longer upstream
    const bool identical = bytes(e.path()) == bytes(upstream / rel);
    CHECK(identical);
    ++compared;
  }
  CHECK(compared > 0);
}
