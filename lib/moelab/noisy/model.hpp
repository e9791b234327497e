// The block-diagonal linear model of the `noisy` paper (Sec. 3.2, Eq. 1):
//   k experts; block i has d_i features with covariance Sigma_i; a sample belongs to expert i with
//   probability p_i, its features are x = [0..0, x_i, 0..0] with x_i ~ N(0, Sigma_i); we observe
//   xbar = x + e, e ~ N(0, sigma2 I_d) on all d = sum d_i coordinates; the response is
//   y = x_i' beta_i* (noise-free response, as in the paper).
#pragma once

#include <vector>

#include <Eigen/Dense>

namespace moelab::noisy {

struct Model {
  std::vector<Eigen::MatrixXd> sigma;      // Sigma_i, d_i x d_i, SPD
  std::vector<double> p;                   // routing probabilities, p_i > 0, sum 1
  double sigma2 = 1.0;                     // feature-noise variance sigma^2 > 0
  std::vector<Eigen::VectorXd> beta_star;  // beta_i*, length d_i

  int k() const { return static_cast<int>(sigma.size()); }
  int block_size(int i) const { return static_cast<int>(sigma[static_cast<std::size_t>(i)].rows()); }
  int d() const;
  /// First coordinate of block i in the full d-vector.
  int offset(int i) const;
  /// beta* stacked into a d-vector.
  Eigen::VectorXd beta_full() const;
  /// Throws std::logic_error (MOELAB_EXPECT) when sizes disagree; domain checks of user input are
  /// done by the scenario layer (noisy/model_params.hpp), which names file, line and key.
  void check_consistent() const;
};

}  // namespace moelab::noisy
