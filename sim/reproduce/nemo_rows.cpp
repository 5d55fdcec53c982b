// Row picking of NVIDIA's published performance tables (data/validation/nemo_perf_summary.csv),
// shared by the dense (nemo_dense.cpp) and the MoE (nemo_moe.cpp) cases.
#include <algorithm>
#include <cctype>

#include "sim/reproduce/nemo.hpp"

namespace fleetsim::reproduce {
namespace {

// Transformer Engine recipe of a row's precision label, or "" when not modelled. The 24.07 page
// and NeMo 2.0 (25.02) ran TE's default delayed scaling; Megatron-Bridge labels per-tensor
// current scaling "FP8-CS" (25.11) and its 25.09 unlabeled and 26.xx "FP8" rows use the same
// recipe (their performance scripts' default for H100); "MXFP8"/"FP8-MX" is MXFP8 block scaling.
// The 25.09 "alternate granularity" rows are not judged: the H100 one (blockwise 128x128 / 1x128,
// tokens/s not given) is half of the calibration pair of fp8_blockwise_gemm_ratio
// (nemo_moe.cpp); B200's 32x32 granularity and NVFP4 are not modelled.
std::string nemo_recipe(const std::string& label, const std::string& release) {
  if (label == "MXFP8" || label == "FP8-MX") return "mxfp8";
  if (label == "FP8-CS") return "current";
  if (label == "FP8" || label == "FP8 (scaling recipe not labelled in table)")
    return (release.rfind("24.", 0) == 0 || release.rfind("25.02", 0) == 0) ? "delayed" : "current";
  return "";
}

// Release order: "24.07" < "25.02" < "26.04" < "26.04.01" (lexicographic on the dotted text).
bool newer_release(const std::string& a, const std::string& b) { return a > b; }

}  // namespace

bool nemo_alternate_granularity(const std::string& precision_label) {
  return precision_label.find("alternate") != std::string::npos;
}

int nemo_int_or(const CsvTable& t, size_t row, const char* col, int fallback) {
  const std::string& v = t.at(row, col);
  return v.empty() || v == "n/a" ? fallback : t.integer(row, col);
}

std::vector<NemoRow> pick_nemo_rows(const CsvTable& t, const std::string& system,
                                    const std::function<std::optional<std::string>(size_t row)>& preset_of,
                                    const std::string& no_preset, const std::vector<NemoKeyColumn>& key,
                                    std::vector<std::string>* skipped) {
  struct Pick { NemoRow pick; std::string key; };
  std::vector<Pick> picks;
  auto cell = [&](size_t i, const char* col) { return t.at(i, col); };
  auto note = [&](const std::string& line) { if (skipped) skipped->push_back(line); };
  for (size_t i = 0; i < t.rows.size(); ++i) {
    if (cell(i, "system") != system) continue;
    const std::optional<std::string> preset = preset_of(i);
    if (!preset) continue;
    const std::string label = cell(i, "model"), release = cell(i, "release");
    const std::string what = release + " " + label + " " + cell(i, "num_gpus") + " GPUs " + cell(i, "precision");
    if (cell(i, "doc_revision") == "superseded") {
      note(what + ": superseded revision of 24.07 (the final text is used)");
      continue;
    }
    if (preset->empty()) {
      note(what + ": " + no_preset);
      continue;
    }
    const std::string recipe = nemo_recipe(cell(i, "precision"), release);
    if (nemo_alternate_granularity(cell(i, "precision")) && system == "DGX-H100") {
      note(what + ": calibration pair of fp8_blockwise_gemm_ratio (scripts/calibrate --gpu h100 --fp8-blockwise), not judged");
      continue;
    }
    if (recipe.empty() || cell(i, "tokens_per_sec_per_gpu").empty()) {
      note(what + ": precision/recipe not modelled or no throughput");
      continue;
    }
    std::string k = *preset + "|" + recipe;
    for (const auto& col : key) {
      const std::string& v = cell(i, col.name);
      k += "|" + (v.empty() || v == "n/a" ? std::string(col.missing) : v);
    }
    bool replaced = false;
    for (auto& p : picks)
      if (p.key == k) {
        replaced = true;
        const size_t kept = p.pick.row;
        if (newer_release(release, cell(kept, "release"))) {
          note(cell(kept, "release") + " " + cell(kept, "model") + ": same configuration published again in " + release + " (newest kept)");
          p.pick.row = i;
        } else {
          note(what + ": same configuration published again in " + cell(kept, "release") + " (newest kept)");
        }
      }
    if (!replaced) picks.push_back({{i, *preset, recipe}, k});
  }
  std::vector<NemoRow> out;
  for (auto& p : picks) out.push_back(std::move(p.pick));
  return out;
}

}  // namespace fleetsim::reproduce
