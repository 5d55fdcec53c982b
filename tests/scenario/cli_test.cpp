// End-to-end: the fleetsim binary as users call it — exit codes, atomic output, determinism.
#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <sys/wait.h>
#include "tests/test_paths.hpp"

namespace fs = std::filesystem;

namespace {

using fleetsim::testing::Outcome;

// Runs the binary with arguments (a shell string), capturing stdout; stderr goes to stdout with 2>&1 when asked.
Outcome run_fleetsim(const std::string& args, bool merge_stderr = false) {
  std::string cmd = fleetsim::testing::fleetsim_binary() + " " + args + (merge_stderr ? " 2>&1" : " 2>/dev/null");
  return fleetsim::testing::run_shell(cmd);
}

std::string without_host(const std::string& json) {
  auto pos = json.find("\"host\"");
  return pos == std::string::npos ? json : json.substr(0, pos);
}

const std::string kQuick = "--replications 3 --set run.duration=5d";

}  // namespace

TEST_CASE("a bad scenario exits with code 2, names file and key, and writes no output", "[scenario]") {
  const fs::path out = fs::temp_directory_path() / "fleetsim_bad_scenario.h5";
  fs::remove(out);
  auto o = run_fleetsim("run " + fleetsim::testing::source_dir() + "/tests/config/bad/zero_gpus.yaml -o " + out.string(), true);
  CHECK(o.code == 2);
  CHECK(o.out.find("zero_gpus.yaml") != std::string::npos);
  CHECK(o.out.find("cluster.gpus") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("an unknown command-line override exits with code 2", "[scenario]") {
  auto o = run_fleetsim("step --set cluster.gpu_count=8", true);
  CHECK(o.code == 2);
  CHECK(o.out.find("did you mean 'gpus'") != std::string::npos);
}

TEST_CASE("the same scenario and seed give byte-identical JSON apart from host timings", "[scenario]") {
  auto a = run_fleetsim("run --json --seed 7 " + kQuick);
  auto b = run_fleetsim("run --json --seed 7 --threads 1 " + kQuick);
  REQUIRE(a.code == 0);
  REQUIRE(b.code == 0);
  CHECK(without_host(a.out) == without_host(b.out));
  auto c = run_fleetsim("run --json --seed 8 " + kQuick);
  CHECK(without_host(a.out) != without_host(c.out));
}

TEST_CASE("run --json carries the keys of the JSON contract", "[scenario]") {
  auto o = run_fleetsim("run --json " + kQuick);
  REQUIRE(o.code == 0);
  for (const char* key : {"\"step\"", "\"iteration_time_s\"", "\"mfu\"", "\"hfu\"", "\"memory_per_gpu_gib\"",
                          "\"fits_in_memory\"", "\"breakdown_s\"", "\"run\"", "\"ettr\"", "\"mean\"", "\"p05\"",
                          "\"p95\"", "\"wall_clock_days\"", "\"tokens_trained\"", "\"interruptions\"",
                          "\"lost_hours\"", "\"mtti_hours\"", "\"facility\"", "\"pue_mean\"", "\"it_energy_mwh\"",
                          "\"facility_energy_mwh\"", "\"co2_tonnes\"", "\"effective_utilization\"", "\"factors\"",
                          "\"host\""})
    CHECK(o.out.find(key) != std::string::npos);
  CHECK(o.out.find(": nan") == std::string::npos);
  CHECK(o.out.find(": inf") == std::string::npos);
}

TEST_CASE("run -o writes a complete HDF5 file and leaves no temporary behind", "[scenario]") {
  const fs::path dir = fs::temp_directory_path() / "fleetsim_cli_test";
  fs::create_directories(dir);
  const fs::path out = dir / "run.h5";
  fs::remove(out);
  auto o = run_fleetsim("run -o " + out.string() + " " + kQuick);
  REQUIRE(o.code == 0);
  CHECK(fs::exists(out));
  CHECK(fs::file_size(out) > 1000);
  int leftovers = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().string().find(".tmp.") != std::string::npos) ++leftovers;
  CHECK(leftovers == 0);
}

TEST_CASE("list and describe print the catalog with units and sources", "[scenario]") {
  auto l = run_fleetsim("list gpus");
  CHECK(l.code == 0);
  CHECK(l.out.find("h100-sxm-80gb") != std::string::npos);
  auto d = run_fleetsim("describe gpus h100-sxm-80gb");
  CHECK(d.code == 0);
  CHECK(d.out.find("hbm_bandwidth: 3.35 TB/s") != std::string::npos);
  CHECK(d.out.find("source:") != std::string::npos);
  auto bad = run_fleetsim("describe gpus h100", true);
  CHECK(bad.code == 2);
  CHECK(bad.out.find("h100-sxm-80gb") != std::string::npos);
}

TEST_CASE("a layout that does not fit in memory is refused with the numbers, exit code 2", "[scenario]") {
  const fs::path out = fs::temp_directory_path() / "fleetsim_oom.h5";
  fs::remove(out);
  auto o = run_fleetsim("run --set workload.training.micro_batch_size=8 --set workload.training.global_batch_size=16384 -o " +
                        out.string(),
                    true);
  CHECK(o.code == 2);
  CHECK(o.out.find("does not fit in GPU memory") != std::string::npos);
  CHECK(o.out.find("GiB usable") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
}
