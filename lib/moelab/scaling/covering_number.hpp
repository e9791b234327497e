// The sup-norm covering-number bound of MoE Transformers in the `scaling` paper ("Generalization and
// Scaling Laws for Mixture-of-Experts Transformers", arXiv:2604.09175), Lemma 3.7 as quoted in
// /work/shared/papers/scaling-laws-moe-transformers.review.txt:
//   log N(delta, T_MoE, ||.||_inf) <~ (P_attn + L k P_exp) log(kappa R M0 / delta) + L l k log(e M / k).
// Convention (named; every function below uses it): natural logarithms; L layers with MoE blocks (the
// paper's L_T), M experts per layer, k of them active per token, l tokens per input (the paper's ell),
// P_attn the attention (always active) parameters, P_exp the parameters of one expert, kappa R M0 the
// Lipschitz constant x parameter radius x output bound of the lemma. The "<~" hides an absolute
// constant; moelab evaluates the right-hand side with constant 1.
// The routing term is the union bound over routing patterns: each of the L l (layer, token) slots picks
// k of M experts, L l log C(M, k) nats, bounded with C(M, k) <= (e M / k)^k. `routing_overhead_exact`
// gives L l log C(M, k) (lgamma), `routing_overhead_gap` the slack of the bound.
#pragma once

namespace moelab::scaling {

struct CoveringParams {
  double P_attn = 0.0;  ///< attention / shared parameters, >= 0
  double P_exp = 1.0;   ///< parameters per expert, > 0
  double L = 1.0;       ///< number of MoE layers, >= 1
  double k = 1.0;       ///< active experts per token, 1 <= k <= M
  double M = 1.0;       ///< experts per layer, >= 1
  double ell = 1.0;     ///< tokens per input, >= 1
  double kappa = 1.0;   ///< Lipschitz constant, > 0
  double R = 1.0;       ///< parameter radius, > 0
  double M0 = 1.0;      ///< output bound, > 0
};

/// Throws std::logic_error (MOELAB_EXPECT) unless every field is in its documented domain (finite).
void validate(const CoveringParams& p);

/// The bound's terms, each on its own.
struct CoveringBound {
  double active_parameters = 0.0;   ///< P_attn + L k P_exp
  double log_scale = 0.0;           ///< log(kappa R M0 / delta)
  double parameter_entropy = 0.0;   ///< active_parameters * log_scale
  double routing_overhead = 0.0;    ///< L l k log(e M / k)
  double total = 0.0;               ///< parameter_entropy + routing_overhead
};
/// The right-hand side of Lemma 3.7 at resolution delta (0 < delta < kappa R M0, so that the log is > 0).
CoveringBound covering_number_bound(const CoveringParams& p, double delta);

/// k log(e M / k) = k (1 + log(M / k)): the per-slot bound on log C(M, k).
double log_binomial_bound(double M, double k);
/// L l log C(M, k): the exact log-count of routing patterns the union bound is taken over.
double routing_overhead_exact(const CoveringParams& p);
/// L l k log(e M / k): the routing term of Lemma 3.7.
double routing_overhead_bound(const CoveringParams& p);

/// The bound against the exact count, per (layer, token) slot.
struct RoutingOverheadComparison {
  double bound = 0.0;  ///< k log(e M / k)
  double exact = 0.0;  ///< log C(M, k)
  double gap = 0.0;    ///< bound - exact >= 0
  double ratio = 0.0;  ///< bound / exact (+inf when exact = 0, i.e. k = M)
};
/// When it is tight or loose (docs/sparsity.md): gap = k - (M - k) log(M / (M - k)) + (1/2) log(2 pi k (1 - k/M))
/// + O(1/k) (Stirling), i.e. ~ k^2 / (2M) + (1/2) log(2 pi k) for k << M: relatively tight (ratio -> 1)
/// when k / M -> 0 and k log(M/k) >> k^2/M; loose when k is comparable to M (at k = M: bound M, exact 0).
RoutingOverheadComparison routing_overhead_gap(double M, double k);
/// The Stirling form of the gap above (k < M): k - (M - k) log(M / (M - k)) + 0.5 log(2 pi k (1 - k / M)).
double routing_overhead_gap_asymptotic(double M, double k);

}  // namespace moelab::scaling
