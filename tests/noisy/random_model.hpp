// Random `noisy` models for property tests: Sigma_i = A A'/d_i + 0.1 I (SPD, smallest eigenvalue >= 0.1,
// largest a few units: condition number of order 100, so an LLT solve loses <= ~1e-14),
// p_i positive and normalised, sigma2 in [0.05, 5], beta_i* standard normal. Everything is drawn from one
// Draws(seed, case) so that a failing case is reproducible by its index.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Dense>

#include "moelab/core/distributions.hpp"
#include "moelab/noisy/model.hpp"

namespace moelab::test {

/// Sequential reader of normals and uniforms. Normal and uniform draw j of one RandomStream share a
/// Philox block (distributions.hpp), so the two kinds come from two streams (trials 2t and 2t + 1).
class Draws {
 public:
  Draws(std::uint64_t seed, std::uint64_t trial)
      : normals_(seed, StreamTag::property_test, 2 * trial), uniforms_(seed, StreamTag::property_test, 2 * trial + 1) {}
  double normal() { return normals_.normal(next_normal_++); }
  double uniform() { return uniforms_.uniform(next_uniform_++); }
  Eigen::VectorXd normal_vector(int n) {
    Eigen::VectorXd v(n);
    for (int i = 0; i < n; ++i) v(i) = normal();
    return v;
  }
  Eigen::MatrixXd normal_matrix(int rows, int cols) {
    Eigen::MatrixXd a(rows, cols);
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) a(i, j) = normal();
    return a;
  }
  /// A A'/d + 0.1 I with A d x d standard normal.
  Eigen::MatrixXd spd(int d) {
    const Eigen::MatrixXd a = normal_matrix(d, d);
    return a * a.transpose() / d + 0.1 * Eigen::MatrixXd::Identity(d, d);
  }

 private:
  RandomStream normals_, uniforms_;
  std::uint64_t next_normal_ = 0, next_uniform_ = 0;
};

/// k experts with block sizes 1..max_block, random SPD Sigma_i, p, sigma2 and beta*.
inline noisy::Model random_model(std::uint64_t trial, int k, int max_block = 4) {
  Draws draws(20240611u, trial);
  noisy::Model m;
  double p_total = 0.0;
  for (int i = 0; i < k; ++i) {
    const int d_i = 1 + static_cast<int>(draws.uniform() * max_block) % max_block;
    m.sigma.push_back(draws.spd(d_i));
    m.beta_star.push_back(draws.normal_vector(d_i));
    m.p.push_back(0.05 + draws.uniform());
    p_total += m.p.back();
  }
  for (double& p : m.p) p /= p_total;
  m.sigma2 = 0.05 + 4.95 * draws.uniform();
  return m;
}

/// The expert of one input: i with probability p_i (one uniform of `draws`, against the cumulative p).
inline int draw_expert(const noisy::Model& m, Draws& draws) {
  const double u = draws.uniform();
  double acc = 0.0;
  for (int i = 0; i + 1 < m.k(); ++i) {
    acc += m.p[static_cast<std::size_t>(i)];
    if (u < acc) return i;
  }
  return m.k() - 1;
}

}  // namespace moelab::test
