// Monte-Carlo checks of the lemmas behind Theorem 1 of the compositional paper (arXiv 2410.13964,
// Appendix B, Lemmas 5, 7-11, Eq. 16), each with a negative control that must fail.
//
// Setting (shared by every check): a finite domain {0, ..., n-1} with point probabilities p (n-vector,
// sum 1); a finite class of functions on it given as a K x n matrix (rows = functions, columns =
// domain points); samples S, S' of m iid points each. Trial t draws from RandomStream(seed, tag, t)
// (uniforms only: S from indices [0, m), S' from [m, 2m), Rademacher signs from [2m, 3m), the
// replaced point of Lemma 11 from [3m, 3m + 2)); trials run in parallel and are reduced in index order.
// Stream tag: StreamTag::bounds (kBoundsStreamTag).
//
// Every inequality "E[lhs] <= E[rhs]" is reported as an InequalityCheck over paired per-trial values:
// the verdict is a one-sided t-test of H0: E[lhs - rhs] <= 0; a small p_violation rejects the bound.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <Eigen/Dense>

#include "moelab/core/stats.hpp"
#include "moelab/core/stream_tags.hpp"

namespace moelab::bounds {

/// Stream of all lemma checks.
inline constexpr StreamTag kBoundsStreamTag = StreamTag::bounds;

/// Example classes used by the tests, claims and docs (domain {0, ..., n-1}):
/// the uniform distribution on the domain;
Eigen::VectorXd uniform_domain(int n);
/// the n + 1 thresholds h_t(x) = 1[x < t], t = 0..n, as an (n + 1) x n matrix;
Eigen::MatrixXd threshold_class(int n);
/// the partition gate: all weight on expert x mod T (T x n);
Eigen::MatrixXd partition_gate(int T, int n);
/// K cosines h_f(x) = cos(0.7 (f + 1) x), f = 0..K-1 (K x n), a class with distinct, correlated rows;
Eigen::MatrixXd cosine_class(int K, int n);
/// the constant gates of Lemma 10: the T vertices of the simplex and its centre (T + 1 gates, T x n each).
std::vector<Eigen::MatrixXd> simplex_vertex_gates(int T, int n);

/// One inequality lhs <= rhs, estimated over `trials` paired trials (or exact, see `exact`).
struct InequalityCheck {
  double lhs;          ///< mean of the left side (or its maximum when exact)
  double lhs_se;       ///< standard error of lhs (0 when exact)
  double rhs;          ///< mean of the right side (the bound)
  double rhs_se;       ///< standard error of rhs (0 when the bound is a constant)
  double excess;       ///< mean of lhs_t - rhs_t (> 0: the bound is exceeded on average)
  double excess_se;    ///< its standard error
  double p_violation;  ///< one-sided p-value of H0: E[lhs - rhs] <= 0 (t test; 0 or 1 when exact)
  bool exact;          ///< true: a deterministic per-trial inequality, lhs = max over trials, no test
  std::uint64_t trials;
};

/// Cumulative point probabilities of a finite domain (checked: entries >= 0, sum 1), the last entry forced to 1
/// so that every uniform in (0, 1) finds a point; draw_point maps a uniform to its point.
std::vector<double> point_cdf(const Eigen::VectorXd& p);
int draw_point(const std::vector<double>& cdf, double u);

/// The paired (Monte-Carlo) InequalityCheck from the running moments of lhs, rhs and lhs - rhs over the trials.
InequalityCheck paired_inequality(const Welford& lhs, const Welford& rhs, const Welford& diff);

/// Lemma 5 (Eq. 19): E[phi|mu(S, S')] <= 2 C R_m(H), for the routed class F|mu (Eq. 20) with a fixed
/// mask and weights: f(x) = sum_j g_j(x) h_j(x), h_j in H (the K x n `experts`, values in [0, 1]),
/// g in the finite family `gates` (each T x n, columns on the simplex; the nu in V|mu of the sup).
/// Loss l(f, y) = C |f - y| with labels y(x) in {0, 1} (`labels`, n-vector) and 0 < C <= 1: C-Lipschitz
/// with values in [0, 1] (Assumption 2). phi|mu = sup (L_S - L_S') (Eq. 14), computed exactly
/// (the loss is affine in f for y in {0, 1}, so the sup over H^T separates over experts).
/// R_m(H) is estimated with one sign vector per trial (unbiased for E_S R(H, S)).
struct Lemma5Check {
  double phi;             ///< E[phi|mu]
  double rademacher;      ///< R_m(H) of the expert class
  double max_gate_weight; ///< w_max = largest gate entry
  int T;                  ///< experts per gate
  InequalityCheck printed;  ///< E phi <= 2 C R_m(H) (Eq. 19): fails for x-dependent gates (docs/bounds.md)
  InequalityCheck derived;  ///< E phi <= 2 C T w_max R_m(H) (contraction per expert): must hold
};
Lemma5Check check_lemma5(const Eigen::VectorXd& p, const Eigen::VectorXd& labels, const Eigen::MatrixXd& experts,
                         const std::vector<Eigen::MatrixXd>& gates, double C, int m, std::uint64_t trials,
                         std::uint64_t seed);

/// Lemma 7 (Eq. 28, with the L_D the proof (Eq. 29-36) establishes; the printed statement has L_S' on
/// both sides and is trivially true): for a class of losses in [0, 1] (K x n `losses`),
///   (1 - 2 exp(-eps^2 m / 2)) P(sup_h |L_S(h) - L_D(h)| > eps) <= P(sup_h |L_S(h) - L_S'(h)| > eps / 2).
/// Control: the ghost threshold 2 eps instead of eps / 2 on the right; fails where the left side is
/// not negligible (eps sqrt(m) ~ 1.5-2).
struct Lemma7Check {
  double factor;         ///< 1 - 2 exp(-eps^2 m / 2)
  double p_uniform;      ///< P(sup |L_S - L_D| > eps)
  double p_ghost_half;   ///< P(sup |L_S - L_S'| > eps / 2)
  double p_ghost_double; ///< P(sup |L_S - L_S'| > 2 eps)
  InequalityCheck statement;
  InequalityCheck control;
};
Lemma7Check check_lemma7(const Eigen::VectorXd& p, const Eigen::MatrixXd& losses, int m, double eps,
                         std::uint64_t trials, std::uint64_t seed);

/// Lemma 8 (Eq. 37): E sup_f (L_S(f) - L_S'(f)) <= 2 R_m(F) for the K x n class `values`; R_m(F) with
/// one sign vector per trial. Control: the bound halved, E sup (L_S - L_S') <= R_m(F).
struct Lemma8Check {
  double ghost_gap;   ///< E sup_f (L_S(f) - L_S'(f))
  double rademacher;  ///< R_m(F)
  InequalityCheck statement;
  InequalityCheck control;
};
Lemma8Check check_lemma8(const Eigen::VectorXd& p, const Eigen::MatrixXd& values, int m, std::uint64_t trials,
                         std::uint64_t seed);

/// Lemma 9 (contraction; Meir & Zhang 2003; Ledoux-Talagrand): R_m(phi o F) <= L R_m(F) for an
/// L-Lipschitz phi. Both empirical complexities exact on each sample (2^m enumeration, m <= 20), so the
/// per-sample inequality is checked too (`max_sample_excess` <= 0 up to rounding). Control: the bound
/// halved, R(phi o F) <= (L / 2) R(F) (fails when phi is close to affine with slope +-L on the range).
struct Lemma9Check {
  double max_sample_excess;  ///< max over samples of R(phi o F, S) - L R(F, S)
  InequalityCheck statement;
  InequalityCheck control;
};
Lemma9Check check_lemma9(const Eigen::VectorXd& p, const Eigen::MatrixXd& values, const std::function<double(double)>& phi,
                         double lipschitz, int m, std::uint64_t trials, std::uint64_t seed);

/// Lemma 10 (Eq. 42): constant convex combinations of T experts from H have R_m(H). `constant_gates`
/// must be constant in x (each T x n with equal columns); `routed_gates` may depend on x (Eq. 24).
/// One sign vector per trial, the same for all three classes. Statement: R(conv H) <= R(H) per draw
/// (exact: the supremum over constant weights sits at a vertex) and `equality_gap` = E[sup_H - sup_conv]
/// (0 when the vertices are among the constant gates). Control: Lemma 10 applied to the x-dependent
/// gates as in Eq. 24 -> 25, R(gated) <= R(H): fails.
struct Lemma10Check {
  double rademacher_experts;
  double rademacher_convex;
  double rademacher_gated;
  double equality_gap;
  InequalityCheck statement;
  InequalityCheck control;
};
Lemma10Check check_lemma10(const Eigen::VectorXd& p, const Eigen::MatrixXd& experts,
                           const std::vector<Eigen::MatrixXd>& constant_gates,
                           const std::vector<Eigen::MatrixXd>& routed_gates, int m, std::uint64_t trials,
                           std::uint64_t seed);

/// Lemma 11 (Eq. 47): replacing one of the 2m points of (S, S') moves phi = sup (L_S - L_S') by at
/// most 1/m for losses in [0, 1] (K x n `losses`). Each trial replaces one uniformly chosen point.
/// And McDiarmid's inequality for phi, a function of 2m points with c_i = 1/m:
/// P(phi - E phi >= t) <= exp(-m t^2) (derived); Eq. 16 prints exp(-2 m t^2) (E phi taken as the
/// mean over the trials).
struct Lemma11Check {
  double max_scaled_difference;        ///< max over trials of m |phi - phi_hat|
  double tail;                         ///< P(phi - E phi >= t)
  InequalityCheck bounded_difference;  ///< m |phi - phi_hat| <= 1 (exact)
  InequalityCheck bounded_difference_control;  ///< m |phi - phi_hat| <= 1/2 (exact): fails
  InequalityCheck mcdiarmid_derived;   ///< tail <= exp(-m t^2): must hold
  InequalityCheck mcdiarmid_printed;   ///< tail <= exp(-2 m t^2) (Eq. 16): fails when phi is nearly Gaussian
};
Lemma11Check check_lemma11(const Eigen::VectorXd& p, const Eigen::MatrixXd& losses, int m, double t,
                           std::uint64_t trials, std::uint64_t seed);

}  // namespace moelab::bounds
