// `fleetsim plan` on 3 MPI ranks (issue 26): the system x count groups are split over the ranks
// and rank 0 gathers the designs; the JSON and the HDF5 file equal one process's byte for byte.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "sim/mpi/world.hpp"
#include "tests/test_paths.hpp"

namespace fs = std::filesystem;
using fleetsim::testing::run_shell;

namespace {

std::string mpirun3() {
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  return "ASAN_OPTIONS=\"${ASAN_OPTIONS:-}:fast_unwind_on_malloc=0\" mpirun --oversubscribe --bind-to none -n 3 ";
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("a plan on 3 MPI ranks equals one process byte for byte", "[mpi][plan]") {
  if (!fleetsim::mpi::available()) {
    WARN("built without MPI (FLEETSIM_MPI=OFF): the MPI tests do not apply");
    return;
  }
  REQUIRE(run_shell("command -v mpirun >/dev/null 2>&1 && echo yes").out == "yes\n");
  const fs::path d = fs::temp_directory_path() / ("fleetsim_mpi_plan_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  std::ofstream(d / "plan.yaml") << R"(
base: llama3-405b-16k
workload: {tokens: 15.6T}
constraints: {deadline: 70 d, facility_power_cap: 30 MW}
candidates:
  systems: [{gpu: h100-sxm-80gb, node: dgx-h100}, {gpu: b200, node: dgx-b200}]
  gpus: [8192, 16384]
  spares: [{share: 0 %}, {share: 2 %}]
)";
  const std::string args = " plan " + (d / "plan.yaml").string() + " --threads 1 --json -o ";
  const auto one = run_shell(fleetsim::testing::fleetsim_binary() + args + (d / "one.h5").string() + " 2>/dev/null");
  const auto three = run_shell(mpirun3() + fleetsim::testing::fleetsim_binary() + args + (d / "three.h5").string() + " 2>/dev/null");
  REQUIRE(one.code == 0);
  REQUIRE(three.code == 0);
  REQUIRE(one.out.find("\"status\": \"ok\"") != std::string::npos);
  CHECK(one.out == three.out);
  CHECK(slurp(d / "one.h5") == slurp(d / "three.h5"));
  fs::remove_all(d);
}
