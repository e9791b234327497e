// Bayes-optimal dense and per-expert (sparse) linear estimators of the `noisy` paper.
#pragma once

#include <vector>

#include <Eigen/Dense>

#include "moelab/noisy/model.hpp"

namespace moelab::noisy {

/// A per-expert estimator: one coefficient vector per block (length d_i).
using SparseEstimator = std::vector<Eigen::VectorXd>;

/// noisy, Eq. 3: beta_dense^Bayes, block i = p_i (p_i Sigma_i + sigma2 I)^-1 Sigma_i beta_i*.
Eigen::VectorXd bayes_dense_estimator(const Model& m);
/// noisy, Eq. 3: beta_sparse,i^Bayes = (Sigma_i + sigma2 I)^-1 Sigma_i beta_i*.
SparseEstimator bayes_sparse_estimator(const Model& m);

}  // namespace moelab::noisy
