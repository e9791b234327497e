#include "moelab/noisy/theorems.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "moelab/core/error.hpp"
#include "moelab/linalg/decompositions.hpp"
#include "moelab/noisy/bayes.hpp"
#include "moelab/spectra/dozier_silverstein.hpp"
#include "moelab/spectra/info_plus_noise.hpp"

namespace moelab::noisy {

namespace {

using Llt = Eigen::LLT<Eigen::MatrixXd>;

/// Cholesky factor of scale * Sigma + sigma2 I (the matrix every closed form of the paper inverts).
Llt shifted_cholesky(const Eigen::MatrixXd& sigma, double scale, double sigma2) {
  const Eigen::MatrixXd shifted = scale * sigma + sigma2 * Eigen::MatrixXd::Identity(sigma.rows(), sigma.cols());
  Llt llt(shifted);  // of a MatrixXd: the instantiation compiled once (linalg/decompositions.hpp)
  MOELAB_EXPECT(llt.info() == Eigen::Success, "scale Sigma_i + sigma2 I is not positive definite");
  return llt;
}

/// One block of the model, viewed through A = scale * Sigma_i + sigma2 I.
struct Block {
  const Eigen::MatrixXd& sigma;
  const Eigen::VectorXd& beta;
  Eigen::VectorXd sigma_beta;  // Sigma_i beta_i
  Llt a;                       // Cholesky of scale * Sigma_i + sigma2 I

  Block(const Model& m, int i, double scale)
      : sigma(m.sigma[static_cast<std::size_t>(i)]),
        beta(m.beta_star[static_cast<std::size_t>(i)]),
        sigma_beta(sigma * beta),
        a(shifted_cholesky(sigma, scale, m.sigma2)) {}

  /// beta' Sigma A^-1 beta = (Sigma beta)' A^-1 beta (Sigma and A commute).
  double sigma_ainv() const { return sigma_beta.dot(a.solve(beta)); }
  /// beta' Sigma A^-1 Sigma beta.
  double sigma_ainv_sigma() const { return sigma_beta.dot(a.solve(sigma_beta)); }
  /// beta' Sigma A^-2 Sigma beta = ||A^-1 Sigma beta||^2.
  double sigma_ainv2_sigma() const { return a.solve(sigma_beta).squaredNorm(); }
};

double prob(const Model& m, int i) { return m.p[static_cast<std::size_t>(i)]; }

/// sum_i p_i^power beta_i' Sigma_i (scale_i Sigma_i + s I)^-2 Sigma_i beta_i with scale_i = p_i or 1:
/// the coefficient of (sigma_o^2 - sigma^2) in Thm 3.
double thm3_slope(const Model& m, bool dense) {
  double slope = 0.0;
  for (int i = 0; i < m.k(); ++i) {
    const double p = prob(m, i);
    const Block blk(m, i, dense ? p : 1.0);
    slope += (dense ? p * p : p) * blk.sigma_ainv2_sigma();
  }
  return slope;
}

double smallest_eigenvalue(const Eigen::MatrixXd& sigma) {
  return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(sigma, Eigen::EigenvaluesOnly).eigenvalues().minCoeff();
}

/// sigma2 beta_i' Sigma_i (Sigma_i + sigma2 I)^-1 beta_i: the Bayes risk of expert i (= Var of its residual).
double expert_residual_variance(const Model& m, int i) { return m.sigma2 * Block(m, i, 1.0).sigma_ainv(); }

void check_a63(double lambda2, double sigma2) {
  MOELAB_EXPECT(lambda2 > 0.0 && sigma2 > 0.0, "A.6.3 needs lambda^2 > 0 and sigma^2 > 0");
}

void check_a63_exact(double lambda2, double sigma2, double n) {
  check_a63(lambda2, sigma2);
  MOELAB_EXPECT(n >= 3.0, "A.6.3 exact moments need n >= 3 (E[1/chi2_n] = 1/(n-2))");
}

}  // namespace

// ---- Theorem 2 ----

double thm2_sparse_risk(const Model& m) {
  m.check_consistent();
  // noisy, Thm 2: R_sparse = sum_i p_i sigma2 beta_i' Sigma_i (Sigma_i + sigma2 I)^-1 beta_i.
  double risk = 0.0;
  for (int i = 0; i < m.k(); ++i) risk += prob(m, i) * m.sigma2 * Block(m, i, 1.0).sigma_ainv();
  return risk;
}

double thm2_dense_risk(const Model& m) {
  m.check_consistent();
  // noisy, Thm 2: R_dense = sum_i p_i sigma2 beta_i' Sigma_i (p_i Sigma_i + sigma2 I)^-1 beta_i.
  double risk = 0.0;
  for (int i = 0; i < m.k(); ++i) risk += prob(m, i) * m.sigma2 * Block(m, i, prob(m, i)).sigma_ainv();
  return risk;
}

// ---- Theorem 3 ----

double thm3_dense_risk(const Model& m, double sigma_o2) {
  // noisy, Thm 3: R_dense(s_o) = Thm 2 dense + sum_i p_i^2 (s_o - s) beta_i' S_i (p_i S_i + s I)^-2 S_i beta_i.
  return thm2_dense_risk(m) + (sigma_o2 - m.sigma2) * thm3_slope(m, true);
}

double thm3_sparse_risk(const Model& m, double sigma_o2) {
  // noisy, Thm 3: R_sparse(s_o) = Thm 2 sparse + sum_i p_i (s_o - s) beta_i' S_i (S_i + s I)^-2 S_i beta_i.
  return thm2_sparse_risk(m) + (sigma_o2 - m.sigma2) * thm3_slope(m, false);
}

bool thm3_printed_sufficient_condition(const Model& m, double sigma_o2) {
  m.check_consistent();
  // noisy, Sec. 4.3 (as printed): lambda_min(Sigma_i) > 4 sigma2 for all i and sigma_o2 > sigma2.
  if (!(sigma_o2 > m.sigma2)) return false;
  return std::all_of(m.sigma.begin(), m.sigma.end(),
                     [&](const Eigen::MatrixXd& s) { return smallest_eigenvalue(s) > 4.0 * m.sigma2; });
}

double thm3_slope_difference(const Model& m) {
  m.check_consistent();
  // d R_sparse / d s_o - d R_dense / d s_o, both slopes read off Thm 3 (exact, linear in s_o).
  return thm3_slope(m, false) - thm3_slope(m, true);
}

double thm3_crossover_noise(const Model& m) {
  const double slope_gap = thm3_slope_difference(m);
  if (!(slope_gap > 0.0)) return std::numeric_limits<double>::infinity();
  // R_sparse(s_o) = R_dense(s_o) with both linear in s_o from Thm 2's values at s_o = s.
  return m.sigma2 + (thm2_dense_risk(m) - thm2_sparse_risk(m)) / slope_gap;
}

bool thm3_exact_sufficient_condition(const Model& m) {
  m.check_consistent();
  // Per eigen-direction (lambda, p): p lambda^2/(lambda+s)^2 <= p^2 lambda^2/(p lambda+s)^2
  // <=> (p lambda + s)^2 <= p (lambda + s)^2 <=> lambda >= s / sqrt(p) (for p < 1; equality for p = 1).
  for (int i = 0; i < m.k(); ++i) {
    const double lambda_min = smallest_eigenvalue(m.sigma[static_cast<std::size_t>(i)]);
    if (lambda_min < m.sigma2 / std::sqrt(prob(m, i))) return false;
  }
  return true;
}

// ---- Theorem 4 ----

double thm4_dense_risk_printed(const Model& m, const Misroute& r) {
  m.check_consistent();
  check_misroute(m, r);
  const double s = m.sigma2, eta2 = r.eta * r.eta, pi = prob(m, r.i), pj = prob(m, r.j);
  const Block bi(m, r.i, pi), bj(m, r.j, pj);
  // noisy, Thm 4 (as printed): eta^2 p_j B_j'S_j A_j^-1 S_j B_j + s eta^2 (p_j^2 - p_j) B_j'S_j A_j^-2 S_j B_j
  //   - p_i B_i'S_i A_i^-1 S_i B_i + s sum_{r != i,j} p_r^2 B_r'S_r A_r^-2 S_r B_r,  A_r = p_r S_r + s I.
  double risk = eta2 * pj * bj.sigma_ainv_sigma() + s * eta2 * (pj * pj - pj) * bj.sigma_ainv2_sigma() -
                pi * bi.sigma_ainv_sigma();
  for (int q = 0; q < m.k(); ++q) {
    if (q == r.i || q == r.j) continue;
    const double pq = prob(m, q);
    risk += s * pq * pq * Block(m, q, pq).sigma_ainv2_sigma();
  }
  return risk;
}

double thm4_sparse_risk_printed(const Model& m, const Misroute& r) {
  m.check_consistent();
  check_misroute(m, r);
  // noisy, Thm 4 (as printed): R_sparse = eta^2 B_j' S_j (S_j + s I)^-1 S_j B_j.
  return r.eta * r.eta * Block(m, r.j, 1.0).sigma_ainv_sigma();
}

double thm4_dense_risk_exact(const Model& m, const Misroute& r) {
  m.check_consistent();
  check_misroute(m, r);
  const double s = m.sigma2, eta2 = r.eta * r.eta, pj = prob(m, r.j);
  // noisy, A.4 first line at b = Eq. 3 dense, A_r = p_r S_r + s I, b_r = p_r A_r^-1 S_r B_r, b_i - B_i = -s A_i^-1 B_i:
  //   s^2 B_i' A_i^-1 S_i A_i^-1 B_i + eta^2 p_j^2 (A_j^-1 S_j B_j)' S_j (A_j^-1 S_j B_j)
  //   + s sum_r p_r^2 ||A_r^-1 S_r B_r||^2.
  const Block bi(m, r.i, prob(m, r.i)), bj(m, r.j, pj);
  const Eigen::VectorXd ai_beta = bi.a.solve(bi.beta);
  const Eigen::VectorXd aj_sigma_beta = bj.a.solve(bj.sigma_beta);
  double risk = s * s * ai_beta.dot(bi.sigma * ai_beta) + eta2 * pj * pj * aj_sigma_beta.dot(bj.sigma * aj_sigma_beta);
  for (int q = 0; q < m.k(); ++q) {
    const double pq = prob(m, q);
    risk += s * pq * pq * Block(m, q, pq).sigma_ainv2_sigma();
  }
  return risk;
}

double thm4_sparse_risk_exact(const Model& m, const Misroute& r) {
  m.check_consistent();
  check_misroute(m, r);
  // Thm 4 setting, expert j at Eq. 3 sparse, w = (S_j + s I)^-1 S_j B_j:
  //   B_i' S_i B_i + eta^2 w' S_j w + s ||w||^2.
  const Block bj(m, r.j, 1.0);
  const Eigen::VectorXd w = bj.a.solve(bj.sigma_beta);
  const auto ui = static_cast<std::size_t>(r.i);
  return m.beta_star[ui].dot(m.sigma[ui] * m.beta_star[ui]) + r.eta * r.eta * w.dot(bj.sigma * w) +
         m.sigma2 * w.squaredNorm();
}

// ---- Theorem 5 ----

double thm5_rate_printed(double lambda_max, double lambda_min, double c, double sigma2) {
  MOELAB_EXPECT(lambda_max >= lambda_min && lambda_min > 0.0, "Thm 5 needs lambda_max >= lambda_min > 0");
  // noisy, Thm 5 / A.5: rho = 1 - lbar_min^2 / lbar_max^2, lbar^2 = Loubaton-Vallet limit of lambda^2;
  // above threshold this is 1 - l1^2 (s + lmin^2)(c s + lmin^2) / (lmin^2 (s + l1^2)(c s + l1^2)).
  const double lbar_max2 = spectra::info_plus_noise_spike_limit(lambda_max * lambda_max, c, sigma2);
  const double lbar_min2 = spectra::info_plus_noise_spike_limit(lambda_min * lambda_min, c, sigma2);
  return 1.0 - lbar_min2 / lbar_max2;
}

double thm5_dense_rate_printed(const std::vector<double>& lambda_max_per_block,
                               const std::vector<double>& lambda_min_per_block, double c, double sigma2) {
  MOELAB_EXPECT(!lambda_max_per_block.empty() && !lambda_min_per_block.empty(), "Thm 5 needs at least one block");
  // noisy, Thm 5: rho_dense uses max_j lambda_{j1} and min_l lambda_{l,n/k}.
  const double l_max = *std::max_element(lambda_max_per_block.begin(), lambda_max_per_block.end());
  const double l_min = *std::min_element(lambda_min_per_block.begin(), lambda_min_per_block.end());
  return thm5_rate_printed(l_max, l_min, c, sigma2);
}

double thm5_rate_exact(const std::vector<double>& atoms, const std::vector<double>& weights, double c, double sigma2) {
  const spectra::DozierSilverstein law(atoms, weights, c, sigma2);
  const auto support = law.support();
  MOELAB_EXPECT(!support.empty(), "Dozier-Silverstein support not found");
  return 1.0 - support.front().lower / support.back().upper;
}

double gd_contraction_exact(const Eigen::VectorXd& singular_values) {
  MOELAB_EXPECT(singular_values.size() > 0, "gd_contraction_exact needs singular values");
  MOELAB_EXPECT((singular_values.array() >= 0.0).all(), "singular values must be non-negative");
  const double s1 = singular_values.maxCoeff();
  MOELAB_EXPECT(s1 > 0.0, "gd_contraction_exact needs a nonzero singular value");
  // noisy, A.5: step 1/s_1^2 contracts the residual by 1 - s_r^2/s_1^2 on the slowest nonzero direction;
  // values <= 1e-12 s_1 are numerical zeros (null space, not reached by GD from the row space).
  double s_r = s1;
  for (const double s : singular_values)
    if (s > 1e-12 * s1) s_r = std::min(s_r, s);
  return 1.0 - (s_r * s_r) / (s1 * s1);
}

// ---- Appendix A.6.3 ----

double a63_bias_printed(double beta, double lambda2, double sigma2) {
  check_a63(lambda2, sigma2);
  // noisy, A.6.3 (as printed): bias -> sigma^2 lambda^2 beta^2 / (lambda^2 + sigma^2).
  return sigma2 * lambda2 * beta * beta / (lambda2 + sigma2);
}

double a63_bias_limit_exact(double beta, double lambda2, double sigma2) {
  check_a63(lambda2, sigma2);
  // beta_hat -> beta l/(l+s), so l (beta_hat - beta)^2 -> l beta^2 s^2/(l+s)^2.
  const double l_plus_s = lambda2 + sigma2;
  return lambda2 * beta * beta * sigma2 * sigma2 / (l_plus_s * l_plus_s);
}

double a63_bias_exact(double beta, double lambda2, double sigma2, double n) {
  check_a63_exact(lambda2, sigma2, n);
  // E beta_hat = beta l/(l+s), Var beta_hat = beta^2 l s / ((l+s)^2 (n-2)):
  //   l [ beta^2 s^2/(l+s)^2 + beta^2 l s / ((l+s)^2 (n-2)) ].
  const double l_plus_s2 = (lambda2 + sigma2) * (lambda2 + sigma2);
  return lambda2 * (beta * beta * sigma2 * sigma2 / l_plus_s2 + beta * beta * lambda2 * sigma2 / (l_plus_s2 * (n - 2.0)));
}

double a63_variance_printed(double beta, double lambda2, double sigma2, double n) {
  check_a63(lambda2, sigma2);
  MOELAB_EXPECT(n > 0.0, "A.6.3 needs n > 0");
  // noisy, A.6.3 (delta method, as printed): beta^2 lambda^2 sigma^4 / (n (lambda^2 + sigma^2)^2).
  const double l_plus_s = lambda2 + sigma2;
  return beta * beta * lambda2 * sigma2 * sigma2 / (n * l_plus_s * l_plus_s);
}

double a63_variance_exact(double beta, double lambda2, double sigma2, double n) {
  check_a63_exact(lambda2, sigma2, n);
  // sigma^2 Var(beta_hat) = beta^2 l s^2 / ((l+s)^2 (n-2)).
  const double l_plus_s = lambda2 + sigma2;
  return beta * beta * lambda2 * sigma2 * sigma2 / (l_plus_s * l_plus_s * (n - 2.0));
}

double a63_excess_printed(double beta, double lambda2, double sigma2, double n) {
  // noisy, A.6.3: the bias is said to converge to the Bayes error, so the excess is the printed variance.
  return a63_variance_printed(beta, lambda2, sigma2, n);
}

double a63_excess_exact(double beta, double lambda2, double sigma2, double n) {
  check_a63_exact(lambda2, sigma2, n);
  // (l + s) Var(beta_hat) = beta^2 tau^2 E[1/chi2_n], tau^2 = l s/(l+s): beta^2 l s / ((l+s)(n-2)).
  return beta * beta * lambda2 * sigma2 / ((lambda2 + sigma2) * (n - 2.0));
}

// ---- Section 4.5 / A.6: excess risk of the least-squares estimators ----

double sparse_excess_exact(const Model& m, const std::vector<int>& n_per_expert) {
  m.check_consistent();
  MOELAB_EXPECT(static_cast<int>(n_per_expert.size()) == m.k(), "need one sample count per expert");
  // E[(U'U)^-1] = C^-1/(n - d - 1) for Wishart U'U, residual variance v_i independent of xbar_i:
  //   E excess = sum_i p_i v_i tr(C_i C_i^-1)/(n_i - d_i - 1) = sum_i p_i v_i d_i/(n_i - d_i - 1).
  double excess = 0.0;
  for (int i = 0; i < m.k(); ++i) {
    const int n_i = n_per_expert[static_cast<std::size_t>(i)], d_i = m.block_size(i);
    if (n_i <= d_i + 1) return std::numeric_limits<double>::infinity();
    excess += prob(m, i) * expert_residual_variance(m, i) * d_i / (n_i - d_i - 1.0);
  }
  return excess;
}

namespace {
// tr(H^-1 V) with V = sum_i p_i (q_i C_i + gg_weight g_i g_i'): gg_weight = 2 for i.i.d. mixture samples
// (V = S), 1 for stratified samples (V = sum_i p_i Cov_i(xbar r) = S - sum_i p_i g_i g_i').
double dense_excess_coefficient(const Model& m, double gg_weight) {
  m.check_consistent();
  const double s = m.sigma2;
  const Eigen::VectorXd b = bayes_dense_estimator(m);
  const double b_norm2 = b.squaredNorm();
  // Sandwich: tr(H^-1 S), H = blockdiag(p_r S_r) + s I, S = sum_i p_i (q_i C_i + 2 g_i g_i') (Isserlis), with
  // C_i = E[xbar xbar' | i] (S_i in block i, + s I), g_i = E[xbar r | i], q_i = E[r^2 | i].
  // Off block i: C_i = s I and g_i = -s b_r, so with per-block sums T_r = tr(H_r^-1), W_r = b_r' H_r^-1 b_r:
  //   tr(H^-1 C_i) = s (T - T_i) + tr(H_i^-1 (S_i + s I)),  g_i' H^-1 g_i = s^2 (W - W_i) + g_ii' H_i^-1 g_ii.
  const int k = m.k();
  std::vector<double> trace_hinv(static_cast<std::size_t>(k)), b_hinv_b(static_cast<std::size_t>(k)),
      trace_hinv_c(static_cast<std::size_t>(k)), g_hinv_g(static_cast<std::size_t>(k)), q(static_cast<std::size_t>(k));
  for (int i = 0; i < k; ++i) {
    const auto u = static_cast<std::size_t>(i);
    const double p = prob(m, i);
    const int d_i = m.block_size(i);
    const Block blk(m, i, p);  // A = H_i = p_i S_i + s I
    const Eigen::VectorXd b_i = b.segment(m.offset(i), d_i);
    // tr(H_i^-1) = ||L^-1||_F^2 from the Cholesky factor H_i = L L'.
    const Eigen::MatrixXd l_inv = blk.a.matrixL().solve(Eigen::MatrixXd::Identity(d_i, d_i));
    trace_hinv[u] = l_inv.squaredNorm();
    // S_i + s I = H_i/p_i + s (1 - 1/p_i) I, so tr(H_i^-1 (S_i + s I)) = d_i/p_i + s (1 - 1/p_i) tr(H_i^-1):
    // cancellation costs at most a factor 1/p_i in relative accuracy (eigenwise (l+s)/(p l+s) >= 1).
    trace_hinv_c[u] = d_i / p + s * (1.0 - 1.0 / p) * trace_hinv[u];
    b_hinv_b[u] = b_i.dot(blk.a.solve(b_i));
    const Eigen::VectorXd g_ii = blk.sigma_beta - blk.sigma * b_i - s * b_i;
    g_hinv_g[u] = g_ii.dot(blk.a.solve(g_ii));
    q[u] = blk.beta.dot(blk.sigma_beta) - 2.0 * b_i.dot(blk.sigma_beta) + b_i.dot(blk.sigma * b_i) + s * b_norm2;
  }
  double trace_total = 0.0, w_total = 0.0;
  for (int i = 0; i < k; ++i) {
    trace_total += trace_hinv[static_cast<std::size_t>(i)];
    w_total += b_hinv_b[static_cast<std::size_t>(i)];
  }
  double coefficient = 0.0;
  for (int i = 0; i < k; ++i) {
    const auto u = static_cast<std::size_t>(i);
    const double trace_c = s * (trace_total - trace_hinv[u]) + trace_hinv_c[u];
    const double g_form = s * s * (w_total - b_hinv_b[u]) + g_hinv_g[u];
    coefficient += prob(m, i) * (q[u] * trace_c + gg_weight * g_form);
  }
  return coefficient;
}
}  // namespace

double dense_excess_leading_coefficient(const Model& m) { return dense_excess_coefficient(m, 2.0); }

double dense_excess_leading_coefficient_stratified(const Model& m) { return dense_excess_coefficient(m, 1.0); }

double sparse_excess_leading_coefficient(const Model& m) {
  m.check_consistent();
  // n_i = p_i n in sparse_excess_exact: n sum_i p_i v_i d_i/(p_i n - d_i - 1) -> sum_i v_i d_i.
  double coefficient = 0.0;
  for (int i = 0; i < m.k(); ++i) coefficient += expert_residual_variance(m, i) * m.block_size(i);
  return coefficient;
}

}  // namespace moelab::noisy
