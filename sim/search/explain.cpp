#include "sim/search/explain.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

#include "sim/search/uneven_split.hpp"

namespace fleetsim::search {
namespace {

std::string fmt(const char* f, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, a);
  return buf;
}
std::string secs(double s) { return fmt(s < 0.1 ? "%.3f" : "%.2f", s); }
std::string pct(double x) { return fmt("%.1f%%", 100.0 * x); }
std::string gib(Bytes b) { return fmt("%.1f", units::to_gib(b)); }
std::string arrow(const std::string& a, const std::string& b) { return a + " -> " + b; }
std::string onoff(bool b) { return b ? "on" : "off"; }
bool all_equal(const std::vector<int>& v) { return std::adjacent_find(v.begin(), v.end(), std::not_equal_to<>()) == v.end(); }
std::string split_text(const Candidate& c) {
  if (all_equal(c.layer_split)) return "even";
  return format_split(c.layer_split) + (c.balanced_split ? " (memory-balanced)" : "");
}
// An explicit split with equal stages is the even split.
bool same_split(const Candidate& a, const Candidate& b) {
  if (a.layer_split.empty() || b.layer_split.empty()) return all_equal(a.layer_split) && all_equal(b.layer_split);
  return a.layer_split == b.layer_split;
}
// Worth naming: the same pipeline split differently, or a memory-balanced split (a different PP
// alone changes the default split without being a choice of its own).
bool split_changed(const Candidate& a, const Candidate& b) {
  return !same_split(a, b) && (a.pp == b.pp || a.balanced_split || b.balanced_split);
}
// Tokens one GPU processes per microbatch: micro-batch x sequence / CP.
long long tokens_per_rank(const Evaluated& e) {
  const StepResult& r = e.step;
  const double sequences = static_cast<double>(e.layout.micro_batch) * r.microbatches * r.data_parallel_size;
  if (sequences <= 0) return 0;
  const double seq = r.tokens_per_iteration.si() / sequences;
  return std::llround(e.layout.micro_batch * seq / e.layout.cp);
}

int microbatches(const StepResult& r) { return r.microbatches; }

// Ideal share of the pipeline bubble in the work, (p - 1) / (v m) (Narayanan et al. SC'21 Sec. 2.2).
double ideal_bubble(const Candidate& c, int m) {
  return m > 0 ? static_cast<double>(c.pp - 1) / (static_cast<double>(c.vpp) * m) : 0.0;
}

// Why the pipeline bubble moved. 1F1B / interleaved: the ideal (p - 1) / (v m) share. DualPipe
// (arXiv:2412.19437 Table 2, sim/step/dualpipe.hpp): (PP/2 - 1) slots of F&B + B - 3W next to
// the M overlapped forward-and-backward pairs of each rank.
std::string bubble_why(const Candidate& ca, int ma, const Candidate& cb, int mb, bool dualpipe) {
  const std::string layouts = " (PP " + std::to_string(ca.pp) + ", VPP " + std::to_string(ca.vpp) + ", " +
                              std::to_string(ma) + " microbatches per replica -> PP " + std::to_string(cb.pp) +
                              ", VPP " + std::to_string(cb.vpp) + ", " + std::to_string(mb);
  if (!dualpipe)
    return layouts + "; ideal (p-1)/(v m) of the work: " + arrow(pct(ideal_bubble(ca, ma)), pct(ideal_bubble(cb, mb))) +
           ")";
  auto slots = [](const Candidate& c) { return std::to_string(std::max(0, c.pp / 2 - 1)); };
  return layouts + "; DualPipe bubble (PP/2 - 1)(F&B + B - 3W): " + arrow(slots(ca), slots(cb)) +
         " such slots next to " + arrow(std::to_string(ma), std::to_string(mb)) + " overlapped F&B pairs per rank)";
}

// Time spent recomputing: the share of math the hardware FLOPs add over the model FLOPs.
double recompute_time(const StepResult& r) {
  if (r.hfu <= 0) return 0;
  return r.breakdown.compute.si() * std::max(0.0, (r.hfu - r.mfu) / r.hfu);
}

std::string join_why(const std::vector<std::string>& why) {
  if (why.empty()) return "";
  std::string s = " (";
  for (size_t i = 0; i < why.size(); ++i) s += (i ? "; " : "") + why[i];
  return s + ")";
}

struct Part {
  double delta;
  std::string text;
};

// The parts of the iteration that moved from `a` (the reference) to `b`, largest first.
std::vector<Part> moved_parts(const Evaluated& a, const Evaluated& b, bool dualpipe) {
  const auto &x = a.step.breakdown, &y = b.step.breakdown;
  const Candidate &ca = a.layout, &cb = b.layout;
  std::vector<Part> parts;
  auto add = [&](Seconds from, Seconds to, std::string text) {
    parts.push_back({to.si() - from.si(), text + " " + arrow(secs(from.si()), secs(to.si())) + " s"});
  };
  {
    add(x.bubble, y.bubble, "pipeline bubble");
    parts.back().text += bubble_why(ca, microbatches(a.step), cb, microbatches(b.step), dualpipe);
  }
  add(x.tp_comm, y.tp_comm, "tensor-parallel communication");
  {
    std::vector<std::string> why;
    if (ca.tp != cb.tp) why.push_back("TP " + arrow(std::to_string(ca.tp), std::to_string(cb.tp)));
    if (ca.sequence_parallel != cb.sequence_parallel)
      why.push_back("SP " + arrow(onoff(ca.sequence_parallel), onoff(cb.sequence_parallel)));
    if (ca.micro_batch != cb.micro_batch || ca.cp != cb.cp)
      why.push_back("tokens per GPU and microbatch " +
                    arrow(std::to_string(tokens_per_rank(a)), std::to_string(tokens_per_rank(b))));
    parts.back().text += join_why(why);
  }
  add(x.pp_comm, y.pp_comm, "pipeline sends");
  add(x.dp_comm, y.dp_comm, "exposed data-parallel communication");
  {
    std::vector<std::string> why;
    if (ca.dp != cb.dp) why.push_back("DP " + arrow(std::to_string(ca.dp), std::to_string(cb.dp)));
    if (ca.zero_stage != cb.zero_stage)
      why.push_back("ZeRO " + arrow(std::to_string(ca.zero_stage), std::to_string(cb.zero_stage)));
    parts.back().text += join_why(why);
  }
  add(x.cp_comm, y.cp_comm, "exposed context-parallel communication");
  if (ca.cp != cb.cp) parts.back().text += " (CP " + arrow(std::to_string(ca.cp), std::to_string(cb.cp)) + ")";
  add(x.ep_comm, y.ep_comm, "expert-parallel all-to-all");
  if (ca.ep != cb.ep) parts.back().text += " (EP " + arrow(std::to_string(ca.ep), std::to_string(cb.ep)) + ")";
  add(x.compute, y.compute, "compute");
  {
    std::vector<std::string> why;
    const double ra = recompute_time(a.step), rb = recompute_time(b.step);
    if (ca.recompute != cb.recompute || std::abs(rb - ra) > 1e-3)
      why.push_back("recomputation " + arrow(recompute_name(ca.recompute), recompute_name(cb.recompute)) + ": " +
                    arrow(secs(ra), secs(rb)) + " s of it");
    std::vector<std::string> shape;
    if (ca.micro_batch != cb.micro_batch)
      shape.push_back("micro-batch " + arrow(std::to_string(ca.micro_batch), std::to_string(cb.micro_batch)));
    if (ca.tp != cb.tp) shape.push_back("TP " + arrow(std::to_string(ca.tp), std::to_string(cb.tp)));
    if (ca.cp != cb.cp) shape.push_back("CP " + arrow(std::to_string(ca.cp), std::to_string(cb.cp)));
    if (!shape.empty()) {
      std::string t = "per-GPU GEMM and attention shapes change with ";
      for (size_t i = 0; i < shape.size(); ++i) t += (i ? ", " : "") + shape[i];
      why.push_back(t);
    }
    if (a.step.critical_stage != b.step.critical_stage)
      why.push_back("critical stage " + arrow(std::to_string(a.step.critical_stage), std::to_string(b.step.critical_stage)));
    parts.back().text += join_why(why);
  }
  add(x.optimizer, y.optimizer, "optimizer step");
  std::stable_sort(parts.begin(), parts.end(),
                   [](const Part& p, const Part& q) { return std::abs(p.delta) > std::abs(q.delta); });
  return parts;
}

std::string parts_sentence(const Evaluated& a, const Evaluated& b, bool dualpipe) {
  const double floor = 0.005 * a.step.iteration_time.si();
  std::string s;
  int n = 0;
  for (const auto& p : moved_parts(a, b, dualpipe)) {
    if (std::abs(p.delta) < floor || n == 4) break;
    s += (n++ ? "; " : "") + p.text;
  }
  return s.empty() ? std::string("no part of the iteration moves by more than 0.5%") : s;
}

std::string memory_sentence(const Evaluated& a, const Evaluated& b, Bytes usable, bool capital = false) {
  std::string s = std::string(capital ? "M" : "m") + "emory per GPU " + arrow(gib(a.step.memory_per_gpu), gib(b.step.memory_per_gpu)) + " GiB of " +
                  gib(usable) + " usable (fullest stage " +
                  arrow(std::to_string(a.step.peak_memory_stage), std::to_string(b.step.peak_memory_stage)) + ")";
  std::vector<std::string> levers;
  const Candidate &ca = a.layout, &cb = b.layout;
  if (split_changed(ca, cb)) levers.push_back("layer split " + arrow(split_text(ca), split_text(cb)));
  if (ca.chunked_loss != cb.chunked_loss) levers.push_back("chunked loss " + arrow(onoff(ca.chunked_loss), onoff(cb.chunked_loss)));
  if (ca.zero_stage != cb.zero_stage)
    levers.push_back("ZeRO " + arrow(std::to_string(ca.zero_stage), std::to_string(cb.zero_stage)));
  if (ca.recompute != cb.recompute)
    levers.push_back("recomputation " + arrow(recompute_name(ca.recompute), recompute_name(cb.recompute)));
  if (!levers.empty()) {
    s += "; memory levers: ";
    for (size_t i = 0; i < levers.size(); ++i) s += (i ? ", " : "") + levers[i];
  }
  return s;
}

std::string metrics(const Evaluated& e) {
  return secs(e.step.iteration_time.si()) + " s per iteration, MFU " + pct(e.step.mfu);
}

}  // namespace

std::string layout_changes(const Candidate& a, const Candidate& b) {
  std::vector<std::string> d;
  auto num = [&](const char* name, int x, int y) {
    if (x != y) d.push_back(std::string(name) + " " + arrow(std::to_string(x), std::to_string(y)));
  };
  num("TP", a.tp, b.tp);
  num("PP", a.pp, b.pp);
  num("VPP", a.vpp, b.vpp);
  num("CP", a.cp, b.cp);
  num("EP", a.ep, b.ep);
  num("DP", a.dp, b.dp);
  num("micro-batch", a.micro_batch, b.micro_batch);
  if (a.sequence_parallel != b.sequence_parallel)
    d.push_back("SP " + arrow(onoff(a.sequence_parallel), onoff(b.sequence_parallel)));
  if (a.recompute != b.recompute)
    d.push_back("recomputation " + arrow(recompute_name(a.recompute), recompute_name(b.recompute)));
  num("ZeRO", a.zero_stage, b.zero_stage);
  if (split_changed(a, b)) d.push_back("layer split " + arrow(split_text(a), split_text(b)));
  if (a.chunked_loss != b.chunked_loss) d.push_back("chunked loss " + arrow(onoff(a.chunked_loss), onoff(b.chunked_loss)));
  std::string s;
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + d[i];
  return s;
}

namespace {
std::string explain_analytical(const SearchResult& r);
}

std::string explain(const SearchResult& r) {
  std::string s = explain_analytical(r);
  if (!r.verified_on_simgrid || r.top.empty() || !r.top.front().simgrid) return s;
  const Evaluated& pick = r.top.front();
  s += " On the SimGrid tier the top " + std::to_string(r.top.size()) + " were re-ranked; the pick takes " +
       secs(pick.simgrid->iteration_time.si()) + " s per iteration (analytical " + secs(pick.step.iteration_time.si()) +
       " s), MFU " + pct(pick.simgrid->mfu);
  if (r.baseline && r.baseline->simgrid)
    s += ", against " + secs(r.baseline->simgrid->iteration_time.si()) + " s for the scenario's layout";
  return s + ".";
}

namespace {

std::string explain_analytical(const SearchResult& r) {
  const std::string counted = std::to_string(r.feasible) + " feasible of " + std::to_string(r.candidates_evaluated) +
                              " candidates";
  if (r.top.empty()) {
    std::string s = "No layout fits: " + counted + ".";
    if (r.rejected.count("out_of_memory"))
      s += " " + std::to_string(r.rejected.at("out_of_memory")) + " candidates need more than " + gib(r.usable_memory) +
           " GiB per GPU.";
    return s;
  }
  const Evaluated& pick = r.top.front();
  if (!r.baseline)
    return "The scenario's own layout cannot run (" + r.baseline_error + "). The best layout found (" + counted +
           "), " + describe(pick.layout) + ", reaches " + metrics(pick) + ".";
  const Evaluated& own = *r.baseline;
  if (!own.step.fits_in_memory)
    return "The scenario's own layout (" + describe(own.layout) + ") does not fit: it needs " +
           gib(own.step.memory_per_gpu) + " GiB per GPU on pipeline stage " + std::to_string(own.step.peak_memory_stage) +
           " and " + gib(r.usable_memory) + " GiB are usable. The pick changes " + layout_changes(own.layout, pick.layout) +
           " and reaches " + metrics(pick) + " (" + counted + "); " + memory_sentence(own, pick, r.usable_memory) + ".";
  if (pick.layout == own.layout) {
    std::string s = "The scenario's own layout is the best found (" + counted + "): " + metrics(pick) + ".";
    if (r.top.size() > 1) {
      const Evaluated& next = r.top[1];
      const double slower = next.step.iteration_time / pick.step.iteration_time - 1.0;
      s += " The runner-up changes " + layout_changes(own.layout, next.layout) + " and is " + pct(slower) +
           " slower: " + parts_sentence(pick, next, r.dualpipe) + ".";
    }
    return s;
  }
  const double faster = 1.0 - pick.step.iteration_time / own.step.iteration_time;
  std::string s = "The pick changes " + layout_changes(own.layout, pick.layout) + " and is " + pct(faster) +
                  " faster than the scenario's layout (" + counted + "): " +
                  arrow(secs(own.step.iteration_time.si()), secs(pick.step.iteration_time.si())) +
                  " s per iteration, MFU " + arrow(pct(own.step.mfu), pct(pick.step.mfu)) + ". Where the time goes: " +
                  parts_sentence(own, pick, r.dualpipe) + ". " + memory_sentence(own, pick, r.usable_memory, true) + ".";
  return s;
}

}  // namespace
}  // namespace fleetsim::search
