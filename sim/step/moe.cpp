#include "sim/step/moe.hpp"

#include <algorithm>
#include <cmath>

namespace fleetsim::step {

namespace {

// Sum of i^-s for i = 1..n: exact up to a few thousand terms; beyond, the first terms exactly and
// the tail by the midpoint integral of x^-s (error well below 1e-6 relative), so a scenario with
// millions of experts costs microseconds, not a loop per expert.
double zipf_sum(long long n, double s) {
  constexpr long long kExact = 4096;
  double sum = 0;
  const long long head = std::min(n, kExact);
  for (long long i = 1; i <= head; ++i) sum += std::pow(static_cast<double>(i), -s);
  if (n > head) {
    const double a = head + 0.5, b = static_cast<double>(n) + 0.5;
    sum += std::fabs(s - 1.0) < 1e-12 ? std::log(b / a) : (std::pow(b, 1.0 - s) - std::pow(a, 1.0 - s)) / (1.0 - s);
  }
  return sum;
}

}  // namespace

double moe_rank_load(const ModelSpec& m, int ep) {
  if (!m.is_moe() || ep <= 1 || m.moe_token_distribution != "zipf" || m.moe_zipf_exponent <= 0) return 1.0;
  const long long E = m.num_experts, per_rank = std::max<long long>(1, E / ep);
  // The busiest rank under contiguous placement is the one holding the most popular experts
  // (shares fall with the index), i.e. rank 0: its share of all routed tokens times EP.
  const double first = zipf_sum(per_rank, m.moe_zipf_exponent), total = zipf_sum(E, m.moe_zipf_exponent);
  return std::max(1.0, first / total * ep);
}

EpTransfer ep_transfer(const ModelSpec& m, const Layout& l, const CollectiveModel& net, double tokens,
                       double bytes_per_element, double rank_load) {
  EpTransfer out;
  if (l.ep <= 1) return out;
  const double h = m.hidden_size, k = m.moe_router_topk;
  const double vec = h * bytes_per_element;  // one token's hidden vector
  if (m.moe_router_max_nodes <= 0) {
    // Flat all-to-all (Megatron-core's dispatcher): every routed copy is sent to its expert's rank.
    const Bytes sent(tokens * k * std::max(1.0, m.moe_capacity_factor) * vec);
    out.time = net.time(Collective::AllToAll, sent, l.ep_group) * rank_load;
    const int per_domain = std::max(1, std::min(l.ep, net.domain_gpus() / std::max(1, l.ep_group.stride)));
    const double remote = 1.0 - static_cast<double>(per_domain) / l.ep;
    out.fabric_bytes = sent * remote;
    out.nvlink_bytes = sent * (1.0 - remote);
    return out;
  }
  // Hierarchical dispatch (DeepSeek-V3 §3.2.2): the EP group spans N NVLink domains with n_in
  // members each; a token picks at most M of them, sends one copy over IB to each remote node it
  // picked and the receiving GPU forwards it over NVLink to the experts there.
  const int stride = std::max(1, l.ep_group.stride);
  const int n_in = std::max(1, std::min(l.ep, net.domain_gpus() / stride));
  const double N = std::ceil(static_cast<double>(l.ep) / n_in);
  const double M = std::min<double>(N, m.moe_router_max_nodes);
  // Expected distinct nodes among k experts drawn uniformly from the M nodes a token may use
  // (balanced routing), and of those the remote ones (the token's own node is one of the N with
  // equal chance).
  const double nodes = M * (1.0 - std::pow(1.0 - 1.0 / M, k));
  const double remote_nodes = nodes * (N - 1.0) / N;
  // Copies that move over NVLink: each of the k routed copies to an expert on another GPU of its
  // node (the forwarding GPU or, for local experts, the sender itself): (n_in - 1) / n_in of them.
  const double nvl_copies = k * (n_in - 1.0) / n_in;
  out.fabric_bytes = Bytes(tokens * remote_nodes * vec);
  out.nvlink_bytes = Bytes(tokens * nvl_copies * vec);
  const double ib = out.fabric_bytes.si() / net.fabric_bandwidth_per_gpu().si();
  const double nvl = out.nvlink_bytes.si() / net.nvlink_bandwidth().si();
  // IB and NVLink legs are pipelined (warp-specialized forwarding), so the slower one sets the
  // time; the busiest rank receives rank_load times the mean.
  // Latency: one cross-node message (the kernels stream chunks; no per-peer steps as in a ring).
  const Seconds alpha = net.p2p(Bytes(1), stride * n_in);
  out.time = Seconds(std::max(ib, nvl) * rank_load) + alpha;
  return out;
}

}  // namespace fleetsim::step
