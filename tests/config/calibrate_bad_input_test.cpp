// Bad measurements for `fleetsim calibrate` are bad input like a bad scenario (issue 37): each is
// refused before any fit with a ConfigError (exit 2) naming the file, the row's line and the
// column, and saying what would be valid.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sim/calibrate/fit.hpp"
#include "sim/calibrate/measurements.hpp"
#include "sim/core/error.hpp"
#include "tests/test_paths.hpp"

namespace fs = std::filesystem;
using fleetsim::ConfigError;

namespace {

std::string base_scenario() { return fleetsim::testing::source_dir() + "/tests/data/calibrate/dgxc-h100-base.yaml"; }

fs::path scratch() {
  const fs::path d = fs::temp_directory_path() / ("fleetsim-calibrate-bad-" + std::to_string(getpid()));
  fs::create_directories(d);
  return d;
}

std::string write(const std::string& name, const std::string& text) {
  const fs::path p = scratch() / name;
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
  return p.string();
}

// The message read_measurements (then calibrate, for row counts) refuses `text` with.
std::string refusal(const std::string& name, const std::string& text, const std::vector<std::string>& fit = {}) {
  const std::string path = write(name, text);
  try {
    const auto m = fleetsim::calibrate::read_measurements(path, base_scenario());
    fleetsim::calibrate::FitOptions o;
    o.fit = fit;
    o.draws = 0;
    (void)fleetsim::calibrate::calibrate(m, o);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("calibrate refuses an unknown scenario key as a column, naming the file, line and column", "[config][calibrate]") {
  const auto msg = refusal("unknown.csv", "cluster.gpus,workload.model.hidden_sise,step_time_s\n8,4096,1.0\n16,4096,2\n");
  INFO(msg);
  CHECK(msg.find("unknown.csv:2") != std::string::npos);
  CHECK(msg.find("workload.model.hidden_sise") != std::string::npos);
  CHECK(msg.find("row 1") != std::string::npos);
  CHECK(msg.find("hidden_size") != std::string::npos);  // what would be valid
}

TEST_CASE("calibrate refuses a row whose layout does not divide, naming its line and column", "[config][calibrate]") {
  const auto gpus = refusal("gpus.csv", "cluster.gpus,step_time_s\n8,1.0\n12,2.0\n");
  INFO(gpus);
  CHECK(gpus.find("gpus.csv:3") != std::string::npos);
  CHECK(gpus.find("cluster.gpus") != std::string::npos);
  CHECK(gpus.find("row 2") != std::string::npos);
  const auto tp = refusal("tp.csv", "cluster.gpus,workload.parallel.tensor_model_parallel_size,step_time_s\n8,1,1.0\n8,3,2.0\n");
  INFO(tp);
  CHECK(tp.find("tp.csv:3") != std::string::npos);
  CHECK(tp.find("row 2") != std::string::npos);
  CHECK(tp.find("tensor_model_parallel_size") != std::string::npos);
}

TEST_CASE("calibrate refuses a measured value <= 0 or not a number", "[config][calibrate]") {
  for (const std::string v : {"0", "-2", "abc", "nan", "inf", "1.5s"}) {
    const auto msg = refusal("value.csv", "cluster.gpus,step_time_s\n8,1.0\n16," + v + "\n");
    INFO(msg);
    CHECK(msg.find("value.csv:3") != std::string::npos);
    CHECK(msg.find("step_time_s") != std::string::npos);
    CHECK(msg.find("not a positive number") != std::string::npos);
  }
  const auto mfu = refusal("mfu.csv", "cluster.gpus,mfu\n8,0.4\n16,42\n");
  CHECK(mfu.find("as a fraction") != std::string::npos);
}

TEST_CASE("calibrate refuses an empty, header-only or truncated file and a bad role", "[config][calibrate]") {
  CHECK(refusal("empty.csv", "").find("empty.csv: the measurements file is empty") != std::string::npos);
  CHECK(refusal("comments.csv", "# only a comment\n").find("is empty") != std::string::npos);
  CHECK(refusal("header.csv", "cluster.gpus,step_time_s\n").find("no measured rows") != std::string::npos);
  const auto trunc = refusal("trunc.csv", "cluster.gpus,step_time_s\n8,1.0\n16\n");
  CHECK(trunc.find("trunc.csv:3") != std::string::npos);
  CHECK(trunc.find("truncated") != std::string::npos);
  const auto role = refusal("role.csv", "cluster.gpus,role,step_time_s\n8,calibration,1.0\n16,train,2\n");
  CHECK(role.find("role.csv:3: role: row 2") != std::string::npos);
  CHECK(refusal("judged.csv", "cluster.gpus,role,step_time_s\n8,judged,1.0\n").find("at least one row") != std::string::npos);
}

TEST_CASE("calibrate refuses a file without, or with two, measured columns", "[config][calibrate]") {
  CHECK(refusal("none.csv", "cluster.gpus\n8\n").find("no measured column") != std::string::npos);
  CHECK(refusal("two.csv", "cluster.gpus,step_time_s,mfu\n8,1,0.4\n").find("a second measured column") != std::string::npos);
  CHECK(refusal("dup.csv", "cluster.gpus,cluster.gpus,step_time_s\n8,8,1\n").find("appears twice") != std::string::npos);
  CHECK(refusal("blank.csv", "cluster.gpus,workload.training.micro_batch_size,step_time_s\n8,,1\n").find("empty value") !=
        std::string::npos);
}

TEST_CASE("calibrate refuses too few rows for what was asked, naming the minimum", "[config][calibrate]") {
  const std::string two = "cluster.gpus,step_time_s\n8,12.3\n16,12.4\n";
  const auto msg = refusal("few.csv", two, {"gemm_efficiency", "hbm_efficiency", "attention_efficiency"});
  INFO(msg);
  CHECK(msg.find("at least 4 are needed") != std::string::npos);
  CHECK(refusal("one.csv", "cluster.gpus,step_time_s\n8,12.3\n").find("at least 2 calibration rows") != std::string::npos);
  CHECK(refusal("name.csv", two, {"gemm_eficiency"}).find("--fit: unknown parameter 'gemm_eficiency'") != std::string::npos);
}

TEST_CASE("calibrate refuses rows on two GPU types", "[config][calibrate]") {
  const auto msg = refusal("gpus2.csv", "cluster.gpus,cluster.gpu,step_time_s\n8,h100-sxm-80gb,12\n8,h200-sxm-141gb,11\n");
  INFO(msg);
  CHECK(msg.find("gpus2.csv:3: cluster.gpu: row 2") != std::string::npos);
}

TEST_CASE("fleetsim calibrate exits 2 on bad measurements and writes nothing", "[config][calibrate]") {
  const std::string csv = write("cli.csv", "cluster.gpus,step_time_s\n8,1.0\n16,abc\n");
  const fs::path out = scratch() / "stack.yaml";
  fs::remove(out);
  const auto r = fleetsim::testing::run_shell("'" + fleetsim::testing::fleetsim_binary() + "' calibrate --base '" +
                                              base_scenario() + "' '" + csv + "' -o '" + out.string() + "' 2>&1");
  INFO(r.out);
  CHECK(r.code == 2);
  CHECK(r.out.find("cli.csv:3: step_time_s: row 2") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
}
