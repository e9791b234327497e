// Closed forms stated by the `noisy` paper, AS PRINTED, and beside them the exact expressions
// derived in docs/errata.md where a printed one does not hold. Every function cites its source.
#pragma once

#include <vector>

#include <Eigen/Dense>

#include "moelab/noisy/model.hpp"
#include "moelab/noisy/risk.hpp"

namespace moelab::noisy {

// ---- Theorem 2 (generalization of the Bayes estimators) ----
/// R(beta_sparse^Bayes) = sum_i p_i sigma2 beta_i' Sigma_i (Sigma_i + sigma2 I)^-1 beta_i.
double thm2_sparse_risk(const Model& m);
/// R(beta_dense^Bayes) = sum_i p_i sigma2 beta_i' Sigma_i (p_i Sigma_i + sigma2 I)^-1 beta_i.
double thm2_dense_risk(const Model& m);

// ---- Theorem 3 (test-time noise sigma_o^2, correct routing) ----
double thm3_dense_risk(const Model& m, double sigma_o2);
double thm3_sparse_risk(const Model& m, double sigma_o2);
/// The paper's sufficient condition (Sec. 4.3): lambda_min(Sigma_i) > 4 sigma2 for all i and
/// sigma_o2 > sigma2 (as printed: claimed to imply R_sparse(sigma_o2) <= R_dense(sigma_o2)).
bool thm3_printed_sufficient_condition(const Model& m, double sigma_o2);
/// Exact: the slope in sigma_o2 of R_sparse minus that of R_dense,
///   sum_i p_i [ beta_i' Sigma_i (Sigma_i + s I)^-2 Sigma_i beta_i - p_i beta_i' Sigma_i (p_i Sigma_i + s I)^-2 Sigma_i beta_i ].
/// Sparse stays better for every sigma_o2 >= sigma2 iff this is <= 0 (Thm 2 gives the start).
double thm3_slope_difference(const Model& m);
/// The sigma_o2 at which R_sparse = R_dense (+inf when the slope difference is <= 0).
double thm3_crossover_noise(const Model& m);
/// Exact per-direction sufficient condition (docs/errata.md): lambda_min(Sigma_i) >= sigma2 / sqrt(p_i)
/// for all i implies slope difference <= 0.
bool thm3_exact_sufficient_condition(const Model& m);

// ---- Theorem 4 (mis-routing by eta x_j) ----
double thm4_dense_risk_printed(const Model& m, const Misroute& r);
double thm4_sparse_risk_printed(const Model& m, const Misroute& r);
/// Exact, from the paper's own first line of A.4 (= dense_risk / sparse_risk at the Bayes estimators
/// with options.misroute set), in closed form.
double thm4_dense_risk_exact(const Model& m, const Misroute& r);
double thm4_sparse_risk_exact(const Model& m, const Misroute& r);

/// Exact large-size limit of the GD contraction 1 - s_min^2 / s_max^2 over the nonzero singular
/// values of B + W (Loubaton-Vallet convention, spectra/info_plus_noise.hpp) when the signal is full
/// rank: the squared singular values of B have the limiting law H = sum_j weights_j delta(atoms_j)
/// on the M x M matrix B B' (include its zero eigenvalues: H({0}) >= 1 - 1/c when c > 1). The noisy
/// spectrum then has the Dozier-Silverstein limit (spectra/dozier_silverstein.hpp), and the rate is
/// 1 - lower / upper edge of its continuous part. Thm 5 as printed applies Loubaton-Vallet's
/// finite-rank spike map to the extreme signal values instead (docs/errata.md).
double thm5_rate_exact(const std::vector<double>& atoms, const std::vector<double>& weights, double c, double sigma2);

// ---- Theorem 5 (gradient-descent contraction) ----
/// rho = 1 - lbar_min^2 / lbar_max^2 with lbar^2 = info_plus_noise_spike_limit(l^2, c, sigma2):
/// the printed rates of Thm 5 for singular values l_max = lambda_1, l_min = lambda_{n/k}.
double thm5_rate_printed(double lambda_max, double lambda_min, double c, double sigma2);
/// Dense: the printed formula with max_j lambda_j1 and min_l lambda_{l,n/k}.
double thm5_dense_rate_printed(const std::vector<double>& lambda_max_per_block,
                               const std::vector<double>& lambda_min_per_block, double c, double sigma2);
/// Exact finite-n contraction of GD with step 1/s_1^2 on a matrix with nonzero singular values
/// s_1 >= ... >= s_r > 0: 1 - s_r^2 / s_1^2 (proof of Thm 5, first step).
double gd_contraction_exact(const Eigen::VectorXd& singular_values);

// ---- Appendix A.6.3 (one-dimensional sparse expert, OLS on n noisy samples) ----
/// Printed limit of the bias term lambda^2 E[(beta_hat - beta)^2]: sigma2 lambda2 beta^2 / (lambda2 + sigma2).
double a63_bias_printed(double beta, double lambda2, double sigma2);
/// Exact limit (n -> inf) of the bias term: lambda2 beta^2 sigma2^2 / (lambda2 + sigma2)^2.
double a63_bias_limit_exact(double beta, double lambda2, double sigma2);
/// Exact finite-n bias term: lambda2 [ beta^2 s^2/(l+s)^2 + beta^2 l s / ((l+s)^2 (n-2)) ], n >= 3.
double a63_bias_exact(double beta, double lambda2, double sigma2, double n);
/// Printed delta-method variance term, the 1/n part of sigma2 E[beta_hat^2]:
///   beta^2 lambda2 sigma2^2 / (n (lambda2 + sigma2)^2).
double a63_variance_printed(double beta, double lambda2, double sigma2, double n);
/// Exact sigma2 Var(beta_hat) = beta^2 lambda2 sigma2^2 / ((lambda2 + sigma2)^2 (n - 2)), n >= 3
/// (E beta_hat = beta_Bayes exactly; Var from E[1/chi2_n] = 1/(n-2)).
double a63_variance_exact(double beta, double lambda2, double sigma2, double n);
/// The excess risk the paper's A.6.3 implies (bias -> Bayes error, so excess = printed variance).
double a63_excess_printed(double beta, double lambda2, double sigma2, double n);
/// Exact excess risk of the 1-D OLS: beta^2 lambda2 sigma2 / ((lambda2 + sigma2)(n - 2)), n >= 3.
double a63_excess_exact(double beta, double lambda2, double sigma2, double n);

// ---- Section 4.5 / A.6 (excess risk of min-norm estimators, derived in docs/errata.md) ----
/// Exact expected excess risk of the per-expert OLS estimators with n_i > d_i + 1 samples of expert i:
///   sum_i p_i v_i d_i / (n_i - d_i - 1),  v_i = sigma2 beta_i' Sigma_i (Sigma_i + sigma2 I)^-1 beta_i
/// (+inf when some n_i <= d_i + 1). From E[(U'U)^-1] = C^-1 / (n - d - 1) for Wishart U'U.
double sparse_excess_exact(const Model& m, const std::vector<int>& n_per_expert);
/// Leading-order (n -> inf) expected excess risk of the dense OLS on n mixture samples:
///   tr(H^-1 S) / n, H = E[xbar xbar'], S = E[xbar xbar' r^2], r = y - xbar' b_dense^Bayes
/// (sandwich formula; S by Isserlis' theorem per expert). Returns tr(H^-1 S) (multiply by 1/n).
double dense_excess_leading_coefficient(const Model& m);
/// Same when the training set is stratified (balanced allocation: n_i = p_i n rows of expert i, not
/// drawn): the score's covariance is then sum_i p_i Cov_i(xbar r), which drops the per-expert means
/// g_i = E[xbar r | i] (zero only in the mixture):
///   tr(H^-1 (S - sum_i p_i g_i g_i')) = sum_i p_i (q_i tr(H^-1 C_i) + g_i' H^-1 g_i).
/// Measured (d = 24, k = 4, Toeplitz 0.5, 4000 balanced training sets): n x excess = 2.719 +- 0.013 at
/// n = 3840 and 2.723 +- 0.013 at n = 15360, against 2.703 here and tr(H^-1 S) = 2.763; the i.i.d.
/// form made the Sec. 4.5 claim's dense extrapolation fail at --full (7 sigma).
double dense_excess_leading_coefficient_stratified(const Model& m);
/// Same for the sparse estimators with balanced allocation n_i = p_i n: sum_i v_i d_i (times 1/n).
double sparse_excess_leading_coefficient(const Model& m);

}  // namespace moelab::noisy
