// noisy, Appendix A.6.1 (bias) and A.6.2 (variance) of the minimum-norm estimators: the algebraic
// steps of the appendix, each computed twice (directly from the fitted estimator, and by the printed
// expression), so the claims (claims_a6.cpp) can test the printed steps draw by draw.
//
// Setting (A.6): one design of n rows; noiseless X (rows N(0, Sigma)), noise E (entries N(0, sigma2)),
// Xbar = X + E, response Y = X beta* (noise free), beta_hat = Xbar^+ Y (minimum norm). For the sparse
// estimator of expert i, Sigma = Sigma_i; for the dense one, X is block diagonal (row t belongs to
// expert t mod k) and the test covariance E[x x'] is blockdiag(p_i Sigma_i).
#pragma once

#include <cstdint>

#include <Eigen/Dense>

#include "moelab/noisy/model.hpp"

namespace moelab::noisy {

/// One A.6 training design: X (n x p) and Xbar = X + E.
struct A6Design {
  Eigen::MatrixXd x, xbar;
  Eigen::MatrixXd noise() const { return xbar - x; }
};

/// n rows x ~ N(0, Sigma) (x = L z, L the Cholesky factor: independent of any eigendecomposition),
/// noise N(0, sigma2); from (seed, StreamTag::design_signal / design_noise, trial).
A6Design draw_a6_block(const Eigen::MatrixXd& sigma, double sigma2, int n, std::uint64_t seed, std::uint64_t trial);
/// The dense design of Eq. 1: row t belongs to expert t mod k (block i drawn from Sigma_i, zeros
/// elsewhere), noise N(0, sigma2) on all d coordinates.
A6Design draw_a6_dense(const Model& m, int n, std::uint64_t seed, std::uint64_t trial);
/// blockdiag(p_i Sigma_i): E[x x'] of a test point of the mixture (the dense estimator's Sigma in A.6.1).
Eigen::MatrixXd mixture_second_moment(const Model& m);

/// Minimum-norm least-squares solution Xbar^+ y (complete orthogonal decomposition).
Eigen::VectorXd min_norm_fit(const Eigen::MatrixXd& xbar, const Eigen::VectorXd& y);
/// Pseudo-inverse of a symmetric PSD matrix by its eigendecomposition (eigenvalues below
/// rel_cut x the largest are treated as zero). Independent of min_norm_fit's decomposition.
Eigen::MatrixXd pinv_psd(const Eigen::MatrixXd& a, double rel_cut = 1e-12);
/// 2-norm condition number of Xbar restricted to its row space (largest / smallest nonzero singular value).
double condition_number(const Eigen::MatrixXd& xbar);

/// A.6, first display: the test error of a fixed beta_hat, E_{x,e}[((x + e)' b - x' beta)^2] =
/// (b - beta)' Sigma (b - beta) + sigma2 ||b||^2 (x and e independent, mean 0).
double a6_test_error(const Eigen::MatrixXd& sigma, double sigma2, const Eigen::VectorXd& b, const Eigen::VectorXd& beta);

/// A.6.1: the bias term (beta_hat - beta)' Sigma (beta_hat - beta) directly (beta_hat = min_norm_fit),
/// and as printed, beta' E' Xbar (Xbar' Xbar)^+ Sigma (Xbar' Xbar)^+ Xbar' E beta (which uses
/// beta_hat - beta = -(Xbar' Xbar)^+ Xbar' E beta, true when Xbar has full column rank).
struct A61Bias {
  double direct = 0.0, printed = 0.0;
};
A61Bias a61_bias(const A6Design& d, const Eigen::MatrixXd& sigma, const Eigen::VectorXd& beta);

/// A.6.2: the variance term sigma2 ||beta_hat||^2 of one design, four ways:
///   direct     sigma2 ||min_norm_fit(Xbar, X beta)||^2
///   exact      sigma2 tr[Xbar^+ X beta beta' X' Xbar^+'] = sigma2 ||Xbar^+ X beta||^2 (A.6.2's first line, evaluated
///              by the pseudo-inverse of Xbar Xbar': Xbar^+ = Xbar' (Xbar Xbar')^+)
///   printed    sigma2 tr[Xbar^+ X X' Xbar^+'] = sigma2 tr[X' (Xbar Xbar')^+ X] (A.6.2's second to fourth lines:
///              beta beta' dropped)
///   isotropic  sigma2 (||beta||^2 / p) tr[X' (Xbar Xbar')^+ X] (the printed line read as beta beta' ~ ||beta||^2 I / p)
struct A62Variance {
  double direct = 0.0, exact = 0.0, printed = 0.0, isotropic = 0.0;
};
A62Variance a62_variance(const A6Design& d, double sigma2, const Eigen::VectorXd& beta);

}  // namespace moelab::noisy
