#include "sim/search/report.hpp"

#include <algorithm>
#include <cstdio>

#include "sim/core/error.hpp"
#include "sim/pipeline/tier.hpp"
#include "sim/search/explain.hpp"
#include "sim/search/uneven_split.hpp"

namespace fleetsim::search {
namespace {

double gib(Bytes b) { return units::to_gib(b); }

Json breakdown_json(const StepBreakdown& b) {
  Json j = Json::object();
  j["compute"] = b.compute.si();
  j["tp_comm"] = b.tp_comm.si();
  j["pp_comm"] = b.pp_comm.si();
  j["dp_comm"] = b.dp_comm.si();
  j["cp_comm"] = b.cp_comm.si();
  j["ep_comm"] = b.ep_comm.si();
  j["bubble"] = b.bubble.si();
  j["optimizer"] = b.optimizer.si();
  j["exposed_comm"] = b.exposed_comm.si();
  j["overlapped_comm"] = b.overlapped_comm.si();
  j["overlap_contention"] = b.overlap_contention.si();
  j["gather_stall"] = b.gather_stall.si();
  j["prefetch_exposed"] = b.prefetch_exposed.si();
  return j;
}

Json metrics_json(const StepResult& r) {
  Json j = Json::object();
  j["mfu"] = r.mfu;
  j["hfu"] = r.hfu;
  j["iteration_time_s"] = r.iteration_time.si();
  j["model_tflops_per_gpu"] = r.model_flops_per_gpu.si() / 1e12;
  j["memory_per_gpu_gib"] = gib(r.memory_per_gpu);
  j["peak_memory_stage"] = r.peak_memory_stage;
  j["fits_in_memory"] = r.fits_in_memory;
  j["breakdown_s"] = breakdown_json(r.breakdown);
  return j;
}

Json evaluated_json(const Evaluated& e) {
  Json j = Json::object();
  j["layout"] = layout_json(e.layout);
  const Json metrics = metrics_json(e.step);
  for (const auto& [k, v] : metrics.as_object()) j[k] = v;
  if (e.time_to_train.si() > 0) j["time_to_train_days"] = units::to_days(e.time_to_train);
  if (e.simgrid) {
    Json g = Json::object();
    g["iteration_time_s"] = e.simgrid->iteration_time.si();
    g["mfu"] = e.simgrid->mfu;
    g["breakdown_s"] = breakdown_json(e.simgrid->breakdown);
    j["simgrid"] = g;
  } else if (!e.simgrid_error.empty()) {
    j["simgrid"]["error"] = e.simgrid_error;
  }
  Json sets = Json::array();
  for (const auto& s : to_sets(e.layout)) sets.push_back(s);
  j["set"] = sets;
  return j;
}

template <class T>
Json array_of(const std::vector<T>& v) {
  Json a = Json::array();
  for (const auto& x : v) a.push_back(x);
  return a;
}

Json space_json(const Space& sp) {
  Json j = Json::object();
  j["tensor_model_parallel_size"] = array_of(sp.tp);
  j["pipeline_model_parallel_size"] = array_of(sp.pp);
  j["virtual_pipeline_model_parallel_size"] = array_of(sp.vpp);
  j["context_parallel_size"] = array_of(sp.cp);
  j["expert_model_parallel_size"] = array_of(sp.ep);
  j["micro_batch_size"] = array_of(sp.micro_batch);
  Json seq = Json::array();
  for (bool b : sp.sequence_parallel) seq.push_back(b);
  j["sequence_parallel"] = seq;
  Json rc = Json::array();
  for (Recompute r : sp.recompute) rc.push_back(recompute_name(r));
  j["recompute_granularity"] = rc;
  j["zero_stage"] = array_of(sp.zero_stage);
  Json cl = Json::array();
  for (bool b : sp.chunked_loss) cl.push_back(b);
  j["chunked_loss"] = cl;
  j["balanced_splits"] = sp.balanced_splits;
  return j;
}

std::string split_kind(const Candidate& c) {
  if (c.layer_split.empty()) return "even";
  return c.balanced_split ? "balanced" : "default";
}

}  // namespace

Json layout_json(const Candidate& c) {
  Json j = Json::object();
  j["tensor_model_parallel_size"] = c.tp;
  j["pipeline_model_parallel_size"] = c.pp;
  j["virtual_pipeline_model_parallel_size"] = c.vpp;
  j["context_parallel_size"] = c.cp;
  j["expert_model_parallel_size"] = c.ep;
  j["data_parallel_size"] = c.dp;
  j["micro_batch_size"] = c.micro_batch;
  j["sequence_parallel"] = c.sequence_parallel;
  j["recompute_granularity"] = recompute_name(c.recompute);
  j["use_distributed_optimizer"] = c.zero_stage >= 1;
  j["zero_stage"] = c.zero_stage;
  j["pipeline_layer_split"] = array_of(c.layer_split);
  j["balanced_split"] = c.balanced_split;
  j["chunked_loss"] = c.chunked_loss;
  return j;
}

Json to_json(const SearchResult& r, const Scenario& s) {
  Json j = Json::object();
  j["scenario"] = s.file;
  j["objective"] = objective_name(r.objective);
  j["usable_memory_per_gpu_gib"] = gib(r.usable_memory);
  j["candidates_evaluated"] = r.candidates_evaluated;
  j["feasible"] = r.feasible;
  j["timed"] = r.timed;
  j["pruned"]["by_bound"] = r.pruned_by_bound;
  j["pruned"]["dominated"] = r.dominated;
  Json rej = Json::object();
  for (const auto& [k, v] : r.rejected) rej[k] = v;
  j["rejected"] = rej;
  Json base = Json::object();
  if (r.baseline) {
    base = evaluated_json(*r.baseline);
  } else {
    base["layout"] = layout_json(from_workload(s.workload, s.cluster.gpus));
    base["error"] = r.baseline_error;
  }
  base["in_space"] = r.baseline_in_space;
  j["baseline"] = base;
  Json top = Json::array();
  int rank = 1;
  for (const auto& e : r.top) {
    Json t = Json::object();
    t["rank"] = rank++;
    const Json body = evaluated_json(e);
    for (const auto& [k, v] : body.as_object()) t[k] = v;
    if (r.baseline && r.baseline->step.fits_in_memory)
      t["speedup_vs_baseline"] = r.baseline->step.iteration_time / e.step.iteration_time;
    top.push_back(t);
  }
  j["top"] = top;
  j["verified_on"] = r.verified_on_simgrid ? Json("simgrid") : Json();
  j["explanation"] = r.explanation;
  j["space"] = space_json(r.space);
  Json notes = Json::array();
  notes.push_back("ZeRO stages 1-3 and chunked loss take the same time in the analytical step model: of the "
                  "variants of one layout that fit, only the simplest is timed (the others count as dominated)");
  if (std::any_of(r.top.begin(), r.top.end(), [](const Evaluated& e) { return e.layout.chunked_loss; }))
    notes.push_back("chunked loss is applied to the memory by the search (the step model has no knob for it): "
                    "logits of " + std::to_string(static_cast<int>(kLossChunkTokens)) +
                    " tokens at a time; `fleetsim step` reports the unchunked memory");
  j["notes"] = notes;
  j["host"]["wall_s"] = r.wall_s;
  j["host"]["candidates_per_s"] = r.wall_s > 0 ? static_cast<double>(r.candidates_evaluated) / r.wall_s : 0.0;
  j["host"]["threads"] = r.threads;
  return j;
}

void print_table(const SearchResult& r, const Scenario& s, const std::string& scenario_arg, std::ostream& out) {
  char buf[512];
  out << "fleetsim search: " << s.description << "\n  scenario " << s.file << ", objective "
      << objective_name(r.objective) << ", " << r.candidates_evaluated << " candidates: " << r.feasible
      << " feasible (" << r.timed << " timed, " << r.pruned_by_bound << " pruned by the bound, " << r.dominated
      << " dominated)\n  rejected:";
  for (const auto& [k, v] : r.rejected) out << " " << k << " " << v << ";";
  out << "\n\n";
  std::snprintf(buf, sizeof buf, "%5s %3s %3s %3s %3s %3s %6s %3s %3s %-9s %4s %-8s %4s %9s %6s %8s %7s %8s%s\n", "rank",
                "TP", "PP", "VPP", "CP", "EP", "DP", "mb", "SP", "recompute", "ZeRO", "split", "loss", "iter s", "MFU",
                "mem GiB", "bubble", "exp comm", r.verified_on_simgrid ? "  simgrid s" : "");
  out << buf;
  auto row = [&](const std::string& label, const Evaluated& e) {
    const auto& c = e.layout;
    std::string sg;
    if (e.simgrid) {
      char t[32];
      std::snprintf(t, sizeof t, " %10.3f", e.simgrid->iteration_time.si());
      sg = t;
    }
    std::snprintf(buf, sizeof buf, "%5s %3d %3d %3d %3d %3d %6d %3d %3s %-9s %4d %-8s %4s %9.3f %5.1f%% %8.1f %7.3f %8.3f%s\n",
                  label.c_str(), c.tp, c.pp, c.vpp, c.cp, c.ep, c.dp, c.micro_batch, c.sequence_parallel ? "on" : "-",
                  recompute_name(c.recompute), c.zero_stage, split_kind(c).c_str(), c.chunked_loss ? "chnk" : "-",
                  e.step.iteration_time.si(), 100.0 * e.step.mfu, gib(e.step.memory_per_gpu),
                  e.step.breakdown.bubble.si(), e.step.breakdown.exposed_comm.si(), sg.c_str());
    out << buf;
  };
  for (size_t i = 0; i < r.top.size(); ++i) row(std::to_string(i + 1), r.top[i]);
  if (r.baseline) row("own", *r.baseline);
  else out << "  own layout: " << r.baseline_error << "\n";
  out << "\n" << r.explanation << "\n";
  if (!r.top.empty()) {
    out << "\nreproduce the pick: fleetsim step " << (scenario_arg.empty() ? std::string() : scenario_arg + " ");
    for (const auto& set : to_sets(r.top.front().layout)) out << "--set " << set << " ";
    out << "\n";
    if (r.top.front().layout.chunked_loss)
      out << "  (chunked loss is a search-side memory bound; `fleetsim step` reports the unchunked memory)\n";
  }
  std::snprintf(buf, sizeof buf, "(%.2f s wall, %d threads, %.0f candidates/s)\n", r.wall_s, r.threads,
                r.wall_s > 0 ? static_cast<double>(r.candidates_evaluated) / r.wall_s : 0.0);
  out << buf;
}

void verify_on_simgrid(const Scenario& s, SearchResult& r) {
  if (!simgrid_tier_available())
    throw ConfigError("", "--verify", "the SimGrid tier is not available in this build; drop --verify or build with SimGrid");
  auto run = [&](Evaluated& e) {
    Scenario v = s;
    v.workload = apply(e.layout, s.workload);
    v.tier = StepTier::SimGrid;
    try {
      e.simgrid = evaluate_step_on_tier(v, StepOptions{});
    } catch (const ConfigError& err) {
      e.simgrid_error = err.what();
    } catch (const InfeasibleError& err) {
      e.simgrid_error = err.what();
    }
  };
  for (auto& e : r.top) run(e);
  if (r.baseline && r.baseline->step.fits_in_memory) run(*r.baseline);
  // Layouts the SimGrid tier could not time keep their analytical order, after the timed ones.
  std::stable_sort(r.top.begin(), r.top.end(), [](const Evaluated& a, const Evaluated& b) {
    if (a.simgrid.has_value() != b.simgrid.has_value()) return a.simgrid.has_value();
    if (!a.simgrid) return false;
    if (a.simgrid->iteration_time != b.simgrid->iteration_time) return a.simgrid->iteration_time < b.simgrid->iteration_time;
    return simpler(a.layout, b.layout);
  });
  r.verified_on_simgrid = true;
  r.explanation = explain(r);
}

}  // namespace fleetsim::search
