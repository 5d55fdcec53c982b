// Evaluation harness of the TP-overlap physics (issue 35): the published Hopper / Blackwell rows the
// mechanism moves, with their error and the iteration's breakdown, under optional `--set`
// overrides applied to every row (as `fleetsim step --set` would). Prints, per source, each row's
// published and predicted tokens/s per GPU, the error, the compute / exposed-TP / hidden-TP shares,
// and the mean / worst |error| of its calibration and judged parts. Nothing here fits anything:
// it is how the before/after tables of sim/step/README.md ("Hopper TP overlap (issue 35)") were
// measured.
//
//   build/tp_overlap_eval [--source dgxc|nemo-h100|nemo-b200|nemo-gb200|nemo-gb300|all]
//                         [--set key=value]... [--rows]
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "sim/reproduce/dgxc_llama31.hpp"
#include "sim/reproduce/nemo.hpp"
#include "sim/step/step_model.hpp"

using namespace fleetsim;

namespace {

struct Part {
  double sum = 0, worst = 0;
  int n = 0;
  void add(double e) {
    sum += std::fabs(e);
    if (std::fabs(e) > std::fabs(worst)) worst = e;
    ++n;
  }
};

void run(const char* title, std::vector<reproduce::StepCase> cases, const std::vector<std::string>& sets, bool rows) {
  std::printf("%s\n", title);
  Part cal_bf16, cal_fp8, judged_bf16, judged_fp8;
  for (auto& c : cases) {
    if (!sets.empty()) {
      c.sets.insert(c.sets.end(), sets.begin(), sets.end());
      reproduce::load(c);
    }
    const StepResult r = evaluate_step(c.scenario.cluster, c.scenario.workload);
    const double pred = reproduce::predicted_metric(c, r);
    const double e = (pred - c.published) / c.published;
    const bool fp8 = c.scenario.workload.training.precision == Precision::Fp8;
    (c.calibration ? (fp8 ? cal_fp8 : cal_bf16) : (fp8 ? judged_fp8 : judged_bf16)).add(e);
    if (rows) {
      const double t = r.iteration_time.si();
      const auto& b = r.breakdown;
      std::printf("  %-3s %-66.66s %9.1f %9.1f %+6.1f%%  compute %4.1f%% tp %4.1f%% ovl %4.1f%%\n",
                  c.calibration ? "cal" : "jdg", c.name.c_str(), c.published, pred, 100 * e,
                  100 * b.compute.si() / t, 100 * b.tp_comm.si() / t, 100 * b.overlapped_comm.si() / t);
    }
  }
  auto line = [](const char* what, const Part& p) {
    if (p.n > 0)
      std::printf("  %-16s mean |error| %5.1f%%  worst %+6.1f%%  (%d rows)\n", what, 100 * p.sum / p.n, 100 * p.worst, p.n);
  };
  line("calibration BF16", cal_bf16);
  line("calibration FP8", cal_fp8);
  line("judged BF16", judged_bf16);
  line("judged FP8", judged_fp8);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string source = "all";
    std::vector<std::string> sets;
    bool rows = false;
    for (int i = 1; i < argc; ++i) {
      if (std::strcmp(argv[i], "--source") == 0 && i + 1 < argc) {
        source = argv[++i];
      } else if (std::strcmp(argv[i], "--set") == 0 && i + 1 < argc) {
        sets.emplace_back(argv[++i]);
      } else if (std::strcmp(argv[i], "--rows") == 0) {
        rows = true;
      } else {
        std::fprintf(stderr, "usage: tp_overlap_eval [--source dgxc|nemo-h100|nemo-b200|nemo-gb200|nemo-gb300|all] "
                             "[--set key=value]... [--rows]\n");
        return 2;
      }
    }
    const bool all = source == "all";
    if (all || source == "dgxc") run("DGX Cloud Llama 3.1 (DGX H100)", reproduce::dgxc_llama31_cases(), sets, rows);
    const char* systems[][2] = {{"nemo-h100", "DGX-H100"}, {"nemo-b200", "DGX-B200"}, {"nemo-gb200", "DGX-GB200"},
                                {"nemo-gb300", "DGX-GB300"}};
    for (const auto& s : systems)
      if (all || source == s[0]) run((std::string("NeMo ") + s[1]).c_str(), reproduce::nemo_cases(s[1]), sets, rows);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tp_overlap_eval: %s\n", e.what());
    return 2;
  }
}
