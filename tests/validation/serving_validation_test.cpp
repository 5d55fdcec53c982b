// TensorRT-LLM's published serving tables against the serving model (issue 39; the split in
// sim/serving/README.md; the cases in sim/reproduce/serving_trtllm.cpp). Each test prints its
// per-case errors and gates at the tolerance where the model meets it, and where it does
// not, at today's error (the bound) with the target named.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "sim/core/paths.hpp"
#include "sim/reproduce/serving_trtllm.hpp"

namespace {

const fleetsim::reproduce::ServingCaseSet& cases() {
  static const auto set = fleetsim::reproduce::serving_reproduction();
  return set;
}

double mean_abs(const std::vector<fleetsim::ValidationCase>& v) {
  double s = 0;
  for (const auto& c : v) s += std::fabs(c.error);
  return v.empty() ? 0 : s / v.size();
}

void print(const std::vector<fleetsim::ValidationCase>& v) {
  for (const auto& c : v)
    std::cout << "  " << c.case_name << ": " << c.metric << " published " << c.published << ", predicted " << c.predicted
              << " (" << (c.error >= 0 ? "+" : "") << 100 * c.error << "%)\n";
}

}  // namespace

TEST_CASE("TensorRT-LLM v0.17 perf overview, judged TP > 1 rows: output tokens/s per GPU, mean error per GPU type "
          "(target 15%, H200 gated at 15%, H100 at today's 16%, A100 at today's 33%)", "[validation][serving]") {
  const std::map<std::string, double> bound = {{"H200", 0.15}, {"H100", 0.165}, {"A100", 0.33}};
  REQUIRE(cases().throughput_by_gpu.size() == 3);
  for (const auto& [gpu, v] : cases().throughput_by_gpu) {
    print(v);
    const double m = mean_abs(v);
    std::cout << gpu << ": mean |error| " << 100 * m << "% over " << v.size() << " judged rows\n";
    INFO(gpu << " mean |error| " << m);
    CHECK(m <= bound.at(gpu));
  }
}

TEST_CASE("TensorRT-LLM v0.17 perf overview, TP 1 calibration rows: fit quality within 15% mean", "[validation][serving]") {
  const auto& v = cases().calibration;
  REQUIRE(v.size() == 61);
  std::cout << "calibration rows: mean |error| " << 100 * mean_abs(v) << "%\n";
  CHECK(mean_abs(v) <= 0.15);
}

TEST_CASE("TensorRT-LLM online sweep, Llama 3.1 70B TP 4 (judged): mean TTFT and ITL at each load below saturation "
          "(target 20% each, not met, gated at today's worst: TTFT 50%, ITL 42%, means 36% / 22%) and the saturation rate "
          "(target 15%, not met, gated at today's worst 51%, mean 23%)",
          "[validation][serving]") {
  const auto& s = cases();
  print(s.ttft);
  print(s.itl);
  print(s.saturation);
  REQUIRE(s.ttft.size() == 21);
  REQUIRE(s.saturation.size() == 6);
  std::cout << "online: TTFT mean |error| " << 100 * mean_abs(s.ttft) << "%, ITL " << 100 * mean_abs(s.itl) << "%, saturation "
            << 100 * mean_abs(s.saturation) << "%\n";
  for (const auto& c : s.ttft) CHECK(std::fabs(c.error) <= 0.50);
  for (const auto& c : s.itl) CHECK(std::fabs(c.error) <= 0.42);
  for (const auto& c : s.saturation) CHECK(std::fabs(c.error) <= 0.51);
  CHECK(mean_abs(s.ttft) <= 0.36);
  CHECK(mean_abs(s.itl) <= 0.22);
  CHECK(mean_abs(s.saturation) <= 0.23);
}

TEST_CASE("the shipped serving residual table equals the one the cases give (regenerate: build/calibrate_serving --residuals)",
          "[validation][serving]") {
  std::ifstream in(fleetsim::home_dir() + "/sim/uncertainty/data/serving_residuals.csv");
  std::stringstream ss;
  ss << in.rdbuf();
  CHECK(ss.str() == fleetsim::reproduce::serving_residuals_csv(cases()));
}
