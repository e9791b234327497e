#include "moelab/noisy/bayes.hpp"

#include <cstddef>

#include "moelab/core/error.hpp"
#include "moelab/linalg/decompositions.hpp"

namespace moelab::noisy {

namespace {

/// (scale * Sigma + sigma2 I)^-1 Sigma beta by a Cholesky solve (never an explicit inverse).
Eigen::VectorXd shrunk_regression(const Eigen::MatrixXd& sigma, const Eigen::VectorXd& beta, double scale,
                                  double sigma2) {
  const Eigen::MatrixXd a =
      scale * sigma + sigma2 * Eigen::MatrixXd::Identity(sigma.rows(), sigma.cols());
  const Eigen::LLT<Eigen::MatrixXd> llt(a);
  MOELAB_EXPECT(llt.info() == Eigen::Success, "scale Sigma_i + sigma2 I is not positive definite");
  return llt.solve(sigma * beta);
}

}  // namespace

Eigen::VectorXd bayes_dense_estimator(const Model& m) {
  m.check_consistent();
  Eigen::VectorXd b(m.d());
  for (int i = 0; i < m.k(); ++i) {
    const auto u = static_cast<std::size_t>(i);
    // noisy, Eq. 3: block i of beta_dense^Bayes = p_i (p_i Sigma_i + sigma2 I)^-1 Sigma_i beta_i*.
    b.segment(m.offset(i), m.block_size(i)) =
        m.p[u] * shrunk_regression(m.sigma[u], m.beta_star[u], m.p[u], m.sigma2);
  }
  return b;
}

SparseEstimator bayes_sparse_estimator(const Model& m) {
  m.check_consistent();
  SparseEstimator b;
  b.reserve(m.sigma.size());
  for (std::size_t i = 0; i < m.sigma.size(); ++i) {
    // noisy, Eq. 3: beta_sparse,i^Bayes = (Sigma_i + sigma2 I)^-1 Sigma_i beta_i*.
    b.push_back(shrunk_regression(m.sigma[i], m.beta_star[i], 1.0, m.sigma2));
  }
  return b;
}

}  // namespace moelab::noisy
