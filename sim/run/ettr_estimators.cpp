#include "sim/run/ettr_estimators.hpp"

#include <cmath>

#include <Eigen/Dense>

namespace fleetsim::run {

double meta_expected_ettr(double nodes, PerSecond rate_per_node, Seconds u0, Seconds interval,
                          Seconds write) {
  const double loss = nodes * rate_per_node.si() * (u0.si() + 0.5 * interval.si());
  return (1.0 - loss) / (1.0 + write.si() / interval.si());
}

double daly_ettr(Seconds mtti, Seconds interval, Seconds dump, Seconds restart) {
  const double m = mtti.si();
  return interval.si() / (m * std::exp(restart.si() / m) * std::expm1((interval.si() + dump.si()) / m));
}

double markov_ettr(const MarkovEttrInputs& in) {
  const int k = std::max(1, in.cycle_stages);
  const int j = in.restart.si() > 0 ? std::max(1, in.restart_stages) : 0;
  const int n = k + j;
  const double lambda = 1.0 / in.mtti.si();
  const double cycle_rate = k / (in.interval.si() + in.dump.si());
  const double restart_rate = j > 0 ? j / in.restart.si() : 0.0;
  const int first_restart = j > 0 ? k : 0;  // without a restart a failure goes back to cycle stage 0
  Eigen::MatrixXd q = Eigen::MatrixXd::Zero(n, n);
  for (int s = 0; s < k; ++s) {
    q(s, (s + 1) % k) += cycle_rate;  // the last stage completes a cycle: work committed
    q(s, first_restart) += lambda;
  }
  for (int s = 0; s < j; ++s) {
    q(k + s, s + 1 < j ? k + s + 1 : 0) += restart_rate;
    q(k + s, k) += lambda;  // a failure during the restart starts it again
  }
  for (int s = 0; s < n; ++s) q(s, s) -= q.row(s).sum();
  // pi Q = 0 with sum(pi) = 1: solve Q^T pi = 0 with one equation replaced by the normalization.
  Eigen::MatrixXd a = q.transpose();
  a.row(n - 1).setOnes();
  Eigen::VectorXd b = Eigen::VectorXd::Zero(n);
  b(n - 1) = 1.0;
  const Eigen::VectorXd pi = a.partialPivLu().solve(b);
  return pi(k - 1) * cycle_rate * in.interval.si();
}

}  // namespace fleetsim::run
