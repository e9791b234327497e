// The exact risk functional of ANY dense or per-expert linear estimator under the `noisy` data
// model (noisy, Eq. 4, and the perturbed inputs of Thms 3 and 4), and the excess-risk quadratic form.
#pragma once

#include <optional>

#include <Eigen/Dense>

#include "moelab/noisy/bayes.hpp"
#include "moelab/noisy/model.hpp"

namespace moelab::noisy {

/// Thm 4's mis-routing perturbation: a sample of expert i whose input also carries eta * x_j,
/// x_j ~ N(0, Sigma_j) in block j; the target stays y = x_i' beta_i*. The sparse model is routed to
/// expert j (the paper: "causing the router to select expert j").
struct Misroute {
  int i = 0;
  int j = 1;
  double eta = 1.0;
};

struct RiskOptions {
  /// Test-time feature-noise variance sigma_o^2 (Thm 3); default: the training sigma2.
  std::optional<double> test_noise = std::nullopt;
  /// Thm 4 mis-routed input instead of the mixture of experts.
  std::optional<Misroute> misroute = std::nullopt;
};

/// Throws (MOELAB_EXPECT) unless r names two different experts of m.
void check_misroute(const Model& m, const Misroute& r);

/// Risk of a dense estimator b (length d):
///   mixture: sum_i p_i [ (b_i - beta_i)' Sigma_i (b_i - beta_i) + s_o ||b||^2 ]          (Eq. 4)
///   misroute: (b_i - beta_i)' Sigma_i (b_i - beta_i) + eta^2 b_j' Sigma_j b_j + s_o ||b||^2
/// where s_o = options.test_noise.value_or(sigma2).
double dense_risk(const Model& m, const Eigen::VectorXd& b, const RiskOptions& options = {});

/// Risk of a per-expert estimator (expert i sees only block i of the noisy input):
///   mixture: sum_i p_i [ (b_i - beta_i)' Sigma_i (b_i - beta_i) + s_o ||b_i||^2 ]
///   misroute (routed to j): beta_i' Sigma_i beta_i + eta^2 b_j' Sigma_j b_j + s_o ||b_j||^2
double sparse_risk(const Model& m, const SparseEstimator& b, const RiskOptions& options = {});

/// Gradient of dense_risk (mixture, training noise) with respect to b: zero at the Bayes estimator.
Eigen::VectorXd dense_risk_gradient(const Model& m, const Eigen::VectorXd& b);
/// Gradient of sparse_risk (mixture, training noise), block by block.
SparseEstimator sparse_risk_gradient(const Model& m, const SparseEstimator& b);

/// Excess risk R(b) - R(Bayes) as the exact quadratic form (b - b*)' H (b - b*), with
/// H = blockdiag(p_i Sigma_i) + sigma2 I (dense) and blockdiag(p_i (Sigma_i + sigma2 I)) (sparse).
/// Numerically better than subtracting two risks when the excess is tiny.
double dense_excess_risk(const Model& m, const Eigen::VectorXd& b);
double sparse_excess_risk(const Model& m, const SparseEstimator& b);

}  // namespace moelab::noisy
