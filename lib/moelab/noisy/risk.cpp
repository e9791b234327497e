#include "moelab/noisy/risk.hpp"

#include <cstddef>

#include "moelab/core/error.hpp"

namespace moelab::noisy {

namespace {

/// v' Sigma v.
double sigma_norm2(const Eigen::MatrixXd& sigma, const Eigen::VectorXd& v) { return v.dot(sigma * v); }

/// (b_i - beta_i*)' Sigma_i (b_i - beta_i*): the signal part of the risk of block i.
double signal_error(const Model& m, int i, const Eigen::VectorXd& b_i) {
  const auto u = static_cast<std::size_t>(i);
  return sigma_norm2(m.sigma[u], b_i - m.beta_star[u]);
}

double test_noise_of(const Model& m, const RiskOptions& options) {
  const double s_o = options.test_noise.value_or(m.sigma2);
  MOELAB_EXPECT(s_o >= 0.0, "test noise variance must be non-negative");
  return s_o;
}

void check_sparse_sizes(const Model& m, const SparseEstimator& b) {
  MOELAB_EXPECT(static_cast<int>(b.size()) == m.k(), "sparse estimator has the wrong number of experts");
  for (int i = 0; i < m.k(); ++i)
    MOELAB_EXPECT(b[static_cast<std::size_t>(i)].size() == m.block_size(i), "sparse block has the wrong length");
}

}  // namespace

void check_misroute(const Model& m, const Misroute& r) {
  MOELAB_EXPECT(r.i >= 0 && r.i < m.k() && r.j >= 0 && r.j < m.k(), "misroute expert index out of range");
  MOELAB_EXPECT(r.i != r.j, "misroute needs two different experts i != j");
}

double dense_risk(const Model& m, const Eigen::VectorXd& b, const RiskOptions& options) {
  m.check_consistent();
  MOELAB_EXPECT(b.size() == m.d(), "dense estimator length differs from d");
  const double s_o = test_noise_of(m, options);
  const auto block = [&](int i) { return b.segment(m.offset(i), m.block_size(i)); };
  if (options.misroute) {
    const Misroute& r = *options.misroute;
    check_misroute(m, r);
    // noisy, A.4 first line: (b_i - beta_i)' S_i (b_i - beta_i) + eta^2 b_j' S_j b_j + s_o ||b||^2.
    return signal_error(m, r.i, block(r.i)) +
           r.eta * r.eta * sigma_norm2(m.sigma[static_cast<std::size_t>(r.j)], block(r.j)) + s_o * b.squaredNorm();
  }
  // noisy, Eq. 4 (A.3 with sigma_o^2): sum_i p_i (b_i - beta_i)' S_i (b_i - beta_i) + s_o ||b||^2 (sum p_i = 1).
  double risk = 0.0;
  for (int i = 0; i < m.k(); ++i) risk += m.p[static_cast<std::size_t>(i)] * signal_error(m, i, block(i));
  return risk + s_o * b.squaredNorm();
}

double sparse_risk(const Model& m, const SparseEstimator& b, const RiskOptions& options) {
  m.check_consistent();
  check_sparse_sizes(m, b);
  const double s_o = test_noise_of(m, options);
  if (options.misroute) {
    const Misroute& r = *options.misroute;
    check_misroute(m, r);
    const auto ui = static_cast<std::size_t>(r.i);
    const auto uj = static_cast<std::size_t>(r.j);
    // noisy, Thm 4 setting: expert j predicts (eta x_j + e_j)' b_j for the target x_i' beta_i*:
    //   beta_i' S_i beta_i + eta^2 b_j' S_j b_j + s_o ||b_j||^2.
    return sigma_norm2(m.sigma[ui], m.beta_star[ui]) + r.eta * r.eta * sigma_norm2(m.sigma[uj], b[uj]) +
           s_o * b[uj].squaredNorm();
  }
  // noisy, Eq. 4 per expert: sum_i p_i [ (b_i - beta_i)' S_i (b_i - beta_i) + s_o ||b_i||^2 ].
  double risk = 0.0;
  for (int i = 0; i < m.k(); ++i) {
    const auto u = static_cast<std::size_t>(i);
    risk += m.p[u] * (signal_error(m, i, b[u]) + s_o * b[u].squaredNorm());
  }
  return risk;
}

Eigen::VectorXd dense_risk_gradient(const Model& m, const Eigen::VectorXd& b) {
  m.check_consistent();
  MOELAB_EXPECT(b.size() == m.d(), "dense estimator length differs from d");
  // noisy, A.1: gradient of Eq. 4, block i = 2 p_i S_i (b_i - beta_i) + 2 sigma2 b_i.
  Eigen::VectorXd g = 2.0 * m.sigma2 * b;
  for (int i = 0; i < m.k(); ++i) {
    const auto u = static_cast<std::size_t>(i);
    const auto b_i = b.segment(m.offset(i), m.block_size(i));
    g.segment(m.offset(i), m.block_size(i)) += 2.0 * m.p[u] * (m.sigma[u] * (b_i - m.beta_star[u]));
  }
  return g;
}

SparseEstimator sparse_risk_gradient(const Model& m, const SparseEstimator& b) {
  m.check_consistent();
  check_sparse_sizes(m, b);
  SparseEstimator g;
  g.reserve(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) {
    // noisy, A.1 per expert: 2 p_i [ S_i (b_i - beta_i) + sigma2 b_i ].
    g.push_back(2.0 * m.p[i] * (m.sigma[i] * (b[i] - m.beta_star[i]) + m.sigma2 * b[i]));
  }
  return g;
}

double dense_excess_risk(const Model& m, const Eigen::VectorXd& b) {
  const Eigen::VectorXd delta = b - bayes_dense_estimator(m);
  // Eq. 4 is quadratic with Hessian/2 H = blockdiag(p_i S_i) + sigma2 I: R(b) - R(b*) = delta' H delta.
  double excess = m.sigma2 * delta.squaredNorm();
  for (int i = 0; i < m.k(); ++i) {
    const auto u = static_cast<std::size_t>(i);
    excess += m.p[u] * sigma_norm2(m.sigma[u], delta.segment(m.offset(i), m.block_size(i)));
  }
  return excess;
}

double sparse_excess_risk(const Model& m, const SparseEstimator& b) {
  check_sparse_sizes(m, b);
  const SparseEstimator bayes = bayes_sparse_estimator(m);
  // Per expert the Hessian/2 is p_i (S_i + sigma2 I): R(b) - R(b*) = sum_i p_i delta_i' (S_i + sigma2 I) delta_i.
  double excess = 0.0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    const Eigen::VectorXd delta = b[i] - bayes[i];
    excess += m.p[i] * (sigma_norm2(m.sigma[i], delta) + m.sigma2 * delta.squaredNorm());
  }
  return excess;
}

}  // namespace moelab::noisy
