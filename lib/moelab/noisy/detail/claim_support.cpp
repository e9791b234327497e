#include "moelab/noisy/detail/claim_support.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"
#include "moelab/linalg/covariance.hpp"

namespace moelab::noisy::detail {

Eigen::VectorXd random_vector(int d, double scale, std::uint64_t seed, std::uint64_t trial) {
  Eigen::VectorXd v(d);
  RandomStream(seed, StreamTag::beta_star, trial).fill_normal(0, static_cast<std::uint64_t>(d), v.data());
  return v * scale;
}

Model heterogeneous_model(std::uint64_t seed) {
  Model m;
  const int sizes[] = {3, 4, 5};
  const double scales[] = {1.0, 2.0, 0.5}, rhos[] = {0.5, 0.3, 0.7};
  for (int i = 0; i < 3; ++i) {
    m.sigma.push_back(toeplitz_covariance(sizes[i], rhos[i], scales[i]));
    m.beta_star.push_back(random_vector(sizes[i], 1.0 / std::sqrt(12.0), seed, static_cast<std::uint64_t>(i)));
  }
  m.p = {0.5, 0.3, 0.2};
  m.sigma2 = 0.5;
  return m;
}

Model heterogeneous_model_fixed_beta() {
  Model m = heterogeneous_model(0);
  for (auto& b : m.beta_star) b.setConstant(1.0 / std::sqrt(12.0));
  return m;
}

Model equal_block_model(int k, int block, double rho, double scale, double sigma2, std::uint64_t seed) {
  Model m;
  const int d = k * block;
  for (int i = 0; i < k; ++i) {
    m.sigma.push_back(rho == 0.0 ? identity_covariance(block, scale) : toeplitz_covariance(block, rho, scale));
    m.beta_star.push_back(random_vector(block, 1.0 / std::sqrt(static_cast<double>(d)), seed, static_cast<std::uint64_t>(i)));
  }
  m.p.assign(static_cast<std::size_t>(k), 1.0 / k);
  m.sigma2 = sigma2;
  return m;
}

Eigen::VectorXd stack(const Model& m, const SparseEstimator& b) {
  Eigen::VectorXd out(m.d());
  for (int i = 0; i < m.k(); ++i) out.segment(m.offset(i), m.block_size(i)) = b[static_cast<std::size_t>(i)];
  return out;
}

SparseEstimator split(const Model& m, const Eigen::VectorXd& b) {
  SparseEstimator out;
  for (int i = 0; i < m.k(); ++i) out.push_back(b.segment(m.offset(i), m.block_size(i)));
  return out;
}

double erratum_relevance(double printed, double exact, double rel) {
  return std::min(std::fabs(rel * exact), std::fabs(printed - exact));
}

}  // namespace moelab::noisy::detail
