// The `software:` key from the command line (models/software/README.md): presets listed and
// described field by field; a preset, a file or overrides accepted; bad input (unknown preset,
// unknown field, value out of bound, wrong choice) refused with exit 2 naming the key and what
// would be valid.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/test_paths.hpp"

namespace fs = std::filesystem;

namespace {

using fleetsim::testing::Outcome;

Outcome run_fleetsim(const std::string& args) {
  return fleetsim::testing::run_shell("timeout 60 " + fleetsim::testing::fleetsim_binary() + " " + args + " 2>&1");
}

void check_bad_input(const Outcome& o, const std::string& expect) {
  INFO("output: " << o.out);
  CHECK(o.code == 2);
  CHECK(o.out.find(expect) != std::string::npos);
  CHECK(o.out.find("internal error") == std::string::npos);
}

}  // namespace

TEST_CASE("fleetsim list software and describe software print the presets and every field", "[scenario]") {
  const Outcome l = run_fleetsim("list software");
  INFO(l.out);
  REQUIRE(l.code == 0);
  for (const char* p : {"default", "nemo-24.12", "megatron-bridge-25.11", "megatron-deepspeed-vtrain", "megatron-lm-sc21"})
    CHECK(l.out.find(p) != std::string::npos);
  const Outcome d = run_fleetsim("describe software nemo-24.12");
  INFO(d.out);
  REQUIRE(d.code == 0);
  for (const char* f : {"bias_swiglu_fusion", "masked_softmax_fusion", "cuda_graphs", "host_ops_per_kernel",
                        "kernel_launch_overhead", "fp8_attention", "fp8_attention_speedup", "tp_overlap_method",
                        "tp_overlap_sms", "dp_bucket_min_params", "dp_bucket_params_per_dp_rank",
                        "optimizer_bytes_per_param", "optimizer_kernels", "gemm_efficiency", "gemm_efficiency_fp8",
                        "attention_efficiency", "hbm_efficiency"})
    CHECK(d.out.find(f) != std::string::npos);
  CHECK(d.out.find("userbuffers") != std::string::npos);  // a preset's source is printed
}

TEST_CASE("software: a preset, a file and overrides are accepted, and the default changes nothing", "[scenario]") {
  const Outcome base = run_fleetsim("step --json");
  REQUIRE(base.code == 0);
  const Outcome def = run_fleetsim("step --json --set software=default");
  REQUIRE(def.code == 0);
  CHECK(def.out == base.out);
  const fs::path f = fs::temp_directory_path() / ("fleetsim_stack." + std::to_string(::getpid()) + ".yaml");
  {
    std::ofstream o(f);
    o << "description: a test stack\ncuda_graphs: true\nhost_ops_per_kernel: {value: 2, source: test}\n";
  }
  const Outcome file = run_fleetsim("step --set software=" + f.string());
  INFO(file.out);
  CHECK(file.code == 0);
  const Outcome over = run_fleetsim("step --set software=nemo-24.12 --set software.cuda_graphs=true");
  INFO(over.out);
  CHECK(over.code == 0);
  fs::remove(f);
}

TEST_CASE("bad software input exits 2 naming the key and what would be valid", "[scenario]") {
  check_bad_input(run_fleetsim("step --set software=nemo-99.99"), "unknown software preset");
  check_bad_input(run_fleetsim("step --set software.cuda_graph=true"), "cuda_graph");
  check_bad_input(run_fleetsim("step --set software.host_ops_per_kernel=500"), "software.host_ops_per_kernel");
  check_bad_input(run_fleetsim("step --set software.fp8_attention_speedup=0.5"), "software.fp8_attention_speedup");
  check_bad_input(run_fleetsim("step --set software.tp_overlap_method=ring"), "pipeline");
  check_bad_input(run_fleetsim("step --set software.gemm_efficiency_fp8=1.5"), "software.gemm_efficiency_fp8");
}
