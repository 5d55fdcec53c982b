// `fleetsim infer` speed (issue 39: answers in under 50 ms): the whole process (the binary next to
// this one, output discarded), medians of 7 runs, for the three modes of the shipped scenario, and
// the serving model alone in this process (scenario already loaded).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/config/load.hpp"
#include "sim/serving/serving_model.hpp"

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int, char** argv) {
  const std::string exe = (std::filesystem::path(argv[0]).parent_path() / "fleetsim").string();
  const std::vector<std::pair<std::string, std::string>> modes = {
      {"at the SLO (p99 TTFT 2 s, TPOT 50 ms)", "infer-llama31-70b-h100"},
      {"at a load (4 req/s)", "infer-trtllm-bench --set serving.model=llama3.1-70b --set serving.tensor_model_parallel_size=4 "
                              "--set serving.input_tokens=2000 --set serving.output_tokens=500 --set serving.engine.requests=1000 "
                              "--set serving.requests_per_s=4"},
      {"offline maximum throughput", "infer-trtllm-bench --set serving.model=llama3.1-70b --set serving.tensor_model_parallel_size=4 "
                                     "--set serving.input_tokens=2000 --set serving.output_tokens=500 --set serving.engine.requests=1000"},
  };
  for (const auto& [what, sets] : modes) {
    std::vector<double> t;
    for (int i = 0; i < 7; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      const std::string cmd = exe + " infer " + sets + " --json > /dev/null";
      if (std::system(cmd.c_str()) != 0) {
        std::fprintf(stderr, "bench_infer: '%s' failed\n", cmd.c_str());
        return 1;
      }
      t.push_back(seconds_since(t0));
    }
    std::printf("fleetsim infer, Llama 3.1 70B TP 4 FP8 on H100, 2000/500 tokens, %s: %.1f ms (whole process, median of 7)\n",
                what.c_str(), 1e3 * median(t));
  }
  const auto s = fleetsim::config::load_scenario("infer-llama31-70b-h100");
  std::vector<double> t;
  for (int i = 0; i < 7; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    (void)fleetsim::serving::evaluate_serving(s.cluster, s.serving, s.file);
    t.push_back(seconds_since(t0));
  }
  std::printf("serving model alone, at the SLO (bisection: ~11 batcher runs of 1000 requests): %.1f ms (median of 7)\n", 1e3 * median(t));
  return 0;
}
