// Fitting a stack's efficiencies to measured runs (fit.hpp).
#include "sim/calibrate/fit.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <set>

#include "sim/core/error.hpp"
#include "sim/step/step_model.hpp"
#include "sim/uncertainty/parameter_bootstrap.hpp"
#include "sim/uncertainty/user_calibration.hpp"

namespace fleetsim::calibrate {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// A parameter whose elasticity (d log T / d log value, RMS over the calibration rows) is below this
// does not move the rows: doubling it changes their times by under 0.35%, below the run-to-run
// noise of a measured step time.
constexpr double kMinSensitivity = 0.005;
// Above this condition number of the column-scaled Jacobian two parameters move the rows alike
// (for two columns, cond 30 is a correlation of 0.998): one of them stays at the preset.
constexpr double kMaxCondition = 30;
// Forward-difference step in log(value): 1%, wider than the step model's wave and tile steps.
constexpr double kJacobianStep = 0.01;
constexpr int kLeaveOneOutMaxRows = 20;  // above: 5-fold
constexpr int kFolds = 5;
constexpr int kRefitBootstrapMaxRows = 50;  // above: the linearized bootstrap

// The model's log error on a set of rows as a function of the fitted parameters' log values.
struct Problem {
  const Measurements& m;
  std::vector<const StackParameter*> params;
  VectorXd lo, hi;  // bounds of log(value)
  long long* evaluations;
  std::vector<std::pair<const StackParameter*, double>> fixed;  // from traces

  [[nodiscard]] double predict(size_t row, const VectorXd& u) const {
    ClusterSpec c = m.rows[row].scenario.cluster;
    for (const auto& [p, v] : fixed) p->set(c, v);
    for (size_t k = 0; k < params.size(); ++k) params[k]->set(c, std::exp(u[static_cast<Eigen::Index>(k)]));
    ++*evaluations;
    return evaluate_step(c, m.rows[row].scenario.workload).iteration_time.si();
  }
  [[nodiscard]] VectorXd residuals(const std::vector<size_t>& rows, const VectorXd& u) const {
    VectorXd r(static_cast<Eigen::Index>(rows.size()));
    for (size_t i = 0; i < rows.size(); ++i)
      r[static_cast<Eigen::Index>(i)] = std::log(predict(rows[i], u) / m.rows[rows[i]].measured_time_s);
    return r;
  }
  // d r / d u by forward differences (backward at an upper bound).
  [[nodiscard]] MatrixXd jacobian(const std::vector<size_t>& rows, const VectorXd& u, const VectorXd& r) const {
    MatrixXd j(static_cast<Eigen::Index>(rows.size()), u.size());
    for (Eigen::Index k = 0; k < u.size(); ++k) {
      VectorXd v = u;
      const double h = v[k] + kJacobianStep > hi[k] ? -kJacobianStep : kJacobianStep;
      v[k] += h;
      j.col(k) = (residuals(rows, v) - r) / h;
    }
    return j;
  }
  [[nodiscard]] VectorXd clamp(VectorXd u) const {
    for (Eigen::Index k = 0; k < u.size(); ++k) u[k] = std::clamp(u[k], lo[k], hi[k]);
    return u;
  }
};

double weighted_cost(const VectorXd& r, const VectorXd& w) { return (w.array() * r.array().square()).sum(); }

// Bounded Levenberg-Marquardt on sum w_i r_i^2 (Levenberg 1944, Marquardt 1963; Nocedal & Wright,
// Numerical Optimization, 2nd ed., §10.3), with Marquardt's diagonal scaling and the step projected
// onto the bounds; a parameter on a bound whose gradient points outward is held for that step.
VectorXd fit_lm(const Problem& P, const std::vector<size_t>& rows, const VectorXd& w, VectorXd u, int max_iter) {
  if (u.size() == 0 || rows.empty()) return u;
  u = P.clamp(u);
  VectorXd r = P.residuals(rows, u);
  double cost = weighted_cost(r, w);
  double lambda = 1e-2;
  for (int it = 0; it < max_iter; ++it) {
    const MatrixXd J = P.jacobian(rows, u, r);
    const VectorXd g = J.transpose() * (w.asDiagonal() * r);
    MatrixXd A = J.transpose() * w.asDiagonal() * J;
    std::vector<bool> held(static_cast<size_t>(u.size()), false);
    for (Eigen::Index k = 0; k < u.size(); ++k)
      held[static_cast<size_t>(k)] = (u[k] <= P.lo[k] + 1e-12 && g[k] > 0) || (u[k] >= P.hi[k] - 1e-12 && g[k] < 0);
    bool accepted = false;
    double step = 0, new_cost = cost;
    for (int tries = 0; tries < 10 && !accepted; ++tries) {
      MatrixXd M = A;
      VectorXd b = -g;
      for (Eigen::Index k = 0; k < u.size(); ++k) {
        M(k, k) += lambda * std::max(A(k, k), 1e-12) + 1e-12;
        if (held[static_cast<size_t>(k)]) {
          M.row(k).setZero();
          M.col(k).setZero();
          M(k, k) = 1;
          b[k] = 0;
        }
      }
      const VectorXd d = M.ldlt().solve(b);
      const VectorXd ut = P.clamp(u + d);
      const VectorXd rt = P.residuals(rows, ut);
      const double ct = weighted_cost(rt, w);
      if (ct < cost) {
        step = (ut - u).cwiseAbs().maxCoeff();
        u = ut, r = rt, new_cost = ct, accepted = true;
        lambda = std::max(lambda / 3, 1e-7);
      } else {
        lambda *= 4;
      }
    }
    if (!accepted) break;
    const double gain = cost - new_cost;
    cost = new_cost;
    if (gain < 1e-10 * (1 + cost) || step < 1e-5) break;
  }
  return u;
}

double mean_abs(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += std::fabs(x);
  return s / static_cast<double>(v.size());
}

// Condition number of J with each column scaled to unit norm, and the right singular vector of its
// smallest singular value (which parameters move the rows alike).
std::pair<double, VectorXd> scaled_condition(const MatrixXd& J) {
  MatrixXd S = J;
  for (Eigen::Index k = 0; k < S.cols(); ++k)
    if (const double n = S.col(k).norm(); n > 0) S.col(k) /= n;
  Eigen::JacobiSVD<MatrixXd> svd(S, Eigen::ComputeThinV);
  const VectorXd& s = svd.singularValues();
  const double smin = s[s.size() - 1];
  const double cond = smin > 0 ? s[0] / smin : 1e300;
  return {cond, svd.matrixV().col(s.size() - 1)};
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t a = static_cast<size_t>(std::floor(pos));
  const size_t b = std::min(a + 1, v.size() - 1);
  return v[a] + (pos - static_cast<double>(a)) * (v[b] - v[a]);
}

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

}  // namespace

const char* status_name(ParameterStatus s) {
  switch (s) {
    case ParameterStatus::Fitted: return "fitted";
    case ParameterStatus::NotExercised: return "not identified: the rows do not exercise it";
    case ParameterStatus::Collinear: return "not identified: collinear with a fitted parameter";
    case ParameterStatus::TooFewRows: return "not identified: too few rows";
    case ParameterStatus::SetByColumn: return "set by a column";
    case ParameterStatus::Unset: return "not set by the preset (0)";
    case ParameterStatus::NotAsked: return "set by the preset (not asked)";
    case ParameterStatus::FromTraces: return "fitted on traces";
  }
  return "";
}

int Calibration::fitted_count() const {
  int n = 0;
  for (const auto& p : parameters) n += p.status == ParameterStatus::Fitted ? 1 : 0;
  return n;
}


Calibration calibrate(const Measurements& m, const FitOptions& o) {
  Calibration out;
  out.level = o.level;
  long long evaluations = 0;
  std::vector<size_t> cal, judged;
  for (size_t i = 0; i < m.rows.size(); ++i) (m.rows[i].judged ? judged : cal).push_back(i);
  const auto n_cal = static_cast<int>(cal.size());
  const ClusterSpec& ref = m.rows[cal.front()].scenario.cluster;
  for (const auto& r : m.rows)
    if (r.scenario.cluster.gpu.name != ref.gpu.name)
      throw ConfigError(m.path, "cluster.gpu", "row " + std::to_string(r.number) + ": GPU '" + r.scenario.cluster.gpu.name +
                                                   "' differs from row " + std::to_string(m.rows[cal.front()].number) +
                                                   "'s '" + ref.gpu.name + "'; one stack is calibrated on one GPU type",
                        r.line);

  // Candidates: the asked parameters, or every one the base GPU sets.
  std::vector<ParameterFit> fits;
  std::set<std::string> asked(o.fit.begin(), o.fit.end());
  for (const auto& name : o.fit) (void)stack_parameter(name, "--fit");
  for (const auto& p : stack_parameters()) {
    ParameterFit f;
    f.p = for_gpu(p, ref.gpu);
    f.preset = f.value = f.lo = f.hi = p.get(ref);
    bool by_column = false;
    for (const auto& c : m.columns) by_column = by_column || c == p.key;
    bool from_traces = false;
    for (const auto& [name, v] : o.fixed)
      if (name == p.name) from_traces = true, f.value = f.lo = f.hi = v;
    if (from_traces) {
      f.status = ParameterStatus::FromTraces;
      f.why = "fitted on the profiler traces' GEMM shapes (--trace); held while the rows fit the rest";
    } else if (!asked.empty() && !asked.count(p.name)) {
      f.status = ParameterStatus::NotAsked;
      f.why = "not in --fit";
    } else if (by_column) {
      f.status = ParameterStatus::SetByColumn;
      f.why = "the column " + p.key + " sets it per row";
    } else if (!(f.preset > 0)) {
      f.status = ParameterStatus::Unset;
      f.why = "the base GPU (" + ref.gpu.name + ") does not set it (0: the mechanism is off)";
    } else {
      f.status = ParameterStatus::Fitted;  // provisional
    }
    fits.push_back(f);
  }
  const int asked_count = static_cast<int>(asked.size());
  if (n_cal < 2)
    throw ConfigError(m.path, "", "1 calibration row cannot fit anything: at least 2 calibration rows are needed to fit "
                                  "one parameter (p parameters need p + 1)");
  if (asked_count > 0 && n_cal < asked_count + 1)
    throw ConfigError(m.path, "", std::to_string(n_cal) + " calibration rows are too few for the " +
                                      std::to_string(asked_count) + " parameters asked with --fit: at least " +
                                      std::to_string(asked_count + 1) + " are needed (p parameters need p + 1 rows)");

  // Identifiability at the preset: sensitivity of each candidate, then conditioning.
  std::vector<size_t> cand;
  for (size_t k = 0; k < fits.size(); ++k)
    if (fits[k].status == ParameterStatus::Fitted) cand.push_back(k);
  auto problem_for = [&](const std::vector<size_t>& idx) {
    Problem P{m, {}, VectorXd(static_cast<Eigen::Index>(idx.size())), VectorXd(static_cast<Eigen::Index>(idx.size())),
              &evaluations, {}};
    for (const auto& f : fits)
      if (f.status == ParameterStatus::FromTraces) P.fixed.emplace_back(&f.p, f.value);
    for (size_t j = 0; j < idx.size(); ++j) {
      P.params.push_back(&fits[idx[j]].p);
      P.lo[static_cast<Eigen::Index>(j)] = std::log(fits[idx[j]].p.lo);
      P.hi[static_cast<Eigen::Index>(j)] = std::log(fits[idx[j]].p.hi);
    }
    return P;
  };
  auto start_for = [&](const std::vector<size_t>& idx, const Problem& P) {
    VectorXd u(static_cast<Eigen::Index>(idx.size()));
    for (size_t j = 0; j < idx.size(); ++j) u[static_cast<Eigen::Index>(j)] = std::log(fits[idx[j]].preset);
    return P.clamp(u);
  };
  if (!cand.empty()) {
    const Problem P = problem_for(cand);
    const VectorXd u0 = start_for(cand, P);
    const MatrixXd J = P.jacobian(cal, u0, P.residuals(cal, u0));
    std::vector<size_t> kept, kept_col;
    for (size_t j = 0; j < cand.size(); ++j) {
      auto& f = fits[cand[j]];
      f.sensitivity = std::sqrt(J.col(static_cast<Eigen::Index>(j)).squaredNorm() / n_cal);
      if (f.sensitivity < kMinSensitivity) {
        f.status = ParameterStatus::NotExercised;
        f.why = "the rows' times move by " + fmt(100 * f.sensitivity) + "% per 1% change (below " +
                fmt(100 * kMinSensitivity) + "%)";
      } else {
        kept.push_back(cand[j]);
        kept_col.push_back(j);
      }
    }
    // Drop one parameter at a time while the rest are collinear: of those carrying the weakest
    // direction, the one last in stack_parameters()' order.
    while (kept.size() >= 2) {
      MatrixXd Jk(J.rows(), static_cast<Eigen::Index>(kept.size()));
      for (size_t j = 0; j < kept.size(); ++j) Jk.col(static_cast<Eigen::Index>(j)) = J.col(static_cast<Eigen::Index>(kept_col[j]));
      const auto [cond, v] = scaled_condition(Jk);
      if (cond <= kMaxCondition) break;
      const double vmax = v.cwiseAbs().maxCoeff();
      size_t drop = 0;
      std::string partners;
      for (size_t j = 0; j < kept.size(); ++j)
        if (std::fabs(v[static_cast<Eigen::Index>(j)]) >= 0.5 * vmax) drop = j;
      for (size_t j = 0; j < kept.size(); ++j)
        if (j != drop && std::fabs(v[static_cast<Eigen::Index>(j)]) >= 0.5 * vmax)
          partners += (partners.empty() ? "" : ", ") + fits[kept[j]].p.name;
      auto& f = fits[kept[drop]];
      f.status = ParameterStatus::Collinear;
      f.why = "moves the rows' times like " + partners + " (condition number " + fmt(cond) + " > " + fmt(kMaxCondition) + ")";
      kept.erase(kept.begin() + static_cast<long>(drop));
      kept_col.erase(kept_col.begin() + static_cast<long>(drop));
    }
    // p parameters need p + 1 rows: keep the most sensitive.
    while (static_cast<int>(kept.size()) > n_cal - 1) {
      size_t weakest = 0;
      for (size_t j = 1; j < kept.size(); ++j)
        if (fits[kept[j]].sensitivity < fits[kept[weakest]].sensitivity) weakest = j;
      auto& f = fits[kept[weakest]];
      f.status = ParameterStatus::TooFewRows;
      f.why = std::to_string(n_cal) + " calibration rows fit at most " + std::to_string(n_cal - 1) +
              " parameters; it is the least sensitive of those left";
      kept.erase(kept.begin() + static_cast<long>(weakest));
      kept_col.erase(kept_col.begin() + static_cast<long>(weakest));
    }
    cand = kept;
  }
  out.min_rows = static_cast<int>(cand.size()) + 1;

  // The fit on every calibration row, from the preset.
  const Problem P = problem_for(cand);
  const VectorXd u0 = start_for(cand, P);
  const VectorXd ones = VectorXd::Ones(n_cal);
  const VectorXd u = fit_lm(P, cal, ones, u0, 40);
  for (size_t j = 0; j < cand.size(); ++j) {
    auto& f = fits[cand[j]];
    const auto jj = static_cast<Eigen::Index>(j);
    f.value = std::exp(u[jj]);
    f.at_bound = u[jj] <= P.lo[jj] + 1e-9 || u[jj] >= P.hi[jj] - 1e-9;
    f.why = f.at_bound ? "fitted, on its physical bound" : "fitted";
  }
  if (!cand.empty()) {
    const VectorXd r = P.residuals(cal, u);
    out.condition_number = scaled_condition(P.jacobian(cal, u, r)).first;
  }

  // Predictions: preset, fit, held out.
  out.rows.resize(m.rows.size());
  for (size_t i = 0; i < m.rows.size(); ++i) {
    auto& rf = out.rows[i];
    rf.measured_s = m.rows[i].measured_time_s;
    ++evaluations;
    rf.preset_s = evaluate_step(m.rows[i].scenario.cluster, m.rows[i].scenario.workload).iteration_time.si();
    rf.fitted_s = cand.empty() && P.fixed.empty() ? rf.preset_s : P.predict(i, u);
    rf.held_out_s = rf.fitted_s;
  }
  // Cross-validation: every calibration row predicted by a fit that did not see it, fitted the
  // same way (from the preset, on the same identified parameters).
  const bool loo = n_cal <= kLeaveOneOutMaxRows;
  out.folds = loo ? n_cal : kFolds;
  out.cross_validation = loo ? "leave-one-out" : std::to_string(kFolds) + "-fold";
  if (!cand.empty())
    for (int fold = 0; fold < out.folds; ++fold) {
      std::vector<size_t> train, test;
      for (int j = 0; j < n_cal; ++j) (j % out.folds == fold ? test : train).push_back(cal[static_cast<size_t>(j)]);
      const VectorXd uf = fit_lm(P, train, VectorXd::Ones(static_cast<Eigen::Index>(train.size())), u0, 40);
      for (size_t i : test) out.rows[i].held_out_s = P.predict(i, uf);
    }

  // Bootstrap of the fitted values (Efron & Tibshirani 1993, ch. 6 and 9: rows resampled with
  // replacement, the fit repeated). Few rows: each resample refitted from the all-rows fit. Many
  // rows (a resample's fit then lies close to it): one Gauss-Newton step from the fit with the
  // Jacobian there, the linear approximation of a nonlinear least-squares bootstrap (Davison &
  // Hinkley 1997, ch. 7), which costs no further evaluation.
  out.draws = cand.empty() ? 0 : o.draws;
  out.bootstrap_method = n_cal <= kRefitBootstrapMaxRows ? "refit" : "linearized";
  if (!cand.empty() && o.draws > 0) {
    std::vector<std::vector<double>> draws(cand.size());
    MatrixXd J;
    VectorXd r;
    if (n_cal > kRefitBootstrapMaxRows) {
      r = P.residuals(cal, u);
      J = P.jacobian(cal, u, r);
    }
    for (int b = 1; b <= o.draws; ++b) {
      const std::vector<double> wv = uncertainty::resample_weights(n_cal, o.seed, b, "calibrate");
      const VectorXd w = Eigen::Map<const VectorXd>(wv.data(), static_cast<Eigen::Index>(wv.size()));
      VectorXd ub;
      if (n_cal <= kRefitBootstrapMaxRows) {
        ub = fit_lm(P, cal, w, u, 12);
      } else {
        // A parameter the fit left on a bound stays there (the bounded fit would hold it for a
        // resample pushing the same way); the others take the weighted Gauss-Newton step.
        std::vector<Eigen::Index> free;
        for (size_t j = 0; j < cand.size(); ++j)
          if (!fits[cand[j]].at_bound) free.push_back(static_cast<Eigen::Index>(j));
        ub = u;
        if (!free.empty()) {
          MatrixXd Jf(J.rows(), static_cast<Eigen::Index>(free.size()));
          for (size_t j = 0; j < free.size(); ++j) Jf.col(static_cast<Eigen::Index>(j)) = J.col(free[j]);
          const MatrixXd A = Jf.transpose() * w.asDiagonal() * Jf + 1e-12 * MatrixXd::Identity(Jf.cols(), Jf.cols());
          const VectorXd d = A.ldlt().solve(-(Jf.transpose() * (w.asDiagonal() * r)));
          for (size_t j = 0; j < free.size(); ++j) ub[free[j]] += d[static_cast<Eigen::Index>(j)];
          ub = P.clamp(ub);
        }
      }
      for (size_t j = 0; j < cand.size(); ++j) draws[j].push_back(std::exp(ub[static_cast<Eigen::Index>(j)]));
    }
    for (size_t j = 0; j < cand.size(); ++j) {
      fits[cand[j]].lo = percentile(draws[j], (1 - o.level) / 2);
      fits[cand[j]].hi = percentile(draws[j], (1 + o.level) / 2);
    }
  }
  for (auto& f : fits)
    if (f.status != ParameterStatus::Fitted && f.status != ParameterStatus::FromTraces) f.lo = f.hi = f.value = f.preset;

  std::vector<double> ep, ef, eh, jp, jf, abs_log_held;
  for (size_t i = 0; i < m.rows.size(); ++i) {
    const auto& rf = out.rows[i];
    if (m.rows[i].judged) {
      jp.push_back(rf.error_preset());
      jf.push_back(rf.error_fitted());
    } else {
      ep.push_back(rf.error_preset());
      ef.push_back(rf.error_fitted());
      eh.push_back(rf.error_held_out());
      abs_log_held.push_back(std::fabs(std::log(rf.held_out_s / rf.measured_s)));
    }
  }
  out.calibration_count = n_cal;
  out.judged_count = static_cast<int>(judged.size());
  out.calibration_preset = mean_abs(ep);
  out.calibration_fitted = mean_abs(ef);
  out.calibration_held_out = mean_abs(eh);
  out.judged_preset = mean_abs(jp);
  out.judged_fitted = mean_abs(jf);
  out.interval_half_width = uncertainty::conformal_half_width(abs_log_held, o.level);
  out.parameters = std::move(fits);
  out.evaluations = evaluations;
  return out;
}

}  // namespace fleetsim::calibrate
