// The project carries its published data in data/validation/, a copy of the upstream folder
// ../shared/validation that the developers keep beside the checkout. Where that folder is present,
// every carried file must equal its upstream version byte for byte, so an upstream correction is
// noticed; where it is absent (a user's clone) there is nothing to compare and the test says so.
#include <catch2/catch.hpp>

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

TEST_CASE("data/validation equals the upstream ../shared/validation byte for byte where it is present", "[data]") {
  const fs::path carried = fs::path(fleetsim::testing::source_dir()) / "data" / "validation";
  const fs::path upstream = fs::path(fleetsim::testing::source_dir()) / ".." / "shared" / "validation";
  REQUIRE(fs::is_directory(carried));
  if (!fs::is_directory(upstream)) {
    WARN("no ../shared/validation beside the checkout: nothing to compare (skipped)");
    return;
  }
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
