#include "sim/mpi/search.hpp"

#include <chrono>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "sim/mpi/world.hpp"
#include "sim/search/explain.hpp"

#if FLEETSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace fleetsim::mpi {

#if FLEETSIM_HAVE_MPI
namespace {

// A field added to Candidate must be sent below as well (x86-64 layout).
static_assert(sizeof(search::Candidate) == 72, "Candidate changed: send the new field in sim/mpi/search.cpp");

// Text lines, one per candidate: "tp pp vpp cp ep dp mb sp recompute zero balanced chunked n s1 .. sn".
std::string encode(const std::vector<search::Evaluated>& top) {
  std::ostringstream o;
  for (const auto& e : top) {
    const auto& c = e.layout;
    o << c.tp << ' ' << c.pp << ' ' << c.vpp << ' ' << c.cp << ' ' << c.ep << ' ' << c.dp << ' ' << c.micro_batch << ' '
      << c.sequence_parallel << ' ' << static_cast<int>(c.recompute) << ' ' << c.zero_stage << ' ' << c.balanced_split
      << ' ' << c.chunked_loss << ' ' << c.layer_split.size();
    for (int n : c.layer_split) o << ' ' << n;
    o << '\n';
  }
  return o.str();
}

std::vector<search::Candidate> decode(const std::string& text) {
  std::vector<search::Candidate> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream l(line);
    search::Candidate c;
    int recompute = 0;
    size_t n = 0;
    l >> c.tp >> c.pp >> c.vpp >> c.cp >> c.ep >> c.dp >> c.micro_batch >> c.sequence_parallel >> recompute >>
        c.zero_stage >> c.balanced_split >> c.chunked_loss >> n;
    c.recompute = static_cast<Recompute>(recompute);
    c.layer_split.resize(n);
    for (auto& x : c.layer_split) l >> x;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

search::SearchResult run_search_on_ranks(const Scenario& s, search::SearchOptions opt) {
  const World w = world();
  if (w.size <= 1) return search::run_search(s, opt);
  const auto start = std::chrono::steady_clock::now();
  opt.part = w.rank;
  opt.parts = w.size;
  opt.progress = opt.progress && w.root();
  search::SearchResult r = search::run_search(s, opt);

  long long counts[5] = {r.candidates_evaluated, r.feasible, r.timed, r.pruned_by_bound, r.dominated}, sums[5] = {};
  MPI_Reduce(counts, sums, 5, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  std::ostringstream rej;
  for (const auto& [k, v] : r.rejected) rej << k << ' ' << v << '\n';
  const std::string rejected = gather_to_root(rej.str());
  const std::string layouts = gather_to_root(encode(r.top));
  if (!w.root()) return r;

  r.candidates_evaluated = sums[0], r.feasible = sums[1], r.timed = sums[2], r.pruned_by_bound = sums[3],
  r.dominated = sums[4];
  r.rejected.clear();
  {
    std::istringstream in(rejected);
    std::string k;
    long long v = 0;
    while (in >> k >> v) r.rejected[k] += v;
  }
  // The other ranks' best layouts are timed again here (K per rank: negligible), so every
  // Evaluated comes from the same evaluate_candidate as in one process.
  std::vector<search::Evaluated> all = r.top;
  for (const auto& c : decode(layouts)) {
    bool have = false;
    for (const auto& e : all) have = have || e.layout == c;
    if (!have) all.push_back(search::evaluate_candidate(s, c));
  }
  r.top = search::merge_top(std::move(all), opt.top);
  r.explanation = search::explain(r);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

#else

search::SearchResult run_search_on_ranks(const Scenario& s, search::SearchOptions opt) { return search::run_search(s, opt); }

#endif

}  // namespace fleetsim::mpi
