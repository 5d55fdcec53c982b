#include "sim/pool/fgd.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "sim/core/error.hpp"
#include "sim/run/rng.hpp"

namespace fleetsim::pool {
namespace {

constexpr int kMaxGpus = 8;
constexpr std::uint64_t kFgdStream = 1010;

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

// Rows as maps column -> text, with the header checked for `need`.
std::vector<std::map<std::string, std::string>> read_csv(const std::string& path, const std::vector<std::string>& need) {
  std::ifstream in(path);
  if (!in) throw ConfigError(path, "", "cannot open the file");
  std::string line;
  std::getline(in, line);
  const auto header = split(line);
  for (const auto& n : need)
    if (std::find(header.begin(), header.end(), n) == header.end())
      throw ConfigError(path, n, "missing column; the header is '" + line + "'", 1);
  std::vector<std::map<std::string, std::string>> rows;
  int row = 1;
  while (std::getline(in, line)) {
    ++row;
    if (line.empty()) continue;
    const auto cells = split(line);
    if (cells.size() != header.size())
      throw ConfigError(path, "", "row " + std::to_string(row) + " has " + std::to_string(cells.size()) +
                                      " cells; the header has " + std::to_string(header.size()), row);
    std::map<std::string, std::string> m;
    for (size_t i = 0; i < cells.size(); ++i) m[header[i]] = cells[i];
    m["#row"] = std::to_string(row);
    rows.push_back(std::move(m));
  }
  return rows;
}

long long number(const std::string& path, const std::map<std::string, std::string>& r, const std::string& col) {
  const std::string& s = r.at(col);
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || v < 0)
    throw ConfigError(path, col, "row " + r.at("#row") + ": '" + s + "' is not a non-negative integer",
                      std::stoi(r.at("#row")));
  return v;
}

struct Node {
  int cpu = 0;
  long long mem = 0;
  int gpus = 0;
  std::array<int, kMaxGpus> free{};  // milli per GPU
};

struct TaskClass {
  double p = 0;     // popularity
  int cpu = 0;      // mean CPU request of the class
  long long mem = 0;
  int num_gpu = 0, gpu_milli = 0;
};

int free_total(const Node& n) {
  int s = 0;
  for (int i = 0; i < n.gpus; ++i) s += n.free[i];
  return s;
}

bool fits(const Node& n, int cpu, long long mem, int num_gpu, int gpu_milli) {
  if (cpu > n.cpu || mem > n.mem) return false;
  if (num_gpu == 0) return true;
  if (gpu_milli < 1000) {
    for (int i = 0; i < n.gpus; ++i)
      if (n.free[i] >= gpu_milli) return true;
    return false;
  }
  int whole = 0;
  for (int i = 0; i < n.gpus; ++i) whole += n.free[i] == 1000;
  return whole >= num_gpu;
}

// F_n(M) of FGD (ATC'23 §4.2): the expected GPU capacity of node n that a task drawn from the
// workload M cannot use. A task that does not fit, or asks for no GPU, sees every free GPU as a
// fragment; a task that fits sees the GPUs whose free share is below what it needs per GPU.
double fragmentation(const Node& n, const std::vector<TaskClass>& M) {
  const int total = free_total(n);
  double f = 0;
  for (const auto& m : M) {
    if (m.num_gpu == 0 || !fits(n, m.cpu, m.mem, m.num_gpu, m.gpu_milli)) {
      f += m.p * total;
      continue;
    }
    const int need = std::min(m.gpu_milli, 1000);
    int frag = 0;
    for (int i = 0; i < n.gpus; ++i)
      if (n.free[i] < need) frag += n.free[i];
    f += m.p * frag;
  }
  return f;
}

// Applies a pod to a node on GPU `gpu` (fractional) or on whole free GPUs.
void apply(Node& n, const OpenbPod& p, int gpu) {
  n.cpu -= p.cpu_milli;
  n.mem -= p.memory_mib;
  if (p.num_gpu == 0) return;
  if (p.gpu_milli < 1000) {
    n.free[gpu] -= p.gpu_milli;
    return;
  }
  int left = p.num_gpu;
  for (int i = 0; i < n.gpus && left > 0; ++i)
    if (n.free[i] == 1000) n.free[i] = 0, --left;
}

struct Choice {
  int node = -1, gpu = -1;
};

}  // namespace

const char* fgd_policy_name(FgdPolicy p) {
  switch (p) {
    case FgdPolicy::BestFit: return "best-fit";
    case FgdPolicy::Packing: return "packing";
    case FgdPolicy::FragmentationAware: return "fragmentation-aware";
  }
  return "?";
}

std::vector<OpenbNode> read_openb_nodes(const std::string& path) {
  std::vector<OpenbNode> out;
  for (const auto& r : read_csv(path, {"cpu_milli", "memory_mib", "gpu"})) {
    OpenbNode n;
    n.cpu_milli = static_cast<int>(number(path, r, "cpu_milli"));
    n.memory_mib = number(path, r, "memory_mib");
    n.gpus = static_cast<int>(number(path, r, "gpu"));
    if (n.gpus > kMaxGpus) throw ConfigError(path, "gpu", "row " + r.at("#row") + ": more than 8 GPUs per node");
    out.push_back(n);
  }
  if (out.empty()) throw ConfigError(path, "", "holds no node");
  return out;
}

std::vector<OpenbPod> read_openb_pods(const std::string& path) {
  std::vector<OpenbPod> out;
  for (const auto& r : read_csv(path, {"cpu_milli", "memory_mib", "num_gpu", "gpu_milli"})) {
    OpenbPod p;
    p.cpu_milli = static_cast<int>(number(path, r, "cpu_milli"));
    p.memory_mib = number(path, r, "memory_mib");
    p.num_gpu = static_cast<int>(number(path, r, "num_gpu"));
    p.gpu_milli = static_cast<int>(number(path, r, "gpu_milli"));
    if (p.gpu_milli > 1000 || (p.gpu_milli < 1000 && p.num_gpu > 1) || p.num_gpu > kMaxGpus)
      throw ConfigError(path, "gpu_milli", "row " + r.at("#row") + ": a share below 1000 is for one GPU; 1000 per GPU otherwise");
    out.push_back(p);
  }
  if (out.empty()) throw ConfigError(path, "", "holds no pod");
  return out;
}

FgdCurve replay_openb(const std::vector<OpenbNode>& spec_nodes, const std::vector<OpenbPod>& pods, FgdPolicy policy,
                      std::uint64_t seed, int repetition, double step) {
  std::vector<Node> nodes;
  long long capacity = 0;
  for (const auto& s : spec_nodes) {
    Node n;
    n.cpu = s.cpu_milli;
    n.mem = s.memory_mib;
    n.gpus = s.gpus;
    for (int i = 0; i < n.gpus; ++i) n.free[i] = 1000;
    capacity += 1000LL * s.gpus;
    nodes.push_back(n);
  }
  // The workload M: task classes by GPU request, with their popularity in the pod list (the
  // paper measures fragmentation against the target workload's distribution).
  std::map<std::pair<int, int>, TaskClass> classes;
  std::map<std::pair<int, int>, double> cpu_sum, mem_sum;
  for (const auto& p : pods) {
    auto& c = classes[{p.num_gpu, p.gpu_milli}];
    c.num_gpu = p.num_gpu;
    c.gpu_milli = p.gpu_milli;
    c.p += 1.0;
    cpu_sum[{p.num_gpu, p.gpu_milli}] += p.cpu_milli;
    mem_sum[{p.num_gpu, p.gpu_milli}] += static_cast<double>(p.memory_mib);
  }
  std::vector<TaskClass> M;
  for (auto& [k, c] : classes) {
    c.cpu = static_cast<int>(cpu_sum[k] / c.p);
    c.mem = static_cast<long long>(mem_sum[k] / c.p);
    c.p /= static_cast<double>(pods.size());
    M.push_back(c);
  }
  std::vector<double> frag_now(nodes.size());
  if (policy == FgdPolicy::FragmentationAware)
    for (size_t i = 0; i < nodes.size(); ++i) frag_now[i] = fragmentation(nodes[i], M);

  run::Rng rng(seed, static_cast<std::uint64_t>(repetition), kFgdStream);
  FgdCurve curve;
  long long arrived = 0, allocated = 0;
  double next_point = step;
  while (arrived < capacity) {
    const OpenbPod& p = pods[static_cast<size_t>(rng.uniform() * static_cast<double>(pods.size())) % pods.size()];
    arrived += p.gpu_request_milli();
    Choice best;
    double best_score = 0;
    const bool shared = p.num_gpu == 1 && p.gpu_milli < 1000;
    for (size_t ni = 0; ni < nodes.size(); ++ni) {
      const Node& n = nodes[ni];
      if (!fits(n, p.cpu_milli, p.memory_mib, p.num_gpu, p.gpu_milli)) continue;
      // Candidate GPUs: for a shared pod, each distinct free level that holds it.
      std::array<int, kMaxGpus> cand{};
      int nc = 0;
      if (shared) {
        for (int i = 0; i < n.gpus; ++i) {
          if (n.free[i] < p.gpu_milli) continue;
          bool seen = false;
          for (int k = 0; k < nc; ++k) seen = seen || n.free[cand[k]] == n.free[i];
          if (!seen) cand[nc++] = i;
        }
      } else {
        cand[nc++] = -1;
      }
      for (int k = 0; k < nc; ++k) {
        double score = 0.0;
        switch (policy) {
          case FgdPolicy::FragmentationAware: {
            Node after = n;
            apply(after, p, cand[k]);
            score = fragmentation(after, M) - frag_now[ni];
            break;
          }
          case FgdPolicy::BestFit: {
            // Least remaining resources after placement: free GPU share plus free CPU share
            // (Kubernetes-style best fit as in the paper's baselines).
            Node after = n;
            apply(after, p, cand[k]);
            const double g = n.gpus > 0 ? free_total(after) / (1000.0 * n.gpus) : 0.0;
            score = g + static_cast<double>(after.cpu) / std::max(1, spec_nodes[ni].cpu_milli);
            break;
          }
          case FgdPolicy::Packing: {
            // GPU packing: a shared pod goes to the fullest partly used GPU, then to a GPU on the
            // most allocated node; whole-GPU and CPU pods to the most allocated node that fits.
            const double node_used = n.gpus > 0 ? 1.0 - free_total(n) / (1000.0 * n.gpus) : 0.0;
            if (shared) {
              const int f = n.free[cand[k]];
              score = (f < 1000 ? 0.0 : 2.0) + f / 1000.0 - node_used;
            } else {
              score = -node_used + (p.num_gpu == 0 && n.gpus > 0 ? 1.0 : 0.0);
            }
            break;
          }
        }
        if (best.node < 0 || score < best_score - 1e-12) {
          best = {static_cast<int>(ni), cand[k]};
          best_score = score;
        }
      }
    }
    if (best.node < 0) {
      ++curve.failed_pods;
    } else {
      apply(nodes[best.node], p, best.gpu);
      allocated += p.gpu_request_milli();
      if (policy == FgdPolicy::FragmentationAware) frag_now[best.node] = fragmentation(nodes[best.node], M);
    }
    const double a = static_cast<double>(arrived) / static_cast<double>(capacity);
    while (a >= next_point - 1e-12 && next_point <= 1.0 + 1e-12) {
      curve.arrived.push_back(next_point);
      curve.unallocated.push_back(static_cast<double>(capacity - allocated) / static_cast<double>(capacity));
      next_point += step;
    }
  }
  curve.unallocated_at_full = static_cast<double>(capacity - allocated) / static_cast<double>(capacity);
  return curve;
}

}  // namespace fleetsim::pool
